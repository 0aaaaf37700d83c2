"""The server speed benchmark (``make bench-server``, issue 3): the server against a raw gRPC echo stream.

The game server runs in its own process pinned to one core (``SERVER_CORE``), with no metrics port, JSON
logs at INFO to a file (one line per game and per session, none per decision) and replays written to a
temporary directory, exactly as ``conquest serve`` without a database. This process is the client: pinned
to the other core, one event loop holding many bot streams (one Connect stream and one TCP connection
each) that answer on the protobuf messages with a trivial policy (``conquest_bots.first_choice``; for
2210 the SDK's ``default_2210``), no engine on the path (``benchmarks.bench_clients``).
Every process here runs as the server does (``server.ops.runtime``: uvloop, a tuned collector), the echo and
the client too: the same runtime on both sides of the comparison, and a client cheap enough that the
echo's figure is the server's as far as one client core allows.

Runs, each a fixed number of decisions (messages) after a fixed warm-up:

1. games, per queue of ``--queues`` (classic-4, 2210-4 and classic-2 by default): ``--streams`` bots with
   ``--capacity`` games each fill a default queue whose turn cap is lowered (``--turn-cap``; a RISK 2210
   A.D. queue keeps its five years) so games end and new ones are seated; every seat is a bot.
   The matchmaker's cap on repeated pairings is off: pairing is not under test, and it would hold games
   back between so few bots. Each run prints how many games ended and fails if the server rejected any
   decision, or (not ``--quick``) if no game ended.
2. echo, after each games run: a grpc.aio bidi stream on raw bytes, in its own process on the same core,
   answering every message with a pre-built payload of that run's mean DecisionRequest size; the same
   number of streams, each with as many messages in flight as the run had games per stream, each message
   of the run's mean Decision size. Runs 1 and 2 alternate ``--rounds`` times (the host's speed drifts
   over minutes; alternating lets the drift favour neither), and the bar compares the mean decisions/s
   with the echo's mean messages/s. A second echo answers the way the
   game does: as many messages per message as the bots read per decision (GameEvents to every seat, then
   the DecisionRequest), at the run's mean sizes, which shows what the protocol's shape alone costs.
3. one bot: the practice queue of the two-player neutral game (one bot against the in-process house
   ``aggressive`` opponent, as ``conquest practice`` plays it), one stream, one game at a time; then the
   echo with one stream and one message in flight, at that run's sizes.

Round trip = from writing a Decision to reading the next DecisionRequest of that game (echo: from writing a
message to reading its answer), on the client's clock. Server CPU = the server process's utime + stime
from ``/proc/<pid>/stat`` over the measured window.

    python -m benchmarks.bench_server [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import dataclasses
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import statistics
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import grpc

from benchmarks.bench_clients import ECHO_METHOD, Window, bot_stream, echo_stream, until_done
from server.app import build_server, start_recorder
from server.ops import runtime
from server.ops.config import QueueConfig, ServerConfig, default_queues
from server.ops.logs import configure_logging
from server.play.lobby import Lobby
from server.play.pairing import LADDER
from server.play.recorder import Recorder

SERVER_CORE = 0
CLIENT_CORE = 1
SPAWN = multiprocessing.get_context("spawn")
"""Child processes start fresh: gRPC does not survive a fork."""


# ---------------------------------------------------------------------------------------- processes


def pin(core: int) -> None:
    """Run this process (and the threads it starts from now on) on ``core`` only."""
    if core < (os.cpu_count() or 1):
        os.sched_setaffinity(0, {core})


def bench_queue(name: str, turn_cap: int, house_opponents: tuple[str, ...] = ()) -> QueueConfig:
    """The default queue ``name`` (its rules and deadlines) with ``turn_cap`` and house opponents."""
    queue = next(q for q in default_queues() if q.name == name)
    rules = dataclasses.replace(queue.rules, turn_cap=turn_cap)  # the queue's rule options kept
    return dataclasses.replace(queue, rules=rules, house_opponents=house_opponents)


@dataclasses.dataclass(frozen=True)
class ServerSpec:
    queue: str
    turn_cap: int
    house_opponents: tuple[str, ...] = ()
    games: int | None = None
    """Seat at most this many games (None: no limit)."""
    pair_cap: int = LADDER.pair_cap
    """The matchmaker's cap on how often two bots meet (0: none, so a throughput run never waits on it)."""
    profile: str = ""
    """Write the server's cProfile statistics to this file when it stops ("": no profiling)."""


def serve_process(spec: ServerSpec, log_path: str, replay_dir: str, ready: Any) -> None:
    """The game server's process: pinned, JSON logs to ``log_path``, replays to ``replay_dir``; sends its
    port through ``ready`` and serves until SIGTERM, then ends the games in progress."""
    pin(SERVER_CORE)
    with open(log_path, "a") as log_file:
        sys.stderr = log_file
        configure_logging("json", logging.INFO)
        if not spec.profile:
            runtime.run(_serve(spec, Path(replay_dir), ready))
            return
        profiler = cProfile.Profile()
        profiler.runcall(runtime.run, _serve(spec, Path(replay_dir), ready))
        profiler.dump_stats(spec.profile)


async def _serve(spec: ServerSpec, replay_dir: Path, ready: Any) -> None:
    queue = bench_queue(spec.queue, spec.turn_cap, spec.house_opponents)
    config = ServerConfig(
        address="127.0.0.1:0",
        replay_dir=replay_dir,
        metrics_port=0,
        database_url="",
        queues=(queue,),
    )
    policy = dataclasses.replace(LADDER, pair_cap=spec.pair_cap)
    recorder = Recorder(replay_dir)
    lobby = Lobby(config, recorder, policy=policy)  # build_lobby without a store, with its policy
    lobby.on_game_start = recorder.started
    lobby.games_left = spec.games
    server, port, health_servicer, _ = build_server(config, config.address, lobby, None)
    recording = await start_recorder(lobby, health_servicer)  # running games' records, as `serve` keeps
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await server.start()
    ready.send(port)
    await stop.wait()
    await lobby.shutdown(0)
    if recording is not None:
        recording.cancel()
    await server.stop(grace=1.0)


def echo_process(reply_sizes: list[int], ready: Any) -> None:
    """The baseline's process: a grpc.aio bidi stream on raw bytes answering each message at once with
    pre-built payloads of ``reply_sizes`` bytes."""
    pin(SERVER_CORE)
    runtime.run(_echo([bytes(size) for size in reply_sizes], ready))


async def _echo(replies: list[bytes], ready: Any) -> None:
    async def stream(requests: AsyncIterator[bytes], context: Any) -> AsyncIterator[bytes]:
        async for _ in requests:
            for reply in replies:
                yield reply

    service, method = ECHO_METHOD.strip("/").split("/")
    server = grpc.aio.server()
    handler = grpc.method_handlers_generic_handler(
        service, {method: grpc.stream_stream_rpc_method_handler(stream)}
    )
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await server.start()
    ready.send(port)
    await stop.wait()
    await server.stop(grace=None)


class Running:
    """A child process started with ``target(*args, ready)`` that reports its port on ``ready``."""

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        receiving, sending = SPAWN.Pipe(duplex=False)
        self.process: BaseProcess = SPAWN.Process(target=target, args=(*args, sending), daemon=True)
        self.process.start()
        if not receiving.poll(60):
            raise RuntimeError(f"{target.__name__} did not start within 60 s")
        self.port: int = receiving.recv()
        assert self.process.pid is not None
        self.pid: int = self.process.pid

    def stop(self) -> None:
        self.process.terminate()  # SIGTERM: a clean shutdown
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()


# ---------------------------------------------------------------------------------------- the runs


LIMIT_S = 600.0
"""A run that has not finished its decisions in this long fails (something is stuck)."""


def game_run(
    spec: ServerSpec, streams: int, capacity: int, warmup: int, measured: int, workdir: Path
) -> dict[str, Any]:
    """``streams`` bots with ``capacity`` games each in ``spec``'s queue against a fresh server."""
    players = next(q.players for q in default_queues() if q.name == spec.queue) - len(spec.house_opponents)
    log_path = workdir / f"{spec.queue}-{streams}.log"
    server = Running(serve_process, spec, str(log_path), str(workdir))
    try:
        window = Window(warmup, measured, server.pid)

        async def run() -> None:
            sent: dict[str, float] = {}
            clients = [
                asyncio.create_task(bot_stream(server.port, f"bench-{i}", capacity, spec.queue, window, sent))
                for i in range(streams)
            ]
            await until_done(window, clients, LIMIT_S)

        runtime.run(run())
    finally:
        server.stop()
    house = f" vs {len(spec.house_opponents)} house" if spec.house_opponents else ""
    return window.report(f"server {spec.queue}{house}", streams, streams * capacity // players)


def check_games(report: dict[str, Any], require_end: bool) -> None:
    """Print how many games of a game run ended (by GameOver reason) and how many decisions the server
    rejected; fail if any was rejected (the bots answer only legal actions) or, with ``require_end``,
    if no game ended (a ``--quick`` run is shorter than a classic-4 game of 64 bots)."""
    finished = report["finished"]
    rejected = report["rejected"]
    reasons = ", ".join(f"{reason} {n}" for reason, n in sorted(finished.items()))
    print(
        f"{report['label']}: {finished.total()} games ended ({reasons or 'none'}), "
        f"{len(rejected)} decisions rejected",
        flush=True,
    )
    if rejected:
        raise SystemExit(
            f"{report['label']}: {len(rejected)} decisions rejected, e.g.\n" + "\n".join(rejected[:10])
        )
    if require_end and not finished:
        raise SystemExit(f"{report['label']}: no game ended in the run")


def echo_run(
    label: str, streams: int, in_flight: int, game: dict[str, Any], answers: int, warmup: int, measured: int
) -> dict[str, Any]:
    """The raw echo baseline with the message sizes of ``game`` (a game run's report): each message is
    answered by ``answers`` messages, the last of the DecisionRequest's size, the others of the GameEvents'.
    """
    reply_sizes = [game["event_bytes"]] * (answers - 1) + [game["request_bytes"]]
    server = Running(echo_process, reply_sizes)
    try:
        window = Window(warmup, measured, server.pid)
        payload = bytes(game["decision_bytes"])

        async def run() -> None:
            clients = [
                asyncio.create_task(echo_stream(server.port, in_flight, answers, payload, window))
                for _ in range(streams)
            ]
            await until_done(window, clients, LIMIT_S)

        runtime.run(run())
    finally:
        server.stop()
    report = window.report(label, streams, streams * in_flight)
    report.update(
        answers=answers,
        request_bytes=game["request_bytes"],
        decision_bytes=game["decision_bytes"],
        event_bytes=game["event_bytes"] if answers > 1 else 0,
    )
    return report


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'run':<32} {'streams':>7} {'in flight':>9} {'per s':>6} {'srv CPU':>8} {'srv busy':>8} "
        f"{'cli busy':>8} {'p50 ms':>7} {'p99 ms':>7} {'answers':>7} {'req B':>5} {'evt B':>5} {'dec B':>5}"
    )
    lines = [head]
    for r in rows:
        lines.append(
            f"{r['label']:<32} {r['streams']:>7} {r['in_flight']:>9} {r['per_s']:>6.0f} "
            f"{r['server_cpu_ms']:>6.3f}ms {r['server_busy']:>8.0%} {r['client_busy']:>8.0%} "
            f"{r['p50_ms']:>7.3f} {r['p99_ms']:>7.3f} {r['answers']:>7.2f} {r['request_bytes']:>5} "
            f"{r['event_bytes']:>5} {r['decision_bytes']:>5}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_server", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a short run (a tenth of the decisions)")
    parser.add_argument(
        "--queues",
        nargs="+",
        default=["classic-4", "2210-4", "classic-2"],
        help="default queues to fill in run 1 (default: classic-4 2210-4 classic-2)",
    )
    parser.add_argument(
        "--rounds", type=int, default=2, help="alternated game and echo runs per queue, averaged (default 2)"
    )
    parser.add_argument("--streams", type=int, default=64, help="bot streams in run 1 (default 64)")
    parser.add_argument("--capacity", type=int, default=4, help="games per stream in run 1 (default 4)")
    parser.add_argument("--turn-cap", type=int, default=20, help="turn cap of the bench queues (default 20)")
    parser.add_argument(
        "--profile",
        metavar="DIR",
        default="",
        help="profile the game server with cProfile into DIR/<queue>.prof (slows it; figures not comparable)",
    )
    args = parser.parse_args(argv)
    pin(CLIENT_CORE)
    scale = 10 if args.quick else 1
    warmup, measured = 20_000 // scale, 100_000 // scale
    solo_warmup, solo_measured = 1_000 // scale, 10_000 // scale
    print(
        f"server bench: CPython {sys.version.split()[0]}, {os.cpu_count()} cores, server on core "
        f"{SERVER_CORE}, clients on core {CLIENT_CORE}; load average {os.getloadavg()[0]:.2f} at start",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    ratios: list[str] = []
    with tempfile.TemporaryDirectory(prefix="conquest-bench-") as tmp:
        workdir = Path(tmp)
        for queue in args.queues:
            players = next(q.players for q in default_queues() if q.name == queue)
            profile = str(Path(args.profile) / f"{queue}.prof") if args.profile else ""
            spec = ServerSpec(queue, args.turn_cap, pair_cap=0, profile=profile)
            in_flight = max(1, args.capacity // players)
            game_rows: list[dict[str, Any]] = []
            echo_rows: list[dict[str, Any]] = []
            for _ in range(args.rounds):  # alternated, so a host that speeds up or slows down favours neither
                game_rows.append(game_run(spec, args.streams, args.capacity, warmup, measured, workdir))
                check_games(game_rows[-1], require_end=not args.quick)
                echo_rows.append(
                    echo_run("raw echo", args.streams, in_flight, game_rows[-1], 1, warmup, measured)
                )
                rows += [game_rows[-1], echo_rows[-1]]
                print(table(rows[-2:]), flush=True)
            games_per_s = statistics.fmean(r["per_s"] for r in game_rows)
            echo_per_s = statistics.fmean(r["per_s"] for r in echo_rows)
            answers = round(game_rows[-1]["answers"])
            shaped = ""
            if answers > 1:
                echo = echo_run(
                    f"raw echo, {answers} answers",
                    args.streams,
                    in_flight,
                    game_rows[-1],
                    answers,
                    warmup,
                    measured,
                )
                rows.append(echo)
                print(table(rows[-1:]), flush=True)
                shaped = f"; {game_rows[-1]['per_s'] / echo['per_s']:.0%} of the echo answering like a game"
            each = ", ".join(
                f"{g['per_s'] / e['per_s']:.0%}" for g, e in zip(game_rows, echo_rows, strict=True)
            )
            bar = "no bar for 2210" if queue.startswith("2210-") else "bar: >= 50%"  # issue 3's is classic's
            ratios.append(
                f"{queue}: {games_per_s:.0f} decisions/s = {games_per_s / echo_per_s:.0%} of the raw echo "
                f"stream's {echo_per_s:.0f} messages/s ({bar}; means of {args.rounds} alternated "
                f"runs of each, by round: {each}){shaped}"
            )
        spec = ServerSpec("classic-2", args.turn_cap, house_opponents=("aggressive",))
        solo = game_run(spec, 1, 1, solo_warmup, solo_measured, workdir)
        check_games(solo, require_end=not args.quick)
        echo_solo = echo_run("raw echo, one stream", 1, 1, solo, 1, solo_warmup, solo_measured)
        rows += [solo, echo_solo]
    print(table(rows))
    print("throughput, " + "\nthroughput, ".join(ratios))
    print(
        f"one bot: p50 round trip {solo['p50_ms']:.3f} ms vs echo {echo_solo['p50_ms']:.3f} ms: "
        f"{solo['p50_ms'] - echo_solo['p50_ms']:.3f} ms added per decision (bar: <= 0.3 ms)"
    )
    print(f"load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
