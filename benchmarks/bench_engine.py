"""The engine speed benchmark (``make bench-engine``): whole games with the aggressive policy, one process.

For each preset it plays a fixed number of games on a fixed seed range (so runs compare) and prints games/s
and per-game means of turns, attacks (Attack actions), dice rolls (Rolled events) and actions. The timed
passes only play (the fastest of REPEATS is reported); an untimed pass replays the same games to count.
The clock is read here, around whole games, never inside the engine.

    python -m benchmarks.bench_engine [--scale 0.5]
"""

from __future__ import annotations

import argparse
import time
from typing import NamedTuple

from engine.actions import Attack, Phase
from engine.events import Rolled
from engine.game import new_game
from engine.policies import Policy, aggressive_policy, play_game
from engine.rules import preset
from engine.state import Termination


class Workload(NamedTuple):
    label: str
    preset: str
    seats: int
    games: int


WORKLOADS = (
    Workload("classic, 4 players (claim setup, cards escalating)", "classic", 4, 1000),
    Workload("classic_dealt, 4 players", "classic_dealt", 4, 1000),
    Workload("classic_two_player (neutral army)", "classic_two_player", 2, 2000),
)
FIRST_SEED = 1
REPEATS = 3
"""Each preset is timed this many times and the fastest run is reported (the machine may be shared)."""


class Result(NamedTuple):
    games: int
    seconds: float
    """The fastest of the timed runs."""
    turns: int
    attacks: int
    rolls: int
    actions: int
    unfinished: int
    """Games stopped by the turn cap instead of a conquest."""


def time_games(workload: Workload, games: int) -> float:
    """Seconds to play ``games`` games on seeds FIRST_SEED.. (nothing else inside the timed loop)."""
    rules = preset(workload.preset)
    policies: list[Policy] = [aggressive_policy] * workload.seats
    start = time.perf_counter()
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        state, _ = new_game(rules, workload.seats, seed)
        play_game(state, policies)
    return time.perf_counter() - start


def count_games(workload: Workload, games: int, seconds: float) -> Result:
    """Replay the same games (deterministic: same seeds, same policy) counting what happened."""
    rules = preset(workload.preset)
    turns = attacks = rolls = actions = unfinished = 0
    for seed in range(FIRST_SEED, FIRST_SEED + games):
        state, _ = new_game(rules, workload.seats, seed)
        while state.phase != Phase.GAME_OVER:
            action = aggressive_policy(state)
            attacks += type(action) is Attack
            rolls += sum(1 for event in state.apply_unchecked(action) if type(event) is Rolled)
            actions += 1
        turns += state.turn
        unfinished += state.end_reason != Termination.CONQUEST
    return Result(games, seconds, turns, attacks, rolls, actions, unfinished)


def report(workload: Workload, r: Result) -> str:
    n = r.games
    return (
        f"{workload.label}\n"
        f"  {n} games (seeds {FIRST_SEED}..{FIRST_SEED + n - 1}), fastest of {REPEATS} runs: "
        f"{r.seconds:.2f} s, {n / r.seconds:.1f} games/s\n"
        f"  per game: {r.turns / n:.1f} turns, {r.attacks / n:.1f} attacks, {r.rolls / n:.1f} dice rolls, "
        f"{r.actions / n:.1f} actions; {r.unfinished} ended by the turn cap"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every preset's game count")
    args = parser.parse_args()
    for workload in WORKLOADS:
        games = max(1, int(workload.games * args.scale))
        seconds = min(time_games(workload, games) for _ in range(REPEATS))
        print(report(workload, count_games(workload, games, seconds)), flush=True)


if __name__ == "__main__":
    main()
