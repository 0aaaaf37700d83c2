"""The chaos harness (issue 21), shared by the short profile (tests/chaos, run by ``make test``) and the
full run (benchmarks/chaos.py, ``make chaos``): a real ``conquest serve`` on 127.0.0.1, honest bots that
answer at once and count the deadlines they missed, floods run from a separate process
(``chaos_flood``), and a ``Verdict`` per attack or fault that says what was tried and what got through.

Issue 21: "`make chaos` starts real servers and plays hostile, hanging, crashing, flooding and
impersonating bots beside honest ones, kills the server with `kill -9` mid-ladder, sends SIGTERM, and locks
and removes the database; each item above is a regression test in it."
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import subprocess
import sys
import time
import urllib.request
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from raw_client import RawBot
from serve_process import Serve, free_port

from conquest.v1 import arena_pb2, arena_pb2_grpc

T = TypeVar("T")
CLOSE_S = 15.0
"""Longest the harness waits for its own clients to close."""
SUPPORT = Path(__file__).resolve().parent
ADMIN = "chaos-admin-secret"
DEADLINE_MS = 250
"""Issue 21's bar: "honest bots miss no deadline of 250 ms under any single-session flood or any flood of
web and Arena requests"; the honest queue gives every decision exactly this and no timebank."""

PAIRS = 2
"""Queues of honest duels (and of ladder games): one pair of bots each, so that no pair cap
(server.play.pairing) ever makes them wait."""
CONFIG = """
[server]
address = "localhost:0"
log_format = "json"
metrics_port = {metrics_port}
replay_dir = "{replays}"
database_url = "sqlite:///{database}"
admin_token = "{admin}"
shutdown_grace_ms = {grace_ms}
"""
HONEST = """
[queues.{name}]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = 6 }}
time_control = {{ decision_ms = {deadline}, first_decision_ms = {deadline}, initial_timebank_ms = 0, \
increment_ms = 0, max_timebank_ms = 0, defend_decision_ms = {deadline}, max_strikes = 1000 }}
"""
LADDER = """
[queues.{name}]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = {turn_cap} }}
time_control = {{ decision_ms = 20000, reconnect_grace_ms = 2000 }}
"""
HONEST_QUEUES = tuple(f"honest-{i}" for i in range(1, PAIRS + 1))
LADDER_QUEUES = tuple(f"ladder-{i}" for i in range(1, PAIRS + 1))
"""``honest-N``: the 250 ms duels whose missed deadlines are counted; ``ladder`` and ``ladder-N``: games with
time to spare (hostile bots' games, the ladder a fault interrupts) whose seats are forfeited 2 s after a
disconnect; ``marathon``: a game long enough to be watched for the length of a flood."""


def config(metrics_port: int, replays: Path, database: Path, grace_ms: int) -> str:
    text = CONFIG.format(
        metrics_port=metrics_port, replays=replays, database=database, admin=ADMIN, grace_ms=grace_ms
    )
    text += "".join(HONEST.format(name=name, deadline=DEADLINE_MS) for name in HONEST_QUEUES)
    text += "".join(LADDER.format(name=name, turn_cap=6) for name in ("ladder", *LADDER_QUEUES))
    return text + LADDER.format(name="marathon", turn_cap=2000)


@dataclasses.dataclass
class Verdict:
    """What one attack or fault tried and what got through (each said in words)."""

    item: str
    title: str
    tried: int = 0
    """Bad inputs, hostile requests or faults tried."""
    through: list[str] = dataclasses.field(default_factory=list)
    """The attacks that got through: a broken promise of issue 21 each."""
    figures: dict[str, float] = dataclasses.field(default_factory=dict)
    """Measurements for the table: missed deadlines, RSS, games lost, seconds to recover..."""

    def check(self, held: bool, what: str) -> bool:
        """Count one try; ``what`` (the promise, in words) got through unless ``held``."""
        self.tried += 1
        if not held:
            self.through.append(what)
        return held


class ChaosServer:
    """``conquest serve`` with the honest and ladder queues, a SQLite database, metrics and the dashboard,
    in ``directory`` (its database, replays and log, unless ``database`` and ``replays`` say where); started
    by ``start()``, through ``prefix`` (``Serve``'s) if given."""

    def __init__(
        self,
        directory: Path,
        grace_ms: int = 0,
        database: Path | None = None,
        replays: Path | None = None,
        prefix: tuple[str, ...] = (),
    ) -> None:
        self.directory = directory
        self.database = database or directory / "conquest.sqlite3"
        self.replays = replays or directory / "replays"
        self.grace_ms = grace_ms
        self.prefix = prefix
        self.metrics_port = 0
        self.dashboard_port = 0
        self.port = 0
        self.serve: Serve | None = None

    def start(self) -> ChaosServer:
        """Start (again, on the same database and replays after a kill) and wait until it listens."""
        self.metrics_port, self.dashboard_port = free_port(), free_port()
        toml = config(self.metrics_port, self.replays, self.database, self.grace_ms)
        run = self.directory / f"run-{time.monotonic_ns()}"
        run.mkdir(parents=True)
        self.serve = Serve(
            run, toml, env={"CONQUEST_SERVER_DASHBOARD_PORT": str(self.dashboard_port)}, prefix=self.prefix
        )
        self.port = int(self.serve.wait_serving()["port"])
        return self

    @property
    def process(self) -> subprocess.Popen[bytes]:
        assert self.serve is not None, "start() first"
        return self.serve.process

    @property
    def address(self) -> str:
        return f"localhost:{self.port}"

    def log_bytes(self) -> int:
        assert self.serve is not None
        return self.serve.log_path.stat().st_size

    def records(self) -> list[dict[str, Any]]:
        assert self.serve is not None
        return self.serve.records()

    def rss_mib(self) -> tuple[float, float]:
        """(RSS now, peak RSS so far) of the server process, in MiB (/proc: VmRSS, VmHWM)."""
        fields = {}
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            fields[key] = value
        return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024

    def idle_rss_mib(self) -> float:
        """RSS now, in MiB, with the peak reset to it (/proc/PID/clear_refs): ``rss_mib()``'s peak is then
        the peak since this call."""
        Path(f"/proc/{self.process.pid}/clear_refs").write_text("5")
        return self.rss_mib()[0]

    def metric(self, name: str, default: float | None = None) -> float:
        """The value of ``name`` (with its labels, e.g. ``x{reason="unread"}``) on /metrics; ``default`` for a
        labelled series not yet counted (Prometheus shows a label's series from its first count)."""
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10).read()
        values = [
            float(line.split()[1]) for line in text.decode().splitlines() if line.startswith(name + " ")
        ]
        if not values and default is not None:
            return default
        assert values, f"no metric {name} in /metrics"
        return values[0]

    def http(self, path: str, timeout: float = 30) -> tuple[int, dict[str, str], bytes]:
        """GET ``path`` from the dashboard: status, headers (lower-case names) and body."""
        url = f"http://127.0.0.1:{self.dashboard_port}{path}"
        try:
            with urllib.request.urlopen(url, timeout=timeout) as answer:
                return answer.status, {k.lower(): v for k, v in answer.headers.items()}, answer.read()
        except urllib.error.HTTPError as refused:
            return refused.code, {k.lower(): v for k, v in refused.headers.items()}, refused.read()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no recording."""
        self.process.kill()
        self.process.wait(timeout=30)

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM (drain) and the exit status; a server already gone gives its status."""
        assert self.serve is not None
        if self.process.poll() is not None:
            return self.process.returncode
        return self.serve.stop(timeout)


def arena(channel: grpc.aio.Channel) -> arena_pb2_grpc.ArenaServiceStub:
    return arena_pb2_grpc.ArenaServiceStub(channel)


def admin() -> tuple[tuple[str, str]]:
    """Request metadata carrying the chaos server's admin token."""
    return (("authorization", f"Bearer {ADMIN}"),)


async def health_status(address: str) -> int:
    """The overall gRPC health status (health_pb2.HealthCheckResponse.SERVING, NOT_SERVING...)."""
    async with grpc.aio.insecure_channel(address) as channel:
        check = health_pb2.HealthCheckRequest(service="")
        return int((await health_pb2_grpc.HealthStub(channel).Check(check, timeout=10)).status)


async def until(condition: Any, timeout: float, step: float = 0.05) -> float:
    """Wait until the async ``condition()`` holds; the seconds it took (raises TimeoutError past
    ``timeout``, a bound for a loaded machine)."""
    start = time.monotonic()
    async with asyncio.timeout(timeout):
        while not await condition():
            await asyncio.sleep(step)
    return time.monotonic() - start


async def bounded(work: Awaitable[T], seconds: float) -> T:
    """``work`` done within ``seconds``; past them, the stack of every task is printed to stderr (what
    hangs) and TimeoutError raised: a hung attack fails its test instead of stopping the suite."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait([task], timeout=seconds)
    if not done:
        for other in asyncio.all_tasks():
            with contextlib.suppress(TypeError):  # linecache fails on some frames of compiled modules
                other.print_stack(limit=12, file=sys.stderr)
        task.cancel()
        raise TimeoutError(f"not done within {seconds:.0f} s (every task's stack is on stderr)")
    return task.result()


def held_within(seconds: float) -> Callable[[Awaitable[Verdict]], Awaitable[Verdict]]:
    """A short profile's check of one attack: it tried something and nothing got through, within
    ``seconds`` (a bound for a loaded machine)."""

    async def held(attack: Awaitable[Verdict]) -> Verdict:
        verdict = await bounded(attack, seconds)
        assert verdict.tried > 0
        assert verdict.through == [], f"item {verdict.item} ({verdict.title}): {verdict.through}"
        return verdict

    return held


@dataclasses.dataclass
class Honest:
    """Honest bots, one pair per queue of ``queues``, answering every DecisionRequest at once with a random
    legal action; the games they started and finished, by id. With ``tokens``, registered bots (by name)
    play ``queues[0]`` instead."""

    port: int
    queues: tuple[str, ...] = HONEST_QUEUES
    tag: str = "honest"
    """Their names' prefix (a name has at most 32 characters)."""
    tokens: dict[str, str] = dataclasses.field(default_factory=dict)
    started: set[str] = dataclasses.field(default_factory=set)
    finished: set[str] = dataclasses.field(default_factory=set)
    _tasks: list[asyncio.Task[None]] = dataclasses.field(default_factory=list)
    _bots: list[RawBot] = dataclasses.field(default_factory=list)

    @property
    def seats(self) -> list[tuple[str, str]]:
        """(name, queue) of each bot."""
        if self.tokens:
            return [(name, self.queues[0]) for name in self.tokens]
        return [(f"{self.tag}-{n}{i}", q) for n, q in enumerate(self.queues) for i in range(2)]

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.seats]

    def start(self) -> Honest:
        for index, (name, queue) in enumerate(self.seats):
            bot = RawBot(self.port)
            self._bots.append(bot)
            self._tasks.append(asyncio.create_task(self._play(bot, name, queue, random.Random(index))))
        return self

    async def _play(self, bot: RawBot, name: str, queue: str, rng: random.Random) -> None:
        welcome = await bot.hello(name, token=self.tokens.get(name, ""))
        assert welcome.WhichOneof("message") == "welcome", welcome
        await bot.join(queue)
        while True:
            message = await bot.next(timeout=3600)
            kind = message.WhichOneof("message")
            if kind == "decision_request":
                bot.answer_randomly(message.decision_request, rng)
            elif kind == "game_started":
                self.started.add(message.game_started.game_id)
            elif kind == "game_over":
                self.finished.add(message.game_over.game_id)

    async def stop(self) -> None:
        """Disconnect them: their channels are closed, which ends their reads (cancelling a task blocked in
        a grpc.aio read can leave it cancelling for ever); what has not ended within ``CLOSE_S`` is left."""
        closing = [asyncio.ensure_future(bot.close()) for bot in self._bots]
        await asyncio.wait([*closing, *self._tasks], timeout=CLOSE_S)
        for task in [*closing, *self._tasks]:
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: EOF or a cancelled RPC is how a closed bot's play ends
            else:
                task.cancel()

    async def games(self, at_least: int = 1, timeout: float = 60) -> int:
        """Wait until they have finished ``at_least`` games (a stalled server fails here)."""
        await until(lambda: _true(len(self.finished) >= at_least), timeout)
        return len(self.finished)

    async def missed(self, address: str) -> int:
        """Deadlines their seats missed in the games they finished (the server's own count, from ListGames:
        a timeout is a default action played for them). A refusal for the Arena's rate (a flood beside
        them, from this same address) is waited out."""
        async with asyncio.timeout(60), grpc.aio.insecure_channel(address) as channel:
            while True:
                try:
                    request = arena_pb2.ListGamesRequest(limit=1000)
                    listed = await arena(channel).ListGames(request, timeout=30)
                    break
                except grpc.aio.AioRpcError as refused:
                    if refused.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        raise
                    await asyncio.sleep(1)
        names = set(self.names)
        games = [g for g in listed.games if g.game_id in self.finished]
        return sum(s.timeouts for g in games for s in g.seats if s.name in names)


async def _true(value: bool) -> bool:
    return value


def flood(kind: str, port: int, seconds: float, *args: str) -> subprocess.Popen[str]:
    """Start ``chaos_flood`` in its own process (the flooder does not share the honest bots' CPU time
    slices or event loop); ``finish()`` reads its JSON summary."""
    command = [sys.executable, str(SUPPORT / "chaos_flood.py"), kind, str(port), str(seconds), *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


async def finish(flooder: subprocess.Popen[str], timeout: float = 120) -> dict[str, Any]:
    """The flooder's summary (a dict), once it exits."""
    out, _ = await asyncio.to_thread(flooder.communicate, None, timeout)
    assert flooder.returncode == 0, f"the flooder failed ({flooder.returncode}): {out}"
    summary: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return summary


def table(verdicts: Sequence[Verdict]) -> str:
    """The full run's one table: per attack or fault, what was tried, what got through and its figures."""
    rows = [("item", "attack or fault", "tried", "through", "figures")]
    for v in verdicts:
        figures = ", ".join(f"{k} {_number(x)}" for k, x in v.figures.items())
        rows.append((v.item, v.title, str(v.tried), str(len(v.through)), figures))
    total_tried = sum(v.tried for v in verdicts)
    total_through = sum(len(v.through) for v in verdicts)
    rows.append(("", "total", str(total_tried), str(total_through), ""))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for row in rows:
        cells = [row[i].ljust(widths[i]) for i in range(4)] + [row[4]]
        lines.append("| " + " | ".join(cells) + " |")
        if len(lines) == 1:
            lines.append("|" + "|".join("-" * (w + 2) for w in [*widths, 7]) + "|")
    return "\n".join(lines)


def _number(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.1f}"
