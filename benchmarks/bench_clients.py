"""The client side of the server benchmarks (``make bench-server``, ``make bench-capacity``,
``make bench-server-instructions``): bot streams and echo streams in one event loop, and the ``Window``
that counts their answered messages and measures the server process over a fixed number of them.

The bots answer on the protobuf messages with a trivial policy, no engine on the path: a classic request
with ``conquest_bots.first_choice``, a RISK 2210 A.D. one with the SDK's safe default
(``conquest_sdk.r2210.default_2210``: stop where stopping is allowed, else the first choice offered, so
its games run their five years without an invasion). ``benchmarks.bench_server`` runs the servers they
talk to.
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
from pathlib import Path
from typing import Any, cast

import grpc

from conquest.v1 import bot_pb2
from conquest_bots.first_choice import first_choice
from conquest_sdk.r2210 import default_2210

ECHO_METHOD = "/conquest.bench.Echo/Stream"
CONNECT_METHOD = "/conquest.v1.BotService/Connect"
GAME_EVENTS_TAG = bytes([bot_pb2.ConnectResponse.DESCRIPTOR.fields_by_name["game_events"].number << 3 | 2])
"""The first byte of every serialized ConnectResponse carrying GameEvents (a length-delimited field)."""
CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]
"""Each bot stream gets its own TCP connection, as separate bot processes would."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` (all its threads) so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_kib(pid: int, field: str) -> int:
    """A ``/proc/<pid>/status`` memory figure in KiB (``VmRSS`` now, ``VmHWM`` its peak)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise KeyError(field)


def channel(port: int) -> grpc.aio.Channel:
    return grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=CHANNEL_OPTIONS)


def connect(chan: grpc.aio.Channel) -> grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bytes]:
    """A Connect stream whose answers are read as bytes: the bench bots play on the observation alone and
    skip GameEvents unparsed (``is_game_events``), which keeps the clients cheap."""
    serialize = bot_pb2.ConnectRequest.SerializeToString
    method: Any = chan.stream_stream(CONNECT_METHOD, request_serializer=serialize)  # no deserializer: bytes
    return cast(grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bytes], method())


async def joined(
    chan: grpc.aio.Channel, name: str, capacity: int, queue: str, client_name: str
) -> grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bytes]:
    """A bench bot's Connect stream (``connect``) once it has sent its Hello and joined ``queue``."""
    call = connect(chan)
    hello = bot_pb2.Hello(name=name, capacity=capacity, client_name=client_name, client_version="1")
    await call.write(bot_pb2.ConnectRequest(hello=hello))
    await call.write(bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue=queue)))
    return call


async def read_raw(call: grpc.aio.StreamStreamCall[bot_pb2.ConnectRequest, bytes], name: str) -> bytes:
    """The stream's next message, unparsed; EOFError (naming bot ``name``) once the server closed it."""
    raw = await call.read()
    if raw is grpc.aio.EOF:
        raise EOFError(f"{name}: the server closed the stream")
    assert isinstance(raw, bytes)
    return raw


def is_game_events(raw: bytes) -> bool:
    return raw[:1] == GAME_EVENTS_TAG


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Window:
    """Counts answered messages; measures the ``measured`` ones after the first ``warmup``."""

    def __init__(self, warmup: int, measured: int, server_pid: int) -> None:
        self.warmup = warmup
        self.measured = measured
        self.server_pid = server_pid
        self.count = 0
        self.round_trips: list[float] = []
        self.messages = 0
        """Messages the clients read in the window (every kind)."""
        self.request_bytes: list[int] = []
        self.decision_bytes: list[int] = []
        self.event_bytes: list[int] = []
        self.rejected: list[str] = []
        """Every DecisionRejected the bots got in the run (warm-up included): the bot and the reason."""
        self.finished: dict[str, str] = {}
        """The games that ended in the run (warm-up included), each with its GameOver reason."""
        self.started: tuple[float, float, float] = (0.0, 0.0, 0.0)
        """(wall clock, server CPU, client CPU) at the window's start."""
        self.ended: tuple[float, float, float] = (0.0, 0.0, 0.0)
        self.done = asyncio.Event()

    @property
    def open(self) -> bool:
        return self.warmup <= self.count < self.warmup + self.measured

    def answered(self) -> None:
        self.count += 1
        if self.count == self.warmup:
            self.started = self._now()
        elif self.count == self.warmup + self.measured:
            self.ended = self._now()
            self.done.set()

    def _now(self) -> tuple[float, float, float]:
        return time.perf_counter(), cpu_seconds(self.server_pid), time.process_time()

    def report(self, label: str, streams: int, in_flight: int) -> dict[str, Any]:
        wall = self.ended[0] - self.started[0]
        server_cpu = self.ended[1] - self.started[1]
        return {
            "label": label,
            "streams": streams,
            "in_flight": in_flight,
            "per_s": self.measured / wall,
            "server_cpu_ms": server_cpu / self.measured * 1000,
            "server_busy": server_cpu / wall,
            "client_busy": (self.ended[2] - self.started[2]) / wall,
            "p50_ms": percentile(self.round_trips, 0.5) * 1000,
            "p99_ms": percentile(self.round_trips, 0.99) * 1000,
            "answers": self.messages / self.measured,
            "request_bytes": mean(self.request_bytes),
            "decision_bytes": mean(self.decision_bytes),
            "event_bytes": mean(self.event_bytes),
            "rejected": self.rejected,
            "finished": collections.Counter(self.finished.values()),
        }


def mean(sizes: list[int]) -> int:
    return round(sum(sizes) / max(1, len(sizes)))


SIZE_SAMPLE = 8
"""Every 8th Decision of the window is weighed (ByteSize costs the client a serialization)."""


async def bot_stream(
    port: int, name: str, capacity: int, queue: str, window: Window, sent: dict[str, float]
) -> None:
    """One bot: Hello, join ``queue``, answer every DecisionRequest at once, until cancelled. ``sent`` (shared
    by the bots) holds when each game's last Decision was written; the request that follows it measures
    the round trip (a 2210 bid asks every seat at once: the first of those requests takes it)."""
    async with channel(port) as chan:
        call = await joined(chan, name, capacity, queue, "bench")
        while True:
            raw = await read_raw(call, name)
            if window.open:
                window.messages += 1
            if is_game_events(raw):
                if window.open and window.messages % SIZE_SAMPLE == 0:
                    window.event_bytes.append(len(raw))
                continue
            message = bot_pb2.ConnectResponse.FromString(raw)
            kind = message.WhichOneof("message")
            if kind == "decision_request":
                request = message.decision_request
                game_id = request.game_id
                arrived = time.perf_counter()
                asked = sent.pop(game_id, None)
                if request.HasField("r2210"):
                    decision = bot_pb2.Decision(
                        game_id=game_id,
                        request_id=request.request_id,
                        r2210=default_2210(request.r2210.legal),
                    )
                else:
                    decision = bot_pb2.Decision(
                        game_id=game_id, request_id=request.request_id, action=first_choice(request)
                    )
                reply = bot_pb2.ConnectRequest(decision=decision)
                if window.open:
                    if asked is not None:
                        window.round_trips.append(arrived - asked)
                    if window.count % SIZE_SAMPLE == 0:
                        window.request_bytes.append(len(raw))
                        window.decision_bytes.append(reply.ByteSize())
                window.answered()
                sent[game_id] = time.perf_counter()
                await call.write(reply)
            elif kind == "game_over":
                window.finished.setdefault(message.game_over.game_id, message.game_over.reason)
            elif kind == "decision_rejected":  # counted, and the run fails at its end (bench_server)
                window.rejected.append(f"{name}: {message.decision_rejected.reason}")
            elif kind == "error":
                raise RuntimeError(f"{name}: {message}")


async def echo_stream(port: int, in_flight: int, answers: int, payload: bytes, window: Window) -> None:
    """One echo client stream keeping ``in_flight`` messages outstanding (each answered by ``answers``
    messages), until cancelled."""
    async with channel(port) as chan:
        call: grpc.aio.StreamStreamCall[bytes, bytes] = chan.stream_stream(ECHO_METHOD)()
        sent: collections.deque[float] = collections.deque()
        for _ in range(in_flight):
            sent.append(time.perf_counter())
            await call.write(payload)
        while True:
            for _ in range(answers):
                if await call.read() is grpc.aio.EOF:
                    raise EOFError("the echo server closed the stream")
            asked = sent.popleft()
            if window.open:
                window.round_trips.append(time.perf_counter() - asked)
            window.answered()
            sent.append(time.perf_counter())
            await call.write(payload)


async def until_done(window: Window, clients: list[asyncio.Task[None]], limit_s: float) -> None:
    """Wait for the window to close (or a client to fail), then stop every client."""
    waiter = asyncio.create_task(window.done.wait())
    try:
        finished, _ = await asyncio.wait(
            [waiter, *clients], timeout=limit_s, return_when=asyncio.FIRST_COMPLETED
        )
        for task in finished:
            if task is not waiter and task.exception() is not None:
                raise RuntimeError("a client stream failed") from task.exception()
        if not window.done.is_set():
            raise TimeoutError(f"only {window.count} of {window.warmup + window.measured} in {limit_s} s")
    finally:
        for task in [waiter, *clients]:
            task.cancel()
        await asyncio.gather(waiter, *clients, return_exceptions=True)
