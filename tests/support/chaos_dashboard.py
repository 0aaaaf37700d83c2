"""Issue 33's attacks on the dashboard, against a running ``ChaosServer`` (tests/support/chaos.py): item 2,
live views hoarded by one address; item 3, slowloris and silent connections; item 4, ``X-Forwarded-For``
choosing the rate-limit bucket. Each returns a ``Verdict`` whose ``through`` lists the promises it broke,
run beside honest bots with the bar of the other rows: they miss no deadline of 250 ms and lose no
finished game, the game server's RSS stays under twice its idle figure, and so does the dashboard's; a
visitor from another address is answered throughout.

The attacker runs in a process of its own, this file run as a script (as ``chaos_flood`` is), from
loopback addresses of its own (127.0.1.x, 127.0.2.x, ::1: each a client to the dashboard; the visitor and
the honest bots are 127.0.0.1):

    python chaos_dashboard.py KIND PORT SECONDS [ARGS...]

prints one JSON line summarising what happened. KIND: ``hoard COUNT GAME_ID SOURCE`` (up to COUNT live
views of GAME_ID from SOURCE, opened as fast as the rate limit lets, their answers never read, held SECONDS),
``slowloris SLOW SILENT SOURCES CROWD`` (SLOW connections sending their request head a byte a second and
SILENT connections sending nothing, spread over SOURCES addresses, and CROWD silent ones from one more
address; each watched until the dashboard closes it, for SECONDS), ``forwarded CLIENTS`` (from ::1,
CLIENTS clients asking for /api/queues and as many for the odds, each request claiming another address in
``X-Forwarded-For``, ``Forwarded`` and ``X-Real-IP``, for SECONDS).

Each attack takes its sizes as arguments: ``make chaos`` (benchmarks/chaos.py) gives the issue's own (the
defaults), the short profile (tests/chaos/test_chaos_dashboard.py) less.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import grpc
from chaos import ChaosServer, Honest, Verdict, finish, until
from raw_client import RawBot

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.web.guard import BURST, HEAVY_COST, RATE
from server.web.limits import CLIENT_CONNECTIONS, CLIENT_WATCHES, REQUEST_TIMEOUT_S

VISITOR = "127.0.0.1"
"""The honest visitor's address (and the honest bots')."""
VISITOR_BOUND_S = 2.0
"""Longest a visitor's ``/api/queues`` may take under an attack (item 15's bound under a heavy flood)."""
GRACE_S = 3.0
"""Past a deadline of the dashboard, how long a connection may still be open on a loaded machine."""
CONNECTING = 256
"""Connections the attacker opens at once (the rest wait their turn: no listen queue overflows)."""
SUPPORT = Path(__file__).resolve().parent


# ------------------------------------------------------------------------------------------------------------
# The attacker's side, in its own process.


async def _connect(port: int, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the dashboard on ``port`` from the loopback address ``source`` (IPv4 or IPv6)."""
    host = "::1" if ":" in source else "127.0.0.1"
    return await asyncio.open_connection(host, port, local_addr=(source, 0))


async def _answer(reader: asyncio.StreamReader) -> tuple[int, str]:
    """The status and the JSON ``error`` (or "") of an answer, its head and, if it says its length, body."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    status = int(head.split()[1])
    if "content-length:" not in head:
        return status, ""
    length = int(head.split("content-length:")[1].split("\r\n")[0])
    body = await reader.readexactly(length)
    return status, str(json.loads(body).get("error", "")) if body.startswith(b"{") else ""


def _refusal(status: int, error: str) -> str:
    """What refused a request, in a word: ``watch_limit``, ``rate_limit``, ``connection_limit``..."""
    if status == 429:
        if error.startswith("too many live games"):
            return "watch_limit"
        if error.startswith("too many requests"):
            return "rate_limit"
        if error.startswith("too many connections"):
            return "connection_limit"
    return str(status)


async def hoard(port: int, seconds: float, count: str, game_id: str, source: str) -> dict[str, Any]:
    """Up to ``count`` live views of ``game_id`` from ``source``, ten at a time, waiting out the rate limit
    when it refuses; each answer's head is read and nothing after it; all held until ``seconds`` pass."""
    end = time.monotonic() + seconds
    held: list[asyncio.StreamWriter] = []
    answers: collections.Counter[str] = collections.Counter()
    errors: dict[str, str] = {}

    async def view() -> None:
        try:
            reader, writer = await _connect(port, source)
            writer.write(f"GET /api/games/{game_id}/watch HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            status, error = await asyncio.wait_for(_answer(reader), 10)
        except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError, ValueError):
            answers["failed"] += 1
            return
        if status == 200:
            held.append(writer)  # ... and never read
            answers["stream"] += 1
            return
        writer.close()
        kind = _refusal(status, error)
        answers[kind] += 1
        errors.setdefault(kind, error)

    attempts = 0
    while attempts < int(count) and time.monotonic() < end:
        refused_before = answers["rate_limit"]
        batch = min(10, int(count) - attempts)
        await asyncio.gather(*(view() for _ in range(batch)))
        attempts += batch
        if answers["rate_limit"] > refused_before:
            await asyncio.sleep(1 / RATE * batch)  # the tokens of the next batch
    await asyncio.sleep(max(0.0, end - time.monotonic()))
    for writer in held:
        writer.close()
    return {"attempts": attempts, "streams": answers["stream"], "answers": dict(answers), "errors": errors}


async def slowloris(
    port: int, seconds: float, slow: str, silent: str, sources: str, crowd: str
) -> dict[str, Any]:
    """``slow`` connections sending a request head a byte a second and ``silent`` ones sending nothing,
    spread over ``sources`` addresses (127.0.1.1...), and ``crowd`` silent ones from 127.0.2.1; each
    watched until the dashboard closes it, at most ``seconds``. Per group: how many were opened, closed
    (and within how long of opening, at the longest), still held at the end, and the answers they got."""
    end = time.monotonic() + seconds
    connecting = asyncio.Semaphore(CONNECTING)
    groups: dict[str, dict[str, Any]] = {
        name: {"opened": 0, "closed": 0, "longest_s": 0.0, "answers": collections.Counter()}
        for name in ("slow", "silent", "crowd")
    }

    async def connection(group: str, source: str) -> None:
        summary = groups[group]
        try:
            async with connecting:
                reader, writer = await _connect(port, source)
        except OSError:
            summary["answers"]["unconnected"] += 1
            return
        summary["opened"] += 1
        opened = time.monotonic()
        trickle = asyncio.create_task(_trickle(writer)) if group == "slow" else None
        try:
            got = await asyncio.wait_for(_until_closed(reader), max(0.0, end - opened))
            summary["answers"][got.split(b" ", 2)[1].decode() if got.startswith(b"HTTP/") else "none"] += 1
            summary["closed"] += 1
            summary["longest_s"] = max(summary["longest_s"], time.monotonic() - opened)
        except ConnectionResetError:
            summary["answers"]["reset"] += 1
            summary["closed"] += 1
            summary["longest_s"] = max(summary["longest_s"], time.monotonic() - opened)
        except TimeoutError:
            pass  # held to the end: counted below
        finally:
            if trickle is not None:
                trickle.cancel()
            writer.close()

    count = int(sources)
    tasks = [connection("slow", f"127.0.1.{1 + i % count}") for i in range(int(slow))]
    tasks += [connection("silent", f"127.0.1.{1 + i % count}") for i in range(int(silent))]
    tasks += [connection("crowd", "127.0.2.1") for _ in range(int(crowd))]
    await asyncio.gather(*tasks)
    for summary in groups.values():
        summary["held"] = summary["opened"] - summary["closed"]
        summary["answers"] = dict(summary["answers"])
    return groups


async def _until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the dashboard sends on a connection until it closes it."""
    got = b""
    while chunk := await reader.read(65536):
        got += chunk
    return got


async def _trickle(writer: asyncio.StreamWriter) -> None:
    """A request head that never ends, a byte a second."""
    head = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: "
    sent = 0
    with contextlib.suppress(OSError):
        while True:
            writer.write(head[sent : sent + 1] if sent < len(head) else b"a")
            sent += 1
            await asyncio.sleep(1)


ODDS = "/api/odds?attackers=5&defenders=5"
FORWARDER = "::1"
FORWARDED_RATE = 10.0
"""Requests a second each forwarded-for client sends at most: the attack is about whose bucket a request
takes, not about the load (the web flood rows measure that), so it is paced like the issue's."""
"""Where the forwarded-for attack comes from: the issue's address, from which uvicorn trusted the headers by
default (with 127.0.0.1, which a dual-stack socket sees as ::ffff:127.0.0.1)."""


async def forwarded(port: int, seconds: float, clients: str) -> dict[str, Any]:
    """``clients`` clients asking for /api/queues and as many for ``ODDS``, from ``FORWARDER``, each at most
    ``FORWARDED_RATE`` requests a second, each request claiming another address in ``X-Forwarded-For``,
    ``Forwarded`` and ``X-Real-IP``. Per path: what was asked, the answers by status, and a refusal's
    words."""
    end = time.monotonic() + seconds
    paths = ("/api/queues", ODDS)
    summary: dict[str, dict[str, Any]] = {
        path: {"asked": 0, "answers": collections.Counter(), "error": ""} for path in paths
    }
    start = time.monotonic()

    async def client(path: str, index: int) -> None:
        due = time.monotonic()
        while (due := max(due + 1 / FORWARDED_RATE, time.monotonic())) < end:
            await asyncio.sleep(due - time.monotonic())
            index += 1
            claimed = f"203.0.113.{index % 250 + 1}"
            request = (
                f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Forwarded-For: {claimed}\r\n"
                f"Forwarded: for={claimed}\r\nX-Real-IP: {claimed}\r\n\r\n"
            )
            summary[path]["asked"] += 1
            try:
                reader, writer = await _connect(port, FORWARDER)
                writer.write(request.encode())
                status, error = await asyncio.wait_for(_answer(reader), 10)
                writer.close()
            except (OSError, EOFError, TimeoutError, asyncio.IncompleteReadError, ValueError):
                summary[path]["answers"]["failed"] += 1
                continue
            summary[path]["answers"][str(status)] += 1
            if status == 429:
                summary[path]["error"] = summary[path]["error"] or error

    await asyncio.gather(*(client(p, i * 1000) for p in paths for i in range(int(clients))))
    for entry in summary.values():
        entry["answers"] = dict(entry["answers"])
    return {"seconds": time.monotonic() - start, "paths": summary}


def run(kind: str, port: int, seconds: float, *args: str) -> dict[str, Any]:
    """The attack ``kind`` (see the module's docstring): its summary."""
    attacks: dict[str, Callable[..., Coroutine[Any, Any, dict[str, Any]]]] = {
        "hoard": hoard,
        "slowloris": slowloris,
        "forwarded": forwarded,
    }
    return asyncio.run(attacks[kind](port, seconds, *args))


def _attacker(kind: str, port: int, seconds: float, *args: str) -> subprocess.Popen[str]:
    """The attack ``kind`` in a process of its own (it shares neither the honest bots' event loop nor their
    CPU time slices); ``chaos.finish`` reads its summary."""
    command = [sys.executable, str(SUPPORT / "chaos_dashboard.py"), kind, str(port), str(seconds), *args]
    return subprocess.Popen(command, stdout=subprocess.PIPE, text=True)


# ------------------------------------------------------------------------------------------------------------
# The harness's side: the attack beside honest bots and a visitor, and its verdict.


def dashboard_pid(server: ChaosServer) -> int:
    """The pid of the chaos server's dashboard process (its child started by multiprocessing's spawn)."""
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    spawned = [int(c) for c in children if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]
    assert len(spawned) == 1, f"the server's children: {children}"
    return spawned[0]


def rss_mib(pid: int, reset: bool = False) -> tuple[float, float]:
    """(RSS now, peak RSS so far) of process ``pid`` in MiB; with ``reset``, the peak is first reset to the
    RSS now (as ``ChaosServer.idle_rss_mib`` does for the game server)."""
    if reset:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


async def _visit(server: ChaosServer, seconds: float) -> tuple[float, list[int]]:
    """A visitor (``VISITOR``) asking for /api/queues each second for ``seconds``: the slowest answer's
    seconds, and every status (0: no answer within 30 s)."""
    slowest, statuses = 0.0, []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        try:
            status, _, _ = await asyncio.to_thread(server.http, "/api/queues", 30)
        except OSError:
            status = 0
        slowest = max(slowest, time.monotonic() - start)
        statuses.append(status)
        await asyncio.sleep(1)
    return slowest, statuses


async def _unrecorded(server: ChaosServer, finished: set[str]) -> int:
    """Games in ``finished`` the game server has no record of (ListGames): finished games lost."""
    async with grpc.aio.insecure_channel(server.address) as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        listed = await stub.ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=30)
    return len(finished - {g.game_id for g in listed.games})


async def beside_honest(
    server: ChaosServer,
    verdict: Verdict,
    kind: str,
    seconds: float,
    *args: str,
    meanwhile: Callable[[], Coroutine[Any, Any, None]] | None = None,
) -> dict[str, Any]:
    """Run the attack ``kind`` on the dashboard beside two honest 250 ms duels and a visitor (and
    ``meanwhile``, if given), with the bar of issue 21 as checks: honest games go on finishing, miss no
    deadline and are all recorded; the visitor's every answer is a 200 within ``VISITOR_BOUND_S``; the
    game server's RSS and the dashboard's stay under twice their idle figures, and the dashboard is the
    same process at the end (not killed and restarted). The attacker's summary."""
    dashboard = dashboard_pid(server)
    idle = server.idle_rss_mib()
    dashboard_idle, _ = rss_mib(dashboard, reset=True)
    honest = Honest(server.port, tag=f"honest-{kind[:3]}-{time.monotonic_ns() % 10**6}").start()
    await honest.games(at_least=1, timeout=60)
    before = len(honest.finished)
    attacker = _attacker(kind, server.dashboard_port, seconds, *args)
    visitor = asyncio.create_task(_visit(server, seconds))
    extra = asyncio.create_task(meanwhile()) if meanwhile is not None else None
    summary = await finish(attacker, timeout=seconds + 120)
    slowest, statuses = await visitor
    if extra is not None:
        await extra
    during = len(honest.finished) - before
    await honest.stop()
    missed = await honest.missed(server.address)
    lost = await _unrecorded(server, honest.finished)
    _, peak = server.rss_mib()
    _, dashboard_peak = rss_mib(dashboard)
    verdict.figures.update(
        missed=missed,
        games=during,
        lost=lost,
        rss_idle_mib=idle,
        rss_peak_mib=peak,
        web_rss_idle_mib=dashboard_idle,
        web_rss_peak_mib=dashboard_peak,
        visitor_s=slowest,
    )
    verdict.check(during > 0, f"no honest game finished during the {seconds:.0f} s {kind} attack")
    verdict.check(missed == 0, f"honest bots missed {missed} deadlines of 250 ms under the {kind} attack")
    verdict.check(lost == 0, f"{lost} finished honest games are not recorded")
    verdict.check(
        set(statuses) == {200} and slowest < VISITOR_BOUND_S,
        f"a visitor's /api/queues under the {kind} attack: {statuses}, the slowest in {slowest:.1f} s",
    )
    verdict.check(peak < 2 * idle, f"the game server's RSS peaked at {peak:.0f} MiB, idle {idle:.0f} MiB")
    verdict.check(
        dashboard_peak < 2 * dashboard_idle,
        f"the dashboard's RSS peaked at {dashboard_peak:.0f} MiB, idle {dashboard_idle:.0f} MiB",
    )
    verdict.check(dashboard_pid(server) == dashboard, f"the dashboard process died under the {kind} attack")
    return summary


async def item_2_hoarded_live_views(server: ChaosServer, count: int = 300, seconds: float = 25) -> Verdict:
    """Issue 33, item 2: "One address can take all 200 live-view slots of the dashboard (`/watch` SSE,
    never reading); every other visitor gets 503, and those streams count against the same address's limit
    on the game server, so 10 of 60 local bots were refused `too_many_streams`." One address asks for
    ``count`` live views of a game as fast as the rate limit lets and never reads them; meanwhile a visitor
    from another address opens a live view of the same game and ten new bots connect."""
    verdict = Verdict("33.2", "one address hoards live views, never reading")
    players = Honest(server.port, queues=("marathon",), tag="watched").start()
    await until(lambda: _holds(bool(players.started)), 60)
    game_id = next(iter(players.started))
    seen: dict[str, Any] = {}

    async def visitor_and_bots() -> None:
        await asyncio.sleep(seconds / 2)  # the hoard has had its burst and more
        seen["view"] = await _live_view(server.dashboard_port, game_id)
        seen["welcomed"] = await _welcomed(server.port, 10)

    summary = await beside_honest(
        server, verdict, "hoard", seconds, str(count), game_id, "127.0.1.1", meanwhile=visitor_and_bots
    )
    await players.stop()
    streams = int(summary["streams"])
    verdict.figures.update(hoarded=streams, asked=int(summary["attempts"]))
    verdict.check(
        streams <= CLIENT_WATCHES,
        f"one address holds {streams} live views at once (at most {CLIENT_WATCHES}): {summary['answers']}",
    )
    refusal = summary["errors"].get("watch_limit", "")
    verdict.check(
        f"at most {CLIENT_WATCHES} at once" in refusal and "close one" in refusal,
        f"the hoarder is told its bound and what to do (429): {summary['errors']}",
    )
    verdict.check(
        seen["view"] == (200, "snapshot"), f"a visitor's live view during the hoard: {seen['view']}"
    )
    verdict.check(
        seen["welcomed"] == 10, f"{seen['welcomed']} of 10 new local bots welcomed during the hoard"
    )
    return verdict


async def _live_view(port: int, game_id: str) -> tuple[int, str]:
    """A visitor's live view of ``game_id``: its status and its first event's kind (or the error)."""
    try:
        reader, writer = await asyncio.open_connection(VISITOR, port)
        writer.write(f"GET /api/games/{game_id}/watch HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        async with asyncio.timeout(10):
            status, error = await _answer(reader)
            if status == 200:  # the first event's name (the stream's chunks have their sizes between)
                await reader.readuntil(b"event: ")
                error = (await reader.readline()).decode().strip()
        writer.close()
        return status, error
    except (OSError, TimeoutError, asyncio.IncompleteReadError) as failed:
        return 0, repr(failed)


async def _welcomed(port: int, count: int) -> int:
    """How many of ``count`` new practice bots the game server welcomes."""
    bots = [RawBot(port) for _ in range(count)]
    try:
        answers = await asyncio.gather(
            *(bot.hello(f"fresh-{time.monotonic_ns() % 10**6}-{i}") for i, bot in enumerate(bots)),
            return_exceptions=True,
        )
    finally:
        for bot in bots:
            await bot.close()
    return sum(not isinstance(a, BaseException) and a.WhichOneof("message") == "welcome" for a in answers)


async def _holds(value: bool) -> bool:
    return value


async def item_3_slow_and_silent_connections(
    server: ChaosServer,
    slow: int = 800,
    silent: int = 2000,
    sources: int = 100,
    crowd: int = 200,
    request_timeout_s: float = REQUEST_TIMEOUT_S,
) -> Verdict:
    """Issue 33, item 3: "The dashboard never times out slow or silent connections: 800 slowloris
    connections (headers at one byte a second) and 2,000 silent ones were held for good; at the 20,000
    open-file limit it answered no visitor for ~40 s and logged nothing." ``slow`` slowloris and ``silent``
    connections, over ``sources`` addresses (each under its bound of connections), must each be closed
    within the request deadline (``request_timeout_s``, the server's ``dashboard_request_timeout_ms``);
    ``crowd`` silent ones from one address beyond its bound are refused at once (429); a visitor is
    answered throughout, and the log says what was cut and refused."""
    verdict = Verdict("33.3", "slowloris and silent connections")
    log_before = len(server.records())
    seconds = request_timeout_s + 2 * GRACE_S
    groups = await beside_honest(
        server, verdict, "slowloris", seconds, str(slow), str(silent), str(sources), str(crowd)
    )
    bound = request_timeout_s + GRACE_S
    for name in ("slow", "silent"):
        group = groups[name]
        verdict.figures[f"{name}_longest_s"] = group["longest_s"]
        verdict.check(
            group["held"] == 0 and group["longest_s"] < bound,
            f"{name} connections closed within {bound:g} s of opening: {group}",
        )
    crowd_group = groups["crowd"]
    refused = crowd_group["answers"].get("429", 0) + crowd_group["answers"].get("reset", 0)
    verdict.figures["crowd_refused"] = refused
    verdict.check(
        crowd_group["held"] == 0 and refused >= crowd - CLIENT_CONNECTIONS,
        f"{crowd} connections from one address: {CLIENT_CONNECTIONS} held at most, the rest refused at once: "
        f"{crowd_group}",
    )
    events = {r["event"] for r in server.records()[log_before:]}
    for event in ("dashboard_request_timeout", "dashboard_client_connections_refused"):
        verdict.check(event in events, f"the dashboard logged {event}")
    return verdict


async def item_4_forwarded_for(server: ChaosServer, clients: int = 4, seconds: float = 20) -> Verdict:
    """Issue 33, item 4: "`X-Forwarded-For` from `::1` chooses the rate-limit bucket: 120 of 120 requests
    and 60 of 60 heavy odds requests answered where ~60 and 12 should be." From ``FORWARDER``, ``clients``
    clients ask for /api/queues and as many for the odds, each request claiming another address: what is
    answered stays within that one address's bucket (``BURST`` tokens at once, ``RATE`` a second, the odds
    ``HEAVY_COST`` each), and a refusal names the connection's own address."""
    verdict = Verdict("33.4", "X-Forwarded-For chooses the rate-limit bucket")
    summary = await beside_honest(server, verdict, "forwarded", seconds, str(clients))
    took = float(summary["seconds"])
    tokens = BURST + RATE * (took + 1)  # a second's refill spare: the clocks of two processes
    spent = 0
    for path, cost, name in (("/api/queues", 1, "queues"), (ODDS, HEAVY_COST, "odds")):
        entry = summary["paths"][path]
        answered = int(entry["answers"].get("200", 0))
        spent += cost * answered
        verdict.figures.update({f"{name}_answered": answered, f"{name}_asked": int(entry["asked"])})
        error = str(entry["error"])
        if error or cost == 1:  # the odds may be too slow to drain the bucket on a loaded machine
            verdict.check(
                FORWARDER in error and "203.0.113." not in error,
                f"a refusal of {path} names the connection's address, not a claimed one: {error!r}",
            )
    queues, odds = verdict.figures["queues_answered"], verdict.figures["odds_answered"]
    verdict.check(
        spent <= tokens,
        f"{queues:.0f} /api/queues and {odds:.0f} odds answered in {took:.0f} s from one address claiming "
        f"others: {spent} tokens of its {tokens:.0f}",
    )
    return verdict


def main(argv: list[str]) -> int:
    print(json.dumps(run(argv[0], int(argv[1]), float(argv[2]), *argv[3:])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
