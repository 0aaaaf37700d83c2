"""Floods of web and Arena requests from a process of their own (issue 21), for the tests and for
``benchmarks/web_flood.py``: ``start(target, ...)`` spawns one, waits until it is about to flood and
returns it; ``Flood.answers()`` waits for its end and returns its answers counted by status.
"""

from __future__ import annotations

import asyncio
import collections
import multiprocessing
import time
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from typing import Any

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc

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
