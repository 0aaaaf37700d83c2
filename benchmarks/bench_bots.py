"""Win rates of the sample bots (``make bench-bots``): each matchup of ``conquest_bots.roster.MATCHUPS``
over seeded in-process games (``server.play.offline``), seats rotated from game to game, with a 95%
Wilson interval next to the fair share (one game in the number of seats). RISK 2210 A.D. rows (preset
"2210") count years in the turns column.

    python -m benchmarks.bench_bots --games 200
    python -m benchmarks.bench_bots --games 300 --only 2210     # the RISK 2210 A.D. rows alone
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Sequence

from conquest_bots.roster import MATCHUPS
from server.play.offline import measure

Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""


def wilson(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a win rate of ``wins`` in ``games`` (sound at 0 and all wins too)."""
    if games <= 0:
        return 0.0, 1.0
    rate = wins / games
    centre = (rate + z * z / (2 * games)) / (1 + z * z / games)
    half = z / (1 + z * z / games) * math.sqrt(rate * (1 - rate) / games + z * z / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Win rates of the sample bots (in-process, seeded).")
    parser.add_argument("--games", type=int, default=200, help="games per matchup (default %(default)s)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default %(default)s)")
    parser.add_argument("--only", default="", help="only the matchups whose title contains this text")
    args = parser.parse_args(argv)
    print(
        f"{'matchup':<50} {'games':>6} {'hero wins':>10} {'win rate':>9} {'95% interval':>14} {'fair':>6} "
        f"{'turns':>6} {'s':>6}"
    )
    for matchup in MATCHUPS:
        if args.only not in matchup.title:
            continue
        began = time.perf_counter()
        wins, turns = measure(matchup, args.games, processes=args.processes)
        low, high = wilson(wins, args.games)
        fair = 1 / len(matchup.kinds)
        print(
            f"{matchup.title:<50} {args.games:>6} {wins:>10} {wins / args.games:>9.1%} "
            f"{f'{low:.1%}-{high:.1%}':>14} {fair:>6.0%} {turns:>6.0f} {time.perf_counter() - began:>6.1f}"
        )


if __name__ == "__main__":
    main()
