"""Issue 21's floods of web and Arena requests, measured: honest bots' missed deadlines of 250 ms and
their decisions/s with no flood, under an HTTP flood of the dashboard and under an Arena API flood.

The server is ``conquest serve`` in a process of its own, on a SQLite database in a temporary folder,
exactly as deployed (its dashboard included). This process plays ``--bots`` raw honest bots in pairs, one
duel queue per pair (so the pair cap never holds them back), each answering at once with a random legal
action; every decision has 250 ms and no timebank, so a decision the server is too busy to take in time
is a timeout, counted by the server (``conquest_decision_timeouts_total`` on its /metrics).

Each flood runs in a separate process on 127.0.0.1 for ``--seconds``, ``--clients`` connections at once:

- web: the heavy endpoints (the odds of 330 against 330 and of 10,000 against 10,000, a replay) and the
  cheap ones (queues, leaderboard, a thousand games, the page and a script) in turn;
- arena: ``ArenaService.ListGames{limit: 1000}`` and ``GetLeaderboard`` in turn.

It prints one table: per phase, decisions/s, missed deadlines, the server's RSS and the flood's answers.
The server, the honest bots and the floods are ``tests/support/chaos_flood.py``'s, shared with the tests.

    python -m benchmarks.web_flood [--seconds 15] [--bots 4] [--clients 8]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import chaos_flood  # type: ignore[import-not-found]  # tests/support, on the path above
from raw_client import RawBot  # type: ignore[import-not-found]


async def measure(args: argparse.Namespace) -> None:
    pairs = args.bots // 2
    with tempfile.TemporaryDirectory() as tmp:
        async with chaos_flood.conquest_serve(Path(tmp), pairs) as server:
            bots = [RawBot(server.port) for _ in range(pairs * 2)]
            decisions: list[int] = []
            stop = asyncio.Event()
            players = [
                asyncio.create_task(chaos_flood.honest(bot, f"honest-{i}", f"duel-{i // 2}", decisions, stop))
                for i, bot in enumerate(bots)
            ]
            game = await chaos_flood.finished_game(server.dashboard)
            await asyncio.sleep(3)  # warm up
            rows = []
            for label in ("none", "web", "none", "arena"):
                flooder = None
                clients = str(args.clients)
                if label == "web":
                    paths = chaos_flood.web_paths("duel-0", game)
                    flooder = await chaos_flood.start("web", server.dashboard, args.seconds, clients, *paths)
                elif label == "arena":
                    flooder = await chaos_flood.start("arena", server.port, args.seconds, clients, "duel-0")
                missed, before, start = server.timeouts(), len(decisions), time.monotonic()
                await asyncio.sleep(args.seconds)
                rate = (len(decisions) - before) / (time.monotonic() - start)
                missed = await asyncio.to_thread(server.timeouts) - missed
                answers = ""
                if flooder is not None:
                    counts = (await flooder.summary())["answers"]
                    answers = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
                rows.append((label, rate, missed, server.rss_mib(), answers))
            stop.set()
            for task in players:
                task.cancel()
            for bot in bots:
                await bot.close()
    missed_title = f"missed {chaos_flood.DEADLINE_MS} ms"
    print(f"{'flood':<6} {'decisions/s':>11} {missed_title:>14} {'RSS MiB':>8}  flood answers")
    for label, rate, missed, rss, answers in rows:
        print(f"{label:<6} {rate:>11.0f} {missed:>14} {rss:>8.0f}  {answers}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15, help="length of each phase (default 15)")
    parser.add_argument("--bots", type=int, default=4, help="honest bots, in pairs (default 4)")
    parser.add_argument("--clients", type=int, default=8, help="each flood's connections (default 8)")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
