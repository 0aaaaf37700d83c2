"""``conquest demo``: the product in one command — a persistent, rated ladder of the sample bots.

It serves on the default address with the embedded default database (the SQLite file ``conquest serve``
uses), registers the sample bots there (or gives them fresh tokens when they already are), runs them as
separate processes over gRPC, and prints every game's result and the leaderboard as it changes. Ratings
persist: the next run, or ``conquest serve`` and ``conquest leaderboard``, carry on from them.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from server.cli.arena import table
from server.cli.match import Match, match_rules, parse_entrants
from server.play.runner import GameRunner
from server.storage import AlreadyExistsError, Store

LADDER_BOTS = ("strategist", "aggressive", "aggressive", "random")
"""Four seats of classic Risk; the names become strategist, aggressive, aggressive-2 and random."""
LADDER_QUEUE = "ladder-4"


def register_bots(store: Store, admin_token: str, names: list[str]) -> dict[str, str]:
    """A token for each bot: registered on first use, rotated on later runs (tokens are stored hashed, so
    a stored one cannot be read back)."""
    tokens = {}
    for name in names:
        try:
            tokens[name] = store.register_bot(name, admin_token=admin_token).token
        except AlreadyExistsError:
            tokens[name] = store.rotate_token(name, admin_token=admin_token).token
    return tokens


def leaderboard_table(store: Store, queue: str) -> str:
    rows = [
        (
            s.rank,
            s.bot,
            round(s.skill.conservative, 2),
            s.games,
            s.wins,
            round(s.average_place, 2),
            s.timeouts,
        )
        for s in store.leaderboard(queue)
    ]
    return table(("rank", "bot", "mu-3sigma", "games", "wins", "avg place", "timeouts"), rows)


@dataclass
class Ladder(Match):
    """A Match that is rated and recorded in the store and prints the leaderboard after every game."""

    def _game_over(self, runner: GameRunner) -> None:
        super()._game_over(runner)
        if self.store is not None and runner.state.is_over():
            print(leaderboard_table(self.store, self.queue_name), file=self.out, flush=True)

    def _progress(self, line: str = "") -> None:
        if line:
            print(f"\n#{self.finished} {line}", file=self.out, flush=True)


def ladder(database_url: str, address: str, games: int, replay_dir: Path, dashboard_port: int = 0) -> Ladder:
    """The demo ladder on ``database_url`` (opened and migrated here), serving on ``address`` and the
    web dashboard on ``dashboard_port`` (0: none)."""
    admin_token = secrets.token_urlsafe(16)  # this run's own: only the demo registers bots here
    store = Store.open(database_url, admin_token=admin_token)
    entrants = parse_entrants(LADDER_BOTS)
    for entrant in entrants:
        entrant.command = f"{entrant.command} --token={{token}}"  # a token may start with "-"
    return Ladder(
        entrants,
        match_rules(len(entrants)),
        games,
        replay_dir,
        store=store,
        address=address,
        queue_name=LADDER_QUEUE,
        tokens=register_bots(store, admin_token, [e.name for e in entrants]),
        dashboard_port=dashboard_port,
    )
