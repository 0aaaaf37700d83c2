"""Floods of web and Arena requests from a process of their own (issue 21), and the server they flood,
for the tests and for ``benchmarks/web_flood.py``.

``conquest_serve(folder, pairs)`` runs ``conquest serve`` in a process of its own, as deployed (SQLite,
dashboard, JSON logs), with one duel queue per pair of honest bots and ``DEADLINE_MS`` a decision;
``start(target, ...)`` spawns a flood, waits until it is about to flood and returns it;
``Flood.answers()`` waits for its end and returns its answers counted by status.
"""

from __future__ import annotations

import asyncio
import collections
import json
import multiprocessing
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc

DEADLINE_MS = 250
"""Each decision's time, the first too, with no timebank: the bar of issue 21."""
WEB_PATHS = (
    "/api/odds?attackers=330&defenders=330",
    "/api/queues",
    "/api/odds?attackers=10000&defenders=10000",
    "/api/leaderboard?queue={queue}",
    "/api/games/{game}/replay",
    "/api/games?limit=1000",
    "/",
    "/static/app.js",
)
"""What a web flooder asks for, in turn: heavy and cheap endpoints alternately."""


async def get(port: int, path: str) -> int:
    """The HTTP status of ``GET path`` on 127.0.0.1:``port``."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
    status = int((await reader.readline()).split()[1])
    await reader.read()
    writer.close()
    return status


def web_flood(
    port: int, queue: str, game: str, clients: int, seconds: float, out: multiprocessing.Queue[Any]
) -> None:
    """``clients`` connections ask for ``WEB_PATHS`` in turn for ``seconds``; puts "ready", then the
    answers counted by HTTP status."""
    counts: collections.Counter[str] = collections.Counter()
    paths = [p.replace("{game}", game).replace("{queue}", queue) for p in WEB_PATHS]

    async def client(index: int, end: float) -> None:
        while time.monotonic() < end:
            try:
                counts[str(await asyncio.wait_for(get(port, paths[index % len(paths)]), 10))] += 1
            except (OSError, TimeoutError, IndexError, ValueError):
                counts["failed"] += 1
            index += 1

    async def everyone() -> None:
        end = time.monotonic() + seconds
        await asyncio.gather(*(client(i, end) for i in range(clients)))

    out.put("ready")
    asyncio.run(everyone())
    out.put(dict(counts))


def arena_flood(port: int, queue: str, clients: int, seconds: float, out: multiprocessing.Queue[Any]) -> None:
    """``clients`` concurrent callers of ListGames (a thousand games) and GetLeaderboard of ``queue`` for
    ``seconds``; puts "ready", then the answers counted by status code."""
    counts: collections.Counter[str] = collections.Counter()

    async def client(stub: Any, index: int, end: float) -> None:  # an aio stub: its calls are awaited
        while time.monotonic() < end:
            try:
                if index % 2:
                    await stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=queue), timeout=10)
                else:
                    await stub.ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=10)
                counts["OK"] += 1
            except grpc.aio.AioRpcError as error:
                counts[error.code().name] += 1
            index += 1

    async def everyone() -> None:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            end = time.monotonic() + seconds
            await asyncio.gather(*(client(stub, i, end) for i in range(clients)))

    out.put("ready")
    asyncio.run(everyone())
    out.put(dict(counts))


@dataclass
class Flood:
    process: BaseProcess
    out: multiprocessing.Queue[Any]

    async def answers(self) -> dict[str, int]:
        """Its answers counted by status, once it has ended."""
        counts: dict[str, int] = await asyncio.to_thread(self.out.get, True, 120)
        await asyncio.to_thread(self.process.join, 30)
        return counts


async def start(target: Any, *args: Any) -> Flood:
    """``target(*args, out)`` in a spawned process, once it is about to flood."""
    spawn = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[Any] = spawn.Queue()
    process = spawn.Process(target=target, args=(*args, out))
    process.start()
    assert await asyncio.to_thread(out.get, True, 60) == "ready"
    return Flood(process, out)


async def honest(bot: Any, name: str, queue: str, decisions: list[int], stop: asyncio.Event) -> None:
    """A raw bot (``raw_client.RawBot``) named ``name`` playing ``queue`` on until ``stop``, answering
    each decision at once with a random legal action; one item in ``decisions`` per answer."""
    rng = random.Random(name)
    await bot.hello(name)
    await bot.join(queue, games=0)
    while not stop.is_set():
        message = await bot.next(timeout=60)
        bot.log.clear()  # the raw client keeps every message for tests; a long run keeps none
        if message.WhichOneof("message") == "decision_request":
            bot.answer_randomly(message.decision_request, rng)
            decisions.append(1)


async def finished_game(dashboard: int) -> str:
    """The id of a game recorded by the server of ``dashboard`` (waits up to 60 s for one)."""

    def fetch() -> str:
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/games?limit=1", timeout=10) as got:
            games = json.loads(got.read())["games"]
        return str(games[0]["game_id"]) if games else ""

    for _ in range(300):
        if game := await asyncio.to_thread(fetch):
            return game
        await asyncio.sleep(0.2)
    raise AssertionError("no game was recorded in 60 s")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Served:
    """A ``conquest serve`` process: its gRPC, /metrics and dashboard ports, and its log (JSON lines)."""

    process: subprocess.Popen[bytes]
    port: int
    metrics: int
    dashboard: int
    log: Path

    def records(self) -> list[dict[str, Any]]:
        lines = self.log.read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def timeouts(self) -> int:
        """The server's count of decisions that timed out."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.metrics}/metrics", timeout=10) as answer:
            text = answer.read().decode()
        lines = text.splitlines()
        return round(
            sum(float(x.rsplit(" ", 1)[1]) for x in lines if x.startswith("conquest_decision_timeouts_total"))
        )

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return 0.0


@asynccontextmanager
async def conquest_serve(folder: Path, pairs: int) -> AsyncIterator[Served]:
    """``conquest serve`` with queues ``duel-0`` .. ``duel-<pairs - 1>``, running once its dashboard
    answers; stopped with SIGTERM when the block ends."""
    port, metrics, dashboard = free_port(), free_port(), free_port()
    queues = "".join(
        f'[queues.duel-{i}]\nrules = "classic_two_player"\nplayers = 2\n'
        "rules_options = { turn_cap = 20 }\n\n"
        for i in range(pairs)
    )
    config = folder / "conquest.toml"
    config.write_text(
        f'[server]\naddress = "127.0.0.1:{port}"\nreplay_dir = "{folder / "replays"}"\n'
        f'database_url = "sqlite:///{folder / "conquest.sqlite3"}"\nmetrics_port = {metrics}\n'
        f'dashboard_port = {dashboard}\nlog_format = "json"\n\n'
        f"[time_control]\ndecision_ms = {DEADLINE_MS}\nfirst_decision_ms = {DEADLINE_MS}\n"
        "initial_timebank_ms = 0\nincrement_ms = 0\nmax_timebank_ms = 0\nmax_strikes = 1000000\n\n" + queues
    )
    log = folder / "serve.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CONQUEST_SERVER_")}
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli.main", "serve", "--config", str(config)],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    served = Served(process, port, metrics, dashboard, log)
    try:
        for _ in range(600):
            assert process.poll() is None, f"conquest serve stopped: {log.read_text()[-3000:]}"
            with suppress(OSError):
                if await get(dashboard, "/api/queues") == 200:
                    break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError(f"the dashboard of conquest serve did not answer in 60 s: {log.read_text()}")
        yield served
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(60)
        finally:
            process.kill()
