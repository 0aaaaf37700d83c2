"""The server's CPU per decision as a count of instructions (``make bench-server-instructions``): the game
server and the raw grpc.aio echo of ``make bench-server``, each run under callgrind while the same bench
clients drive it, counted over a fixed number of decisions (messages) after a warm-up.

``make bench-server`` measures time, and on a shared host the speed drifts by a fifth within minutes, so a
change of a few percent cannot be seen there. An instruction count does not drift: two runs of the echo
agree within half a percent. It counts the server process's own instructions (every thread, kernel time
left out) and shows where they go (``callgrind_annotate`` on the files it keeps). Use it to compare two
versions of the server; the throughput bar itself is ``make bench-server``'s.

Needs valgrind (``apt-get install valgrind``). Under callgrind the server runs ~50 times slower, so the
clients are few (``--streams``) and the deadlines of the bench queue are never near.

    python -m benchmarks.bench_instructions [--decisions N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import bench_server
from benchmarks.bench_clients import Window, bot_stream, echo_stream, until_done
from server.ops import runtime

CALLGRIND_LIMIT_S = 1800.0
"""A run under callgrind that has not counted its messages in this long fails (something is stuck)."""


class Port:
    """Where a served process reports its port: on stdout, for the parent reading its pipe."""

    def send(self, port: int) -> None:
        print(port, flush=True)


def serve(kind: str, queue: str, turn_cap: int, reply_bytes: int, replay_dir: str) -> None:
    """Run the game server (``kind`` "game") or the echo (``kind`` "echo") until SIGTERM."""
    if kind == "game":
        spec = bench_server.ServerSpec(queue, turn_cap, pair_cap=0)
        runtime.run(bench_server._serve(spec, Path(replay_dir), Port()))
    else:
        runtime.run(bench_server._echo([bytes(reply_bytes)], Port()))


class CountedWindow(Window):
    """A Window that turns callgrind's counting on for the measured messages only."""

    def answered(self) -> None:
        super().answered()
        if self.count == self.warmup:
            callgrind_control(self.server_pid, "on")
        elif self.count == self.warmup + self.measured:
            callgrind_control(self.server_pid, "off")


def callgrind_control(pid: int, instrumentation: str) -> None:
    subprocess.run(["callgrind_control", "-i", instrumentation, str(pid)], check=True, capture_output=True)


def counted_run(kind: str, args: argparse.Namespace, sizes: tuple[int, int], out: Path) -> dict[str, Any]:
    """One server under callgrind driven by ``args.streams`` bench clients (the echo's: ``sizes``, its
    answers' and its messages' bytes); returns the Window's report with ``instructions`` (counted over
    the measured messages) added."""
    reply_bytes, message_bytes = sizes
    replay_dir = tempfile.mkdtemp(prefix="conquest-bench-")
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={out}",
        sys.executable,
        "-m",
        "benchmarks.bench_instructions",
        "--serve",
        kind,
        "--queue",
        args.queue,
        "--turn-cap",
        str(args.turn_cap),
        "--reply-bytes",
        str(reply_bytes),
        "--replays",
        replay_dir,
    ]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        window = CountedWindow(args.warmup, args.decisions, server.pid)

        async def run() -> None:
            if kind == "game":
                sent: dict[str, float] = {}
                clients = [
                    asyncio.create_task(bot_stream(port, f"bench-{i}", 4, args.queue, window, sent))
                    for i in range(args.streams)
                ]
            else:
                payload = bytes(message_bytes)
                clients = [
                    asyncio.create_task(echo_stream(port, 1, 1, payload, window)) for _ in range(args.streams)
                ]
            await until_done(window, clients, CALLGRIND_LIMIT_S)

        runtime.run(run())
    finally:
        server.terminate()  # SIGTERM: a clean stop, and callgrind writes its counts
        server.wait(120)
        shutil.rmtree(replay_dir, ignore_errors=True)
    report = window.report(kind, args.streams, args.streams)
    report["instructions"] = callgrind_total(out)
    return report


def callgrind_total(path: Path) -> int:
    """The instructions a callgrind output file counted (its ``totals:`` line)."""
    for line in path.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise ValueError(f"{path} has no totals: line; is it a callgrind output file?")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=5000, help="decisions (messages) counted")
    parser.add_argument("--warmup", type=int, default=3000, help="decisions before counting starts")
    parser.add_argument("--streams", type=int, default=16, help="bot streams of 4 games each (default 16)")
    parser.add_argument(
        "--queue", default="classic-4", help="default queue the bots fill (default classic-4)"
    )
    parser.add_argument("--turn-cap", type=int, default=20, help="turn cap of the bench queue (default 20)")
    parser.add_argument("--keep", metavar="DIR", help="keep callgrind's output files here")
    parser.add_argument("--serve", choices=["game", "echo"], help=argparse.SUPPRESS)
    parser.add_argument("--reply-bytes", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--replays", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve, args.queue, args.turn_cap, args.reply_bytes, args.replays)
        return 0
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            print(f"{tool} not found: install valgrind (Debian: apt-get install valgrind)", file=sys.stderr)
            return 2
    keep = Path(args.keep or tempfile.mkdtemp(prefix="conquest-callgrind-"))
    keep.mkdir(parents=True, exist_ok=True)
    game = counted_run("game", args, (0, 0), keep / f"{args.queue}.callgrind")
    sizes = (game["request_bytes"], game["decision_bytes"])
    echo = counted_run("echo", args, sizes, keep / "echo.callgrind")
    per_decision = game["instructions"] / args.decisions
    per_message = echo["instructions"] / args.decisions
    print(f"server {args.queue}: {per_decision:,.0f} instructions per decision ({args.streams} streams)")
    print(
        f"raw echo: {per_message:,.0f} instructions per message ({game['request_bytes']} B answers to "
        f"{game['decision_bytes']} B messages)"
    )
    print(f"ratio: {per_decision / per_message:.2f}x; callgrind files in {keep}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
