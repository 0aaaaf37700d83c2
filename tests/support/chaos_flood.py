"""Floods for the chaos harness (tests/support/chaos.py), each run in a process of its own against a
server on 127.0.0.1, bounded in count and time; prints one JSON line summarising what happened.

    python chaos_flood.py KIND PORT SECONDS [ARGS...]

KIND: ``no_hello N`` (N streams that never send Hello), ``sessions N`` (N practice sessions from this one
client), ``spectators N GAME_ID`` (N WatchGame streams that never read), ``nonreader`` (one session sending
JoinQueue for an unknown queue as fast as it can and never reading the errors), ``messages`` (one session
sending JoinQueue and LeaveQueue as fast as it can, reading the answers), ``web N PATH`` (N HTTP clients
asking the dashboard at PORT for PATH in a loop), ``arena N`` (N Arena clients listing games and the
leaderboard in a loop), ``idle`` (nothing: the honest bots' baseline).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import grpc

from conquest.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc


async def _silent() -> AsyncIterator[bot_pb2.ConnectRequest]:
    await asyncio.Event().wait()  # never sends anything
    yield bot_pb2.ConnectRequest()


async def _closed_within(calls: list[Any], seconds: float, read: bool = False) -> dict[str, Any]:
    """How many of ``calls`` the server ended within ``seconds``, and when the last of those ended. With
    ``read``, each call's messages are read (a client sees its stream's status only after its messages);
    without, none are, and only a stream the server ended with nothing unread shows as closed."""
    start = time.monotonic()
    closed: list[float] = []

    async def watch(call: Any) -> None:
        if read:
            with contextlib.suppress(grpc.aio.AioRpcError):
                while await call.read() is not grpc.aio.EOF:
                    pass
        await call.code()
        closed.append(time.monotonic() - start)

    watchers = [asyncio.create_task(watch(c)) for c in calls]
    await asyncio.wait(watchers, timeout=seconds)
    for call in calls:
        call.cancel()
    return {"opened": len(calls), "closed": len(closed), "last_closed_s": max(closed, default=0.0)}


async def no_hello(port: int, seconds: float, count: str) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        calls = [stub.Connect(_silent()) for _ in range(int(count))]
        return await _closed_within(calls, seconds, read=True)  # they never send; they do listen


async def sessions(port: int, seconds: float, count: str) -> dict[str, Any]:
    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        stub = bot_pb2_grpc.BotServiceStub(channel)
        calls = []
        for index in range(int(count)):
            queue: asyncio.Queue[bot_pb2.ConnectRequest] = asyncio.Queue()
            queue.put_nowait(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name=f"crowd-{index}")))

            async def requests(q: asyncio.Queue[bot_pb2.ConnectRequest] = queue) -> Any:
                while True:
                    yield await q.get()

            calls.append(stub.Connect(requests()))

        async def welcomed(call: Any) -> bool:
            try:
                first = await asyncio.wait_for(call.read(), seconds)
            except (grpc.aio.AioRpcError, TimeoutError):
                return False
            return first is not grpc.aio.EOF and first.WhichOneof("message") == "welcome"

        answers = await asyncio.gather(*(welcomed(c) for c in calls))
        for call in calls:
            call.cancel()
        return {"opened": len(calls), "welcomed": sum(answers), "refused": len(calls) - sum(answers)}


async def spectators(port: int, seconds: float, count: str, game_id: str) -> dict[str, Any]:
    # HTTP/2's 64 KiB windows, not grown by BDP probing: what the client leaves unread backs up into the
    # server, whose bounded send queues must then cut these streams (with probing, the client's own
    # memory would take the events instead).
    options = [("grpc.http2.bdp_probe", 0)]
    async with grpc.aio.insecure_channel(f"localhost:{port}", options=options) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        calls = [stub.WatchGame(arena_pb2.WatchGameRequest(game_id=game_id)) for _ in range(int(count))]
        return await _closed_within(calls, seconds)


async def nonreader(port: int, seconds: float) -> dict[str, Any]:
    async def requests() -> AsyncIterator[bot_pb2.ConnectRequest]:
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name="nonreader"))
        while True:
            yield bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue="no-such-queue"))

    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests())
        summary = await _closed_within([call], seconds)
        code = await call.code() if call.done() else None
        return {**summary, "code": code.name if code is not None else "", "details": await _details(call)}


async def _details(call: Any) -> str:
    return str(await call.details())[:200] if call.done() else ""


def messages(port: int, seconds: float) -> dict[str, Any]:
    """One session sending JoinQueue and LeaveQueue in turn as fast as it can for ``seconds``, reading
    every answer: how many it sent, and whether the server limited it (an error saying so, or the
    stream ended with RESOURCE_EXHAUSTED)."""
    sent = 0
    sending_s = seconds
    stop = threading.Event()

    def requests() -> Iterator[bot_pb2.ConnectRequest]:
        nonlocal sent, sending_s
        yield bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name="flooder"))
        join = bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue="ladder", games=1))
        leave = bot_pb2.ConnectRequest(leave_queue=bot_pb2.LeaveQueue(queue="ladder"))
        start = time.monotonic()
        while time.monotonic() < start + seconds and not stop.is_set():
            yield join
            yield leave
            sent += 2
        sending_s = time.monotonic() - start

    codes: collections.Counter[str] = collections.Counter()
    ended = ""
    with grpc.insecure_channel(f"localhost:{port}") as channel:
        call = bot_pb2_grpc.BotServiceStub(channel).Connect(requests())
        try:
            for answer in call:
                if answer.WhichOneof("message") == "error":
                    codes[answer.error.code] += 1
        except grpc.RpcError as error:
            ended = error.code().name  # type: ignore[attr-defined]
        stop.set()
    limited = ended == "RESOURCE_EXHAUSTED" or any("rate" in c or "limit" in c for c in codes)
    return {
        "sent": sent,
        "per_second": sent / sending_s,
        "codes": dict(codes),
        "ended": ended,
        "limited": limited,
    }


async def web(port: int, seconds: float, count: str, path: str) -> dict[str, Any]:
    statuses: collections.Counter[int] = collections.Counter()

    async def client() -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            statuses[await http_get(port, path, end - time.monotonic())] += 1

    await asyncio.gather(*(client() for _ in range(int(count))))
    return {"statuses": {str(k): v for k, v in statuses.items()}}


async def http_get(port: int, path: str, timeout: float) -> int:
    """One GET over a fresh connection: its status, or 0 when no answer came within ``timeout``."""
    try:
        async with asyncio.timeout(max(timeout, 0.1)):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
            status = int((await reader.readline()).split()[1])
            await reader.read()
            writer.close()
            return status
    except TimeoutError:
        return 0


async def arena(port: int, seconds: float, count: str) -> dict[str, Any]:
    answered: collections.Counter[str] = collections.Counter()
    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)

        async def client() -> None:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                try:
                    await stub.ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=30)
                    await stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue="ladder"), timeout=30)
                    answered["OK"] += 2
                except grpc.aio.AioRpcError as error:
                    answered[error.code().name] += 1

        await asyncio.gather(*(client() for _ in range(int(count))))
    return {"answers": dict(answered)}


def main(argv: list[str]) -> int:
    kind, port, seconds, rest = argv[0], int(argv[1]), float(argv[2]), argv[3:]
    if kind == "messages":
        summary = messages(port, seconds)
    elif kind == "idle":
        time.sleep(seconds)
        summary = {}
    else:
        runs = {
            "no_hello": no_hello,
            "sessions": sessions,
            "spectators": spectators,
            "nonreader": nonreader,
            "web": web,
            "arena": arena,
        }
        summary = asyncio.run(runs[kind](port, seconds, *rest))
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
