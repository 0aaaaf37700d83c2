"""``conquest demo``: the product in one command — a persistent, rated ladder of the sample bots.

It serves on the default address with the embedded default database (the SQLite file ``conquest serve``
uses), registers the sample bots there (or gives them fresh tokens when they already are), runs them as
separate processes over gRPC, and prints every game's result and the leaderboard as it changes. Ratings
persist: the next run, or ``conquest serve`` and ``conquest leaderboard``, carry on from them.

The sample bots are paced (``--pace-ms``) so that a visitor can follow a game live on the dashboard, and
the practice queues beside the ladder seat a visitor's own bot at once against house opponents.
"""

from __future__ import annotations

import argparse
import logging
import secrets
import sys
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from server.cli.match import Match, MatchError, match_rules, parse_entrants
from server.cli.numbers import whole_number
from server.cli.output import say, stop_on_signals, table
from server.cli.practice import practice_queues
from server.ops import runtime
from server.ops.config import ServerConfig
from server.play.runner_2210 import AnyRunner
from server.storage import AlreadyExistsError, Store

LADDER_BOTS = ("strategist", "aggressive", "aggressive", "random")
"""Four seats of classic Risk; the names become strategist, aggressive, aggressive-2 and random."""
LADDER_QUEUE = "ladder-4"
PRACTICE_QUEUES = ("classic-4", "2210-4")
"""Queues a visitor's bot can join at once: house opponents fill the other seats, unrated."""
PRACTICE_OPPONENT = "aggressive"
PACE_MS = 50
"""The sample bots answer no sooner than this after each request: a 4-player game lasts 20 to 60 s."""


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

    def _game_over(self, runner: AnyRunner) -> None:
        super()._game_over(runner)
        if self.store is not None and self._in_match(runner):
            say(self.out, leaderboard_table(self.store, self.queue_name))

    def _serving(self, port: int) -> None:
        database = self.store.url if self.store is not None else "none"
        lines = [
            f"Conquest: a rated ladder of {', '.join(e.name for e in self.entrants)} in queue "
            f"{self.queue_name}, serving on {self.address} with the database {database}. Ctrl-C stops "
            f"it; ratings persist (conquest leaderboard {self.queue_name} while a server runs)."
        ]
        if self.dashboard_port:
            lines.append(
                f"Dashboard: http://localhost:{self.dashboard_port}/ (Games: the game in play, live)"
            )
        queues = " or ".join(q.name for q in self.extra_queues)
        lines.append(
            f"Your bot can play now: queue {queues} at localhost:{port} seats it at once against house "
            f"{PRACTICE_OPPONENT} bots (unrated), e.g.\n"
            f"  .venv/bin/python my_bot.py --address localhost:{port} --queue {self.extra_queues[0].name}"
        )
        say(self.out, "\n".join(lines))

    def _progress(self, line: str = "") -> None:
        if line:
            say(self.out, f"\n#{self.finished} {line}")


def ladder(
    database_url: str,
    address: str,
    games: int,
    replay_dir: Path,
    dashboard_port: int = 0,
    pace_ms: int = 0,
) -> Ladder:
    """The demo ladder on ``database_url`` (opened and migrated here), serving on ``address`` and the
    web dashboard on ``dashboard_port`` (0: none), its bots answering no sooner than ``pace_ms``."""
    admin_token = secrets.token_urlsafe(16)  # this run's own: only the demo registers bots here
    store = Store.open(database_url, admin_token=admin_token)
    entrants = parse_entrants(LADDER_BOTS)  # the sample bots read their token from $CONQUEST_TOKEN
    for entrant in entrants:
        if pace_ms and entrant.command is not None:
            entrant.command += f" --pace-ms {pace_ms}"
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
        extra_queues=practice_queues(PRACTICE_QUEUES, PRACTICE_OPPONENT, None),
    )


def cmd_demo(args: argparse.Namespace) -> int:
    from server.ops.logs import configure_logging

    configure_logging("console", logging.WARNING)  # results and the leaderboard are the output
    try:
        demo = ladder(
            args.database_url, args.address, args.games, args.replay_dir, args.dashboard_port, args.pace_ms
        )
    except SQLAlchemyError as bad:
        print(f"conquest demo: cannot open the database {args.database_url}: {bad}", file=sys.stderr)
        return 2
    stop_on_signals()
    try:
        runtime.run(demo.run())
    except MatchError as bad:
        print(f"conquest demo: {bad}", file=sys.stderr)
        return 1
    except OSError as bad:  # a port in use: say which flag moves it (make run passes them on)
        print(
            f"conquest demo: {bad}; with make run: make run ADDRESS=... DASHBOARD_PORT=...", file=sys.stderr
        )
        return 2
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: the bots were stopped
        print("\nstopped", file=sys.stderr)
    finally:
        if demo.store is not None:
            demo.store.close()
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``demo`` on the ``conquest`` parser."""
    demo = commands.add_parser(
        "demo", help="a persistent rated ladder of the sample bots, printing the leaderboard (docs/cli.md)"
    )
    demo.add_argument("--address", default="[::]:50051", help="host:port to listen on (default %(default)s)")
    demo.add_argument(
        "--database-url", default=ServerConfig().database_url, help="ladder database (default %(default)s)"
    )
    demo.add_argument(
        "--games",
        type=whole_number(1),
        default=1_000_000,
        help="stop after N games, the practice queues' included (default: Ctrl-C)",
    )
    demo.add_argument("--replay-dir", type=Path, default=Path("replays"), help="(default %(default)s)")
    demo.add_argument(
        "--dashboard-port",
        type=int,
        default=ServerConfig().dashboard_port,
        help="web dashboard HTTP port, 0 for none (default %(default)s)",
    )
    demo.add_argument(
        "--pace-ms",
        type=whole_number(0, 10_000),
        default=PACE_MS,
        help="the sample bots answer no sooner than this after each request, so a game can be watched "
        "live (default %(default)s; 0: full speed)",
    )
    demo.set_defaults(run=cmd_demo)
