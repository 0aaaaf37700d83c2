"""Win rates of the sample bots, measured in-process: no network, the server's own message shapes.

Each game runs on the engine; every decision goes to the bot exactly as the server would send it
(``server.play.wire`` builds the Observation and LegalActions) and the bot's Action comes back through
``server.play.wire.action_from_pb`` and the checked ``state.apply``, so an illegal action fails loudly.
This is the one module of the sample bots that imports the engine and the server.

    python -m conquest_bots.evaluate --games 200
"""

from __future__ import annotations

import argparse
import multiprocessing
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from conquest.v1 import bot_pb2
from conquest_bots.aggressive import AggressiveBot
from conquest_bots.random_bot import RandomBot
from conquest_bots.strategist import StrategistBot
from conquest_sdk import Bot, Game, Turn
from engine import new_game, observe, preset
from server.play import wire

BOTS: dict[str, Callable[[int], Bot]] = {
    "random": lambda seed: RandomBot(seed),
    "aggressive": lambda seed: AggressiveBot(),
    "strategist": lambda seed: StrategistBot(),
}
"""Bot kinds by name, each built from a per-game seed (used by the random bot only)."""


@dataclass(frozen=True)
class GameResult:
    places: tuple[int, ...]
    """Final place of each seat, 1 = best."""
    turns: int
    decisions: int
    reason: str


def play(kinds: Sequence[str | Bot], preset_name: str, seed: int, **rules_options: Any) -> GameResult:
    """One game between ``kinds`` (bot kind names or bots, in seat order) on the engine, every action
    checked; ``rules_options`` change the preset.

    Raises:
        engine.ActionError: a bot chose an illegal action.
    """
    rules = preset(preset_name, **rules_options)
    seats = len(kinds)
    state, _ = new_game(rules, seats, seed)
    started = {
        "game_id": f"eval-{seed}",
        "players": [bot_pb2.Player(seat=s, name=str(k)) for s, k in enumerate(kinds)],
        "rules": wire.rules_info(rules, seats),
        "map": wire.map_info(state.board),
    }
    games = [Game(bot_pb2.GameStarted(seat=s, **started)) for s in range(seats)]  # type: ignore[arg-type]
    bots = [BOTS[k](seed * 10 + s) if isinstance(k, str) else k for s, k in enumerate(kinds)]
    decisions = 0
    while not state.is_over():
        seat = state.to_act
        request = bot_pb2.DecisionRequest(
            game_id=games[seat].game_id,
            request_id=decisions,
            observation=wire.observation(observe(state, seat)),
            legal=wire.legal_actions(state.legal_actions()),
        )
        action = bots[seat].decide(games[seat], Turn(request))
        state.apply(wire.action_from_pb(action), seat)
        decisions += 1
    return GameResult(state.places, state.turn, decisions, state.end_reason)


@dataclass(frozen=True)
class Matchup:
    title: str
    kinds: tuple[str, ...]
    preset: str
    hero: int
    """The seat whose wins are counted (seat order is rotated from game to game)."""


MATCHUPS = (
    Matchup("strategist vs random, two-player neutral", ("strategist", "random"), "classic_two_player", 0),
    Matchup(
        "strategist vs aggressive, two-player neutral", ("strategist", "aggressive"), "classic_two_player", 0
    ),
    Matchup(
        "strategist vs 3 aggressive, classic 4 players",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "classic",
        0,
    ),
    Matchup(
        "aggressive vs 3 random, classic 4 players",
        ("aggressive", "random", "random", "random"),
        "classic",
        0,
    ),
    Matchup(
        "strategist vs 3 aggressive, capital 4 players",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "capital",
        0,
    ),
    Matchup(
        "strategist vs 3 aggressive, secret mission 4 pl.",
        ("strategist", "aggressive", "aggressive", "aggressive"),
        "secret_mission",
        0,
    ),
    Matchup(
        "strategist vs aggressive, allied army 2 pl.", ("strategist", "aggressive"), "allied_two_player", 0
    ),
)


def _hero_game(args: tuple[Matchup, int]) -> tuple[bool, GameResult]:
    """Game ``seed`` of a matchup with seats rotated by the seed; whether the hero won outright."""
    matchup, seed = args
    n = len(matchup.kinds)
    shift = seed % n
    kinds = matchup.kinds[shift:] + matchup.kinds[:shift]
    result = play(kinds, matchup.preset, seed)
    hero_seat = (matchup.hero - shift) % n
    won = result.places[hero_seat] == 1 and result.places.count(1) == 1
    return won, result


def measure(matchup: Matchup, games: int, first_seed: int = 1, processes: int = 2) -> tuple[int, float]:
    """Wins of the hero over ``games`` seeded games, and the mean turns per game."""
    jobs = [(matchup, seed) for seed in range(first_seed, first_seed + games)]
    with multiprocessing.Pool(processes) as pool:
        outcomes = pool.map(_hero_game, jobs, chunksize=4)
    wins = sum(won for won, _ in outcomes)
    return wins, sum(r.turns for _, r in outcomes) / games


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Win rates of the sample bots (in-process, seeded).")
    parser.add_argument("--games", type=int, default=200, help="games per matchup (default %(default)s)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default %(default)s)")
    args = parser.parse_args(argv)
    print(f"{'matchup':<50} {'games':>6} {'hero wins':>10} {'win rate':>9} {'fair':>6} {'turns':>6} {'s':>6}")
    for matchup in MATCHUPS:
        began = time.perf_counter()
        wins, turns = measure(matchup, args.games, processes=args.processes)
        fair = 1 / len(matchup.kinds)
        print(
            f"{matchup.title:<50} {args.games:>6} {wins:>10} {wins / args.games:>9.1%} {fair:>6.0%} "
            f"{turns:>6.0f} {time.perf_counter() - began:>6.1f}"
        )


if __name__ == "__main__":
    main()
