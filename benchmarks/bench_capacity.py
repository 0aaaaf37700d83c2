"""The capacity run (``make bench-capacity``, issue 6): one server process holding 1,000 concurrent games
of bots that think 50-200 ms per decision.

The server runs as in ``benchmarks.bench_server`` (its own process on ``SERVER_CORE``, no metrics port,
JSON logs at INFO to a file, replays to a temporary directory) with one queue: a default queue, its
deadlines unchanged, its turn cap lowered so the games end within minutes,
and a limit of ``--games`` games seated in all.
``--clients`` client processes (on uvloop, like the server), all pinned to the other core, each hold a
share of the bot streams (``STREAM_GAMES`` games per stream: enough distinct bots that the matchmaker's
cap on how often two bots meet never holds a game back); all streams connect first and then join, so every
game is seated at once and they all run side by side.

Every bot sleeps a seeded random 50-200 ms before each Decision (the trivial ``first_choice`` policy),
and records, per decision, its own reply time since the request arrived and the request's allowance
(``time_allowed_ms + timebank_ms``). A deadline miss is server-caused when the bot replied within its
allowance by its own clock but the server rejected the reply as after its deadline (or struck the seat
for a timeout). The overhead the server saw is ``last_latency_ms`` (the server's own round trip of the
seat's previous decision) minus the bot's own reply time for that decision.

    python -m benchmarks.bench_capacity [--games 1000] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from benchmarks.bench_clients import channel, connect, cpu_seconds, is_game_events, memory_kib, percentile
from benchmarks.bench_server import CLIENT_CORE, SERVER_CORE, SPAWN, Running, ServerSpec, pin, serve_process
from conquest.v1 import bot_pb2
from conquest_bots.first_choice import first_choice
from server.ops import runtime
from server.ops.config import default_queues

THINK_S = (0.050, 0.200)
STREAM_GAMES = 16
LATE = "after its deadline"
"""What the server's DecisionRejected.reason says of a reply it judged late (server/play/runner.py)."""
POLL_S = 0.5


@dataclass
class Tally:
    """One client process's account of its bots' games and decisions."""

    decisions: int = 0
    over_allowance: int = 0
    """Replies sent after the request's allowance by the bot's own clock (the client's fault)."""
    late_in_time: int = 0
    """Replies sent within the allowance but rejected as late: server-caused misses."""
    late_over_time: int = 0
    strikes: int = 0
    """Timeout strikes the requests reported (the increase of DecisionRequest.strikes)."""
    forfeits: int = 0
    unknown_in_time: int = 0
    """Replies sent within the allowance that the server answered with unknown_game: the game had ended
    without applying them (a server-caused miss too)."""
    unknown_over_time: int = 0
    other_rejections: list[str] = field(default_factory=list)
    overheads_ms: list[float] = field(default_factory=list)
    started: dict[str, float] = field(default_factory=dict)
    """game id -> ``time.monotonic()`` its GameStarted arrived."""
    ended: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)
    game_overs: int = 0
    """GameOver messages received (one per seat)."""
    cpu_s: float = 0.0


class Bot:
    """One bot stream: Hello, join, then answer every request after a random think."""

    def __init__(self, port: int, name: str, queue: str, seed: int, tally: Tally) -> None:
        self.port = port
        self.name = name
        self.queue = queue
        self.rng = random.Random(seed)
        self.tally = tally
        self.outbox: asyncio.Queue[bot_pb2.ConnectRequest] = asyncio.Queue()
        self.last: dict[str, tuple[int, float, int]] = {}
        """game id -> (request id, reply time in ms by the bot's clock, allowance in ms) of the last reply."""
        self.struck: dict[str, int] = {}
        self.welcomed = asyncio.Event()

    async def run(self) -> None:
        async with channel(self.port) as chan:
            call = connect(chan)
            writer = asyncio.create_task(self._write(call))
            hello = bot_pb2.Hello(name=self.name, capacity=STREAM_GAMES, client_name="bench-capacity")
            self.outbox.put_nowait(bot_pb2.ConnectRequest(hello=hello))
            try:
                while (raw := await call.read()) is not grpc.aio.EOF:
                    assert isinstance(raw, bytes)
                    if not is_game_events(raw):
                        self._receive(bot_pb2.ConnectResponse.FromString(raw))
            finally:
                writer.cancel()

    def join(self) -> None:
        self.outbox.put_nowait(bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue=self.queue)))

    async def _write(self, call: Any) -> None:
        while True:
            await call.write(await self.outbox.get())

    def _receive(self, message: bot_pb2.ConnectResponse) -> None:
        kind = message.WhichOneof("message")
        tally = self.tally
        if kind == "decision_request":
            request = message.decision_request
            arrived = time.monotonic()
            game_id = request.game_id
            if request.strikes > self.struck.get(game_id, 0):
                tally.strikes += request.strikes - self.struck.get(game_id, 0)
                self.struck[game_id] = request.strikes
            previous = self.last.get(game_id)
            if previous is not None and request.last_latency_ms:
                tally.overheads_ms.append(request.last_latency_ms - previous[1])
            delay = self.rng.uniform(*THINK_S)
            asyncio.get_running_loop().call_later(delay, self._answer, request, arrived)
        elif kind == "decision_rejected":
            rejected = message.decision_rejected
            request_id, reply_ms, allowance_ms = self.last.get(rejected.game_id, (0, 0.0, 0))
            if LATE not in rejected.reason or request_id != rejected.request_id:
                tally.other_rejections.append(rejected.reason)
            elif reply_ms <= allowance_ms:
                tally.late_in_time += 1
            else:
                tally.late_over_time += 1
        elif kind == "welcome":
            self.welcomed.set()
        elif kind == "game_started":
            tally.started.setdefault(message.game_started.game_id, time.monotonic())
        elif kind == "game_over":
            over = message.game_over
            tally.ended[over.game_id] = time.monotonic()
            tally.game_overs += 1
            tally.reasons[over.game_id] = over.reason
            self.struck.pop(over.game_id, None)
        elif kind == "error":
            error = message.error
            if error.code == "seat_forfeited":
                tally.forfeits += 1
            elif error.code == "unknown_game" and error.game_id in self.last:
                _, reply_ms, allowance_ms = self.last.pop(error.game_id)
                if reply_ms <= allowance_ms:
                    tally.unknown_in_time += 1
                else:
                    tally.unknown_over_time += 1
            else:
                raise RuntimeError(f"{self.name}: {error.code}: {error.message}")

    def _answer(self, request: bot_pb2.DecisionRequest, arrived: float) -> None:
        reply_ms = (time.monotonic() - arrived) * 1000
        allowance_ms = request.time_allowed_ms + request.timebank_ms
        self.last[request.game_id] = (request.request_id, reply_ms, allowance_ms)
        self.tally.decisions += 1
        self.tally.over_allowance += reply_ms > allowance_ms
        decision = bot_pb2.Decision(
            game_id=request.game_id, request_id=request.request_id, action=first_choice(request)
        )
        self.outbox.put_nowait(bot_pb2.ConnectRequest(decision=decision))


def client_process(
    index: int,
    port: int,
    streams: int,
    queue: str,
    overs: Any,
    expected_overs: int,
    limit_s: float,
    connected: Any,
    results: Any,
) -> None:
    """``streams`` bots in one asyncio loop until ``expected_overs`` GameOvers were seen by all clients
    together (``overs``: a shared counter) or ``limit_s`` passed; puts its Tally on ``results``. The bots
    join the queue once every client's bots are connected (``connected``: a barrier), so that all games
    are seated at once."""
    pin(CLIENT_CORE)
    tally = Tally()
    runtime.run(_client(index, port, streams, queue, overs, expected_overs, limit_s, connected, tally))
    tally.cpu_s = time.process_time()
    results.put(tally)


async def _client(
    index: int,
    port: int,
    streams: int,
    queue: str,
    overs: Any,
    expected_overs: int,
    limit_s: float,
    connected: Any,
    tally: Tally,
) -> None:
    bots = [Bot(port, f"cap-{index}-{i}", queue, index * 1000 + i, tally) for i in range(streams)]
    tasks = [asyncio.create_task(bot.run()) for bot in bots]
    counted = 0
    give_up = time.monotonic() + limit_s
    try:
        await asyncio.wait_for(asyncio.gather(*(bot.welcomed.wait() for bot in bots)), 60)
        await asyncio.to_thread(connected.wait, 60)
        for bot in bots:
            bot.join()
        while time.monotonic() < give_up:
            await asyncio.sleep(POLL_S)
            failed = [t for t in tasks if t.done()]
            if failed:
                raise RuntimeError(f"client {index}: a bot stream ended") from failed[0].exception()
            seen = tally.game_overs
            with overs.get_lock():
                overs.value += seen - counted
                everyone = overs.value
            counted = seen
            if everyone >= expected_overs:
                break
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def concurrency(tallies: list[Tally]) -> tuple[int, float]:
    """The most games under way at once (from the first GameStarted to the last GameOver of each game),
    and the seconds from the first game's start to the last game's."""
    spans: dict[str, list[float]] = {}
    for tally in tallies:
        for game_id, at in tally.started.items():
            span = spans.setdefault(game_id, [at, at])
            span[0] = min(span[0], at)
        for game_id, at in tally.ended.items():
            span = spans.setdefault(game_id, [at, at])
            span[1] = max(span[1], at)
    moments = sorted([(s, 1) for s, _ in spans.values()] + [(e, -1) for _, e in spans.values()])
    running = peak = 0
    for _, step in moments:
        running += step
        peak = max(peak, running)
    starts = [start for start, _ in spans.values()]
    return peak, max(starts) - min(starts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_capacity", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--games", type=int, default=1000, help="games in all, seated at once (default 1000)")
    parser.add_argument("--queue", default="classic-2", help="the default queue to play (default classic-2)")
    parser.add_argument("--turn-cap", type=int, default=10, help="its lowered turn cap (default 10)")
    parser.add_argument("--clients", type=int, default=4, help="client processes (default 4)")
    parser.add_argument(
        "--limit", type=float, default=900, help="give up after this many seconds (default 900)"
    )
    parser.add_argument("--quick", action="store_true", help="100 games")
    args = parser.parse_args(argv)
    games = 100 if args.quick else args.games
    players = next(q.players for q in default_queues() if q.name == args.queue)
    streams = math.ceil(games * players / STREAM_GAMES / args.clients) * args.clients
    print(
        f"capacity run: CPython {sys.version.split()[0]}, {os.cpu_count()} cores, server on core "
        f"{SERVER_CORE}, "
        f"{args.clients} client processes on core {CLIENT_CORE}; {games} games of {args.queue} (turn cap "
        f"{args.turn_cap}), {streams} bot streams of {STREAM_GAMES} games; think {THINK_S[0] * 1000:.0f}-"
        f"{THINK_S[1] * 1000:.0f} ms; load average {os.getloadavg()[0]:.2f} at start",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="conquest-capacity-") as tmp:
        log_path = Path(tmp) / "server.log"
        server = Running(
            serve_process, ServerSpec(args.queue, args.turn_cap, games=games), str(log_path), tmp
        )
        try:
            idle_kib = memory_kib(server.pid, "VmRSS")
            cpu_before = cpu_seconds(server.pid)
            began = time.monotonic()
            overs = SPAWN.Value("i", 0)
            results = SPAWN.Queue()
            connected = SPAWN.Barrier(args.clients)
            clients = [
                SPAWN.Process(
                    target=client_process,
                    args=(
                        i,
                        server.port,
                        streams // args.clients,
                        args.queue,
                        overs,
                        games * players,
                        args.limit,
                        connected,
                        results,
                    ),
                )
                for i in range(args.clients)
            ]
            for client in clients:
                client.start()
            tallies: list[Tally] = [results.get(timeout=args.limit + 120) for _ in clients]
            wall = time.monotonic() - began
            server_cpu = cpu_seconds(server.pid) - cpu_before
            peak_kib = memory_kib(server.pid, "VmHWM")
            for client in clients:
                client.join()
        finally:
            server.stop()
        log_lines = len(log_path.read_text().splitlines())
    report(games, players, tallies, wall, server_cpu, idle_kib, peak_kib, log_lines)
    return 0


def report(
    games: int,
    players: int,
    tallies: list[Tally],
    wall: float,
    server_cpu: float,
    idle_kib: int,
    peak_kib: int,
    log_lines: int,
) -> None:
    ended = {g: r for t in tallies for g, r in t.reasons.items()}
    decisions = sum(t.decisions for t in tallies)
    overheads = [o for t in tallies for o in t.overheads_ms]
    misses = sum(t.late_in_time + t.unknown_in_time for t in tallies)
    other = [r for t in tallies for r in t.other_rejections]
    reasons: dict[str, int] = {}
    for reason in ended.values():
        reasons[reason] = reasons.get(reason, 0) + 1
    how = ", ".join(f"{n} {r}" for r, n in sorted(reasons.items()))
    print(f"completed games: {len(ended)} of {games} ({how})")
    peak, seating_s = concurrency(tallies)
    print(f"peak concurrent games: {peak} (all games seated within {seating_s:.1f} s)")
    print(
        f"decisions: {decisions} in {wall:.1f} s = {decisions / wall:.0f}/s "
        f"({decisions / max(1, len(ended)):.0f} per game)"
    )
    client_cpu = sum(t.cpu_s for t in tallies)
    print(
        f"server CPU: {server_cpu:.1f} s = {server_cpu / wall:.0%} of one core, "
        f"{server_cpu / max(1, decisions) * 1000:.3f} ms per decision; client CPU: "
        f"{client_cpu:.1f} s in all ({client_cpu / wall:.0%} of one core)"
    )
    print(
        f"server memory: {idle_kib / 1024:.0f} MiB idle, peak RSS (VmHWM) {peak_kib / 1024:.0f} MiB: "
        f"{(peak_kib - idle_kib) / games:.0f} KiB per game"
    )
    if overheads:
        print(
            "server-seen overhead per decision (last_latency_ms - the bot's own reply time): "
            f"p50 {percentile(overheads, 0.5):.0f} ms, p99 {percentile(overheads, 0.99):.0f} ms, "
            f"max {max(overheads):.0f} ms"
        )
    print(
        f"deadline misses caused by the server: {misses} (bar: 0); replies after their allowance by the "
        f"bots' clocks: {sum(t.over_allowance for t in tallies)}, of them rejected as late: "
        f"{sum(t.late_over_time for t in tallies)}; timeout strikes: {sum(t.strikes for t in tallies)}; "
        f"forfeits: {sum(t.forfeits for t in tallies)}; replies to games already over (unknown_game): "
        f"{sum(t.unknown_in_time for t in tallies)} in time, "
        f"{sum(t.unknown_over_time for t in tallies)} late; "
        f"other rejections: {len(other)}" + (f" (first: {other[0]})" if other else "")
    )
    print(f"server log: {log_lines} lines; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    sys.exit(main())
