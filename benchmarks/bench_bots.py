"""Win rates of the sample bots (``make bench-bots``): each matchup of ``conquest_bots.roster.MATCHUPS``
over seeded in-process games (``server.play.offline``), seats rotated from game to game.

    python -m benchmarks.bench_bots --games 200
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

from conquest_bots.roster import MATCHUPS
from server.play.offline import measure


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
