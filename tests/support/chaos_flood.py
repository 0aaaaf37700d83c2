"""Floods, each run in a process of its own against a server on 127.0.0.1, bounded in count and time, and
the server they flood: for the chaos harness (tests/support/chaos.py), the tests of issue 21 and
``benchmarks/web_flood.py``.

    python chaos_flood.py KIND PORT SECONDS [ARGS...]

prints one JSON line summarising what happened; ``start(KIND, PORT, SECONDS, *ARGS)`` runs the same flood
in a spawned process, returns once it is about to flood, and ``Flood.summary()`` waits for that summary.

KIND: ``no_hello N`` (N streams that never send Hello), ``sessions N`` (N practice sessions from this one
client), ``spectators N GAME_ID`` (N WatchGame streams that never read), ``nonreader`` (one session sending
JoinQueue for an unknown queue as fast as it can and never reading the errors), ``messages`` (one session
sending JoinQueue and LeaveQueue as fast as it can, reading the answers), ``web N PATH [PATH...]`` (N HTTP
clients asking the dashboard at PORT for the PATHs in turn), ``arena N [QUEUE]`` (N Arena clients listing
a thousand games and QUEUE's leaderboard, default ``ladder``, in turn), ``arena_calls N GAME_ID LIVE_ID
[CALL...]`` (every Arena call, or those named, in turn, ``SECONDS`` each, from N callers at once:
``arena_requests``), ``relay_hellos N [PER_S]`` (N connections at once to the relay listening on PORT, each
sending a hello with a wrong cluster token and a 4 KB replica name, again once it is refused, PER_S a
second at most over all), ``idle`` (nothing: the honest bots' baseline).
``web`` and ``arena`` summarise as ``{"answers": {status: count}}``: an HTTP status (0: no answer in time,
``failed``: no connection or no HTTP answer) or a gRPC status code's name; ``arena_calls`` so per call.

``conquest_serve(folder, pairs)`` runs ``conquest serve`` in a process of its own, as deployed (SQLite,
dashboard, JSON logs), with one duel queue per pair of honest bots and ``DEADLINE_MS`` a decision;
``honest(...)`` is one such bot, answering at once.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

import grpc
from serve_process import free_port

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import arena_pb2, arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from server.play import relay_wire

DEADLINE_MS = 250
"""Each decision's time on ``conquest_serve``, the first too, with no timebank: the bar of issue 21."""
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
"""What ``web_paths`` asks for, in turn: heavy and cheap endpoints alternately."""


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


async def web(port: int, seconds: float, count: str, *paths: str) -> dict[str, Any]:
    answers: collections.Counter[str] = collections.Counter()
    end = time.monotonic() + seconds

    async def client(index: int) -> None:
        while time.monotonic() < end:
            try:
                answers[str(await http_get(port, paths[index % len(paths)], end - time.monotonic()))] += 1
            except (OSError, IndexError, ValueError):  # refused, or closed without an HTTP status line
                answers["failed"] += 1
            index += 1

    await asyncio.gather(*(client(i) for i in range(int(count))))
    return {"answers": dict(answers)}


def web_paths(queue: str, game: str) -> list[str]:
    """``WEB_PATHS`` for a server with ``queue`` and the finished ``game``."""
    return [p.replace("{game}", game).replace("{queue}", queue) for p in WEB_PATHS]


async def http_get(port: int, path: str, timeout: float) -> int:
    """One GET on 127.0.0.1:``port`` over a fresh connection: its status, or 0 when no answer came within
    ``timeout``."""
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


async def arena(port: int, seconds: float, count: str, queue: str = "ladder") -> dict[str, Any]:
    answers: collections.Counter[str] = collections.Counter()
    end = time.monotonic() + seconds
    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)

        async def client(index: int) -> None:
            while time.monotonic() < end:
                try:
                    if index % 2:
                        await stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue=queue), timeout=30)
                    else:
                        await stub.ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=30)
                    answers["OK"] += 1
                except grpc.aio.AioRpcError as error:
                    answers[error.code().name] += 1
                index += 1

        await asyncio.gather(*(client(i) for i in range(int(count))))
    return {"answers": dict(answers)}


def arena_requests(game_id: str, live_id: str) -> dict[str, tuple[Any, tuple[tuple[str, str], ...]]]:
    """A request of each Arena call as an outsider sends it, by method name: (request, metadata). Admin
    calls come with a wrong admin token, RegisterBot with none, a challenge with a wrong bot token;
    ``game_id`` is a finished game's, ``live_id`` a game being played."""
    wrong_admin = (("authorization", "Bearer not-the-admin-token"),)
    entrants = ["flood-a", "flood-b"]
    round_robin = arena_pb2.TOURNAMENT_FORMAT_ROUND_ROBIN
    return {
        "RegisterBot": (arena_pb2.RegisterBotRequest(name="flood"), ()),
        "RotateToken": (arena_pb2.RotateTokenRequest(name="flood"), wrong_admin),
        "RevokeBot": (arena_pb2.RevokeBotRequest(name="flood"), wrong_admin),
        "ListBots": (arena_pb2.ListBotsRequest(), ()),
        "GetLeaderboard": (arena_pb2.GetLeaderboardRequest(queue="ladder"), ()),
        "GetRatingHistory": (arena_pb2.GetRatingHistoryRequest(bot="flood", queue="ladder"), ()),
        "GetBotStats": (arena_pb2.GetBotStatsRequest(bot="flood"), ()),
        "ListGames": (arena_pb2.ListGamesRequest(limit=1000), ()),
        "ListLiveGames": (arena_pb2.ListLiveGamesRequest(), ()),
        "GetGame": (arena_pb2.GetGameRequest(game_id=game_id), ()),
        "GetReplay": (arena_pb2.GetReplayRequest(game_id=game_id), ()),
        "WatchGame": (arena_pb2.WatchGameRequest(game_id=live_id), ()),
        "CreateChallenge": (
            arena_pb2.CreateChallengeRequest(bots=entrants, queue="ladder"),
            (("authorization", "Bearer not-a-bot-token"),),
        ),
        "CreateTournament": (
            arena_pb2.CreateTournamentRequest(
                name="flood", format=round_robin, bots=entrants, queue="ladder"
            ),
            wrong_admin,
        ),
        "GetTournament": (arena_pb2.GetTournamentRequest(name="flood"), ()),
        "ListTournaments": (arena_pb2.ListTournamentsRequest(), ()),
    }


ARENA_METHODS = sorted(
    (m.name for m in arena_pb2.DESCRIPTOR.services_by_name["ArenaService"].methods),
    key=lambda name: name != "WatchGame",
)
"""Every Arena call, in the order the service declares them, but WatchGame first: the game it follows is
then surely still being played (a finished game's WatchGame reads its record, a call of 10 tokens)."""


async def arena_calls(
    port: int, seconds: float, callers: str, game_id: str, live_id: str, *methods: str
) -> dict[str, Any]:
    """Each Arena call of ``methods`` (default: every one, ``ARENA_METHODS``) in turn, ``seconds`` each,
    from ``callers`` callers at once on one channel, then a quiet second (the client's bucket fills again
    for the harness's own calls). Per call: its answers by status code (a WatchGame that streamed its first
    message is OK) and the seconds it was flooded."""
    requests = arena_requests(game_id, live_id)
    missing = set(ARENA_METHODS) - set(requests)
    assert not missing, f"no flood request for the Arena calls {sorted(missing)}: add them to arena_requests"
    calls: dict[str, Any] = {}
    async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
        stub = arena_pb2_grpc.ArenaServiceStub(channel)
        for method in methods or ARENA_METHODS:
            calls[method] = await _flood_call(stub, method, *requests[method], seconds, int(callers))
    await asyncio.sleep(1.0)
    return {"calls": calls}


async def _flood_call(
    stub: arena_pb2_grpc.ArenaServiceStub,
    method: str,
    request: Any,
    metadata: tuple[tuple[str, str], ...],
    seconds: float,
    callers: int,
) -> dict[str, Any]:
    """``method`` called for ``seconds`` by ``callers`` callers at once: its answers by status code and
    the seconds it took. The calls still open then are given up (a refusal is held a second)."""
    answers: collections.Counter[str] = collections.Counter()
    start = time.monotonic()

    async def caller() -> None:
        while True:
            answers[await _arena_answer(stub, method, request, metadata)] += 1

    callers_running = [asyncio.create_task(caller()) for _ in range(callers)]
    await asyncio.wait(callers_running, timeout=seconds)
    for running in callers_running:
        running.cancel()
    await asyncio.gather(*callers_running, return_exceptions=True)
    return {"answers": dict(answers), "seconds": time.monotonic() - start}


async def _arena_answer(
    stub: arena_pb2_grpc.ArenaServiceStub, method: str, request: Any, metadata: tuple[tuple[str, str], ...]
) -> str:
    """One call of ``method``: the name of its status code."""
    try:
        if method == "WatchGame":
            call = stub.WatchGame(request, metadata=metadata, timeout=30)
            try:
                await call.read()
            finally:
                call.cancel()
        else:
            await getattr(stub, method)(request, metadata=metadata, timeout=30)
    except grpc.aio.AioRpcError as error:
        return str(error.code().name)
    return "OK"


WRONG_RELAY_HELLO = relay_wire.message(
    [
        relay_pb2.RelayRequest(
            hello=relay_pb2.RelayHello(replica="r" * 4000, cluster_token="not-the-cluster-token")
        ).SerializeToString()
    ]
)
"""Issue 33, item 6's hello: a 4 KB replica name and a wrong cluster token."""


async def relay_hellos(port: int, seconds: float, connections: str, per_second: str = "0") -> dict[str, Any]:
    """``connections`` connections at once to the relay at 127.0.0.1:``port``, each sending
    ``WRONG_RELAY_HELLO`` and reading to its end, then again (all of them ``per_second`` times a second at
    most; "0": as fast as they are refused), for ``seconds``: how many were refused (told something and
    closed), and how many a second."""
    refused = 0
    end = time.monotonic() + seconds
    pause = int(connections) / float(per_second) if float(per_second) else 0.0

    async def connection() -> None:
        nonlocal refused
        while time.monotonic() < end:
            started = time.monotonic()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(WRONG_RELAY_HELLO)
            told = await reader.read()
            refused += bool(told)  # not ``+= await ...``: that reads ``refused`` before the await
            writer.close()
            await asyncio.sleep(max(0.0, started + pause - time.monotonic()))

    start = time.monotonic()
    await asyncio.gather(*(connection() for _ in range(int(connections))))
    return {"refused": refused, "per_second": refused / (time.monotonic() - start)}


def run(kind: str, port: int, seconds: float, *args: str) -> dict[str, Any]:
    """The flood ``kind`` (see the module's docstring): its summary."""
    if kind == "messages":
        return messages(port, seconds)
    if kind == "idle":
        time.sleep(seconds)
        return {}
    runs = {
        "no_hello": no_hello,
        "sessions": sessions,
        "spectators": spectators,
        "nonreader": nonreader,
        "web": web,
        "arena": arena,
        "arena_calls": arena_calls,
        "relay_hellos": relay_hellos,
    }
    summary: dict[str, Any] = asyncio.run(runs[kind](port, seconds, *args))
    return summary


def _spawned(
    kind: str, port: int, seconds: float, args: tuple[str, ...], out: multiprocessing.Queue[Any]
) -> None:
    out.put("ready")
    out.put(run(kind, port, seconds, *args))


@dataclass
class Flood:
    """A flood in a spawned process (``start``)."""

    process: BaseProcess
    out: multiprocessing.Queue[Any]

    async def summary(self) -> dict[str, Any]:
        """Its summary, once it has ended."""
        summary: dict[str, Any] = await asyncio.to_thread(self.out.get, True, 120)
        await asyncio.to_thread(self.process.join, 30)
        return summary


async def start(kind: str, port: int, seconds: float, *args: str) -> Flood:
    """The flood ``kind`` in a spawned process (it shares neither this process's CPU time slices nor its
    event loop), once it is about to flood."""
    spawn = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[Any] = spawn.Queue()
    process = spawn.Process(target=_spawned, args=(kind, port, seconds, args, out))
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


@contextlib.asynccontextmanager
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
            with contextlib.suppress(OSError, IndexError, ValueError):
                if await http_get(dashboard, "/api/queues", 10) == 200:
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


def main(argv: list[str]) -> int:
    print(json.dumps(run(argv[0], int(argv[1]), float(argv[2]), *argv[3:])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
