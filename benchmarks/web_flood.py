"""Issue 21's flood, measured: live games' decisions/s while HTTP clients hammer the dashboard's heavy
endpoints, against the same games with no flood (a figure for docs/dashboard.md, not a test).

One process runs the game server and its dashboard as ``conquest serve`` does (one event loop); in it,
``--bots`` raw bots play two-player games against each other, one after another, answering at random. A
second process floods: ``--clients`` concurrent connections, each asking in a loop for the odds of 330
against 330 (issue 21: about 10 s of CPU each before) and of 10,000 against 10,000. ``--no-limit`` lifts
the per-client rate limit (every flooder shares 127.0.0.1) to show what the worker process and its
bounded queue alone do.

    python -m benchmarks.web_flood [--seconds 20] [--no-limit]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import dataclasses
import multiprocessing
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

from chaos_flood import http_get  # type: ignore[import-not-found]  # tests/support, on the path above
from raw_client import RawBot  # type: ignore[import-not-found]

from engine import preset
from server.app import build_server
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.play.pairing import LADDER
from server.play.replays import DirectoryReplayWriter
from server.web.dashboard import start_dashboard
from server.web.guard import RateLimit

PATHS = ("/api/odds?attackers=330&defenders=330", "/api/odds?attackers=10000&defenders=10000")


def flood(
    port: int, paths: list[str], clients: int, seconds: float, out: multiprocessing.Queue[object]
) -> None:
    """Every client asks for ``paths`` in turn until ``seconds`` have passed; puts the status counts."""
    counts: collections.Counter[int] = collections.Counter()

    async def client(index: int) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            counts[await http_get(port, paths[index % len(paths)], 60)] += 1
            index += 1

    async def everyone() -> None:
        await asyncio.gather(*(client(i) for i in range(clients)))

    asyncio.run(everyone())
    out.put(dict(counts))


async def play(bot: RawBot, decisions: list[int], stop: asyncio.Event) -> None:
    rng = random.Random(len(decisions))
    await bot.join("duel", games=0)
    while not stop.is_set():
        message = await bot.next(timeout=30)
        if message.WhichOneof("message") == "decision_request":
            bot.answer_randomly(message.decision_request, rng)
            decisions.append(1)


async def measure(args: argparse.Namespace) -> None:
    control = TimeControl(
        decision_ms=30_000, first_decision_ms=30_000, initial_timebank_ms=0, max_timebank_ms=0
    )
    queues = (QueueConfig("duel", preset("classic_two_player", turn_cap=20), 2, control, rated=False),)
    with tempfile.TemporaryDirectory() as tmp:
        replays = Path(tmp) / "replays"
        config = ServerConfig(replay_dir=replays, queues=queues, metrics_port=0, dashboard_port=0)
        # build_lobby without a store, the pair cap off (bench_server's way): the bots play each other on
        lobby = Lobby(config, DirectoryReplayWriter(replays), policy=dataclasses.replace(LADDER, pair_cap=0))
        server, port, _, arena = build_server(config, "localhost:0", lobby, None)
        await server.start()
        limit = RateLimit(rate=1e9, burst=10**9) if args.no_limit else None
        web = await start_dashboard(arena, 0, host="127.0.0.1", limit=limit)
        bots = [RawBot(port) for _ in range(args.bots)]
        for i, bot in enumerate(bots):
            await bot.hello(f"flood-{i}")
        decisions: list[int] = []
        stop = asyncio.Event()
        players = [asyncio.create_task(play(bot, decisions, stop)) for bot in bots]
        await asyncio.sleep(3)  # warm up
        paths = list(PATHS)
        for label, flooding in (("quiet", False), ("flood", True), ("quiet", False)):
            out: multiprocessing.Queue[object] = multiprocessing.get_context("spawn").Queue()
            flooder = None
            if flooding:
                flooder = multiprocessing.get_context("spawn").Process(
                    target=flood, args=(web.port, paths, args.clients, args.seconds, out)
                )
                flooder.start()
                await asyncio.sleep(1)  # the flooder's interpreter starting
            before, start = len(decisions), time.monotonic()
            await asyncio.sleep(args.seconds - (1 if flooding else 0))
            rate = (len(decisions) - before) / (time.monotonic() - start)
            statuses = ""
            if flooder is not None:
                await asyncio.to_thread(flooder.join)
                statuses = f"  flood answers by status: {out.get()}"
            print(f"{label}: {rate:.0f} decisions/s{statuses}", flush=True)
        stop.set()
        for task in players:
            task.cancel()
        await web.stop()
        await lobby.shutdown(0)
        await server.stop(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--bots", type=int, default=4)
    parser.add_argument("--clients", type=int, default=7)
    parser.add_argument("--no-limit", action="store_true")
    asyncio.run(measure(parser.parse_args()))


if __name__ == "__main__":
    main()
