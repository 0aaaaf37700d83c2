"""Issue 20, "Any number of replicas serve one ladder": three `conquest serve` replicas in cluster mode on
one PostgreSQL share the queues; bots connected to different replicas are seated together by the one
matchmaker holding the lease, and play through the relay (real processes, real PostgreSQL)."""

from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import time
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from replicas import (
    ADMIN,
    CONFIG,
    NAMES,
    Replicas,
    SlowRandom,
    check_recorded,
    counted,
    hosted,
    kill_and_restart,
    lease_holder,
    metric,
    play_trio,
    postgresql_only,
    records_of_log,
    register,
)
from serve_process import Serve, free_port
from sqlalchemy import make_url
from structlog.testing import capture_logs

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import arena_pb2, arena_pb2_grpc
from conquest_sdk import Client
from server.app import build_lobby
from server.cli.main import main
from server.ops.config import ServerConfig
from server.play import relay_link, relay_wire
from server.play.relay import Relay
from server.play.shared_pairing import place
from server.storage import Store


@postgresql_only
async def test_bots_on_three_replicas_play_rated_games_together(tmp_path: Path, db_url: str) -> None:
    """ "N `conquest serve` processes pointed at one PostgreSQL share the queues ... A bot connects to any
    replica ... and is seated with bots connected to any other replica. The bot protocol and the starter
    kits do not change" and "bots connected to different replicas play rated games together (results
    recorded once, ratings change once, replays verify)"."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        await replicas.serving()
        clients = [
            Client(SlowRandom(i), replicas.address(i), token=tokens[n], queues=["trio"], games=2)
            for i, n in enumerate(NAMES)
        ]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
        scraped = [replicas.scrape(i) for i in range(3)]
    finally:
        replicas.stop()
    assert all(len(overs) == 2 for overs in results), "every bot played its two games"
    game_ids = {over.game_id for overs in results for over in overs}
    assert len(game_ids) == 2, "the three bots, one on each replica, were seated together"
    assert sum(metric(s, "conquest_lease_holder") for s in scraped) == 1, "one matchmaker"
    relayed = sum(metric(s, "conquest_relayed_decisions_total") for s in scraped)
    assert relayed > 0, "two of each game's three seats were played through the relay"
    check_recorded(db_url, game_ids, [tmp_path / f"r{i}" / "replays" for i in range(3)], 2)


@postgresql_only
async def test_matchmaking_resumes_elsewhere_when_the_matchmakers_replica_is_killed(
    tmp_path: Path, db_url: str
) -> None:
    """ "kill -9 the matchmaker's replica: matchmaking resumes elsewhere; no bot waits forever" and
    "another replica takes over within a few seconds when its holder dies"."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        await replicas.serving()
        holder = await lease_holder(replicas, 30)
        replicas.servers[holder].process.kill()
        replicas.servers[holder].process.wait(timeout=10)
        killed_at = time.monotonic()
        rest = [i for i in range(3) if i != holder]
        clients = [
            Client(SlowRandom(i), replicas.address(rest[i % 2]), token=tokens[n], queues=["trio"], games=1)
            for i, n in enumerate(NAMES)
        ]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
        seated_in = time.monotonic() - killed_at
        new_holder = await lease_holder(replicas, 5)
        taken = [r for i in rest for r in replicas.servers[i].records() if r["event"] == "lease_taken"]
    finally:
        replicas.stop()
    assert new_holder in rest
    assert [r["term"] for r in taken] == [2], "one survivor took the lease over, once"
    assert seated_in < 30, f"the bots were seated and played {seated_in:.1f} s after the kill"
    game_ids = {over.game_id for overs in results for over in overs}
    assert len(game_ids) == 1 and all(len(overs) == 1 for overs in results)
    check_recorded(db_url, game_ids, [tmp_path / f"r{i}" / "replays" for i in rest], 1)


@postgresql_only
async def test_a_killed_host_s_game_with_relayed_seats_finishes_on_another_replica(
    tmp_path: Path, db_url: str
) -> None:
    """ "kill -9 a replica hosting games mid-turn: every one of its games finishes on another replica with
    a replay that verifies, each result is recorded once and ratings change once", its relayed seats
    re-attached through the relay, and "when the bot reconnects to ANY replica, that replica finds the
    bot's running game ... and re-attaches the seat through a relay". And "Metrics and the dashboard see
    the whole cluster: ... games handed over, relayed decisions": the cluster's totals, listed by a
    replica that survived, count the one game taken over (by the taker; none handed over) as the
    Prometheus counters do, and the relayed decisions both ways, the dead host's included."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3, turn_cap=25)
    try:
        ids = await replicas.serving()
        playing = play_trio(replicas, tokens, 0.015)
        game_id, host = await hosted(db_url, actions=40, timeout=60)
        killed = ids.index(host)
        await kill_and_restart(replicas, killed)  # mid-game; the others' bots stay where they are
        results = await asyncio.wait_for(playing, 120)
        scraped = [replicas.scrape(i) for i in range(3)]
        records = [r for s in replicas.servers for r in records_of_log(s)]
        taker = next(
            s.wait_serving()["replica"]
            for s in replicas.servers
            if any(r["event"] == "game_taken_over" for r in records_of_log(s))
        )
        viewer = next(i for i in range(3) if i != killed)
        listed = await counted(replicas.address(viewer), lambda r: r.totals.games_taken_over > 0, 10)
    finally:
        replicas.stop()
    assert all([over.game_id for over in overs] == [game_id] for overs in results), (
        "the game finished for all"
    )
    taken = [r for r in records if r["event"] == "game_taken_over"]
    assert [r["game_id"] for r in taken] == [game_id], "taken over once"
    assert sum(metric(s, "conquest_relayed_decisions_total") for s in scraped) > 0
    totals = listed.totals
    assert (totals.games_taken_over, totals.games_handed_over) == (1, 0)
    assert totals.games_taken_over == sum(metric(s, "conquest_games_taken_over_total") for s in scraped)
    assert totals.relayed_decisions_played > 0 and totals.relayed_decisions_sent > 0
    assert [r.id for r in listed.replicas if r.counts.games_taken_over] == [taker]
    dirs = [tmp_path / d / "replays" for d in ("r0", "r1", "r2", "restarted")]
    assert not (tmp_path / f"r{killed}" / "replays" / f"{game_id}.json").exists(), (
        "the killed host recorded nothing"
    )
    check_recorded(db_url, {game_id}, dirs, 1)


def test_a_game_goes_to_the_replica_holding_most_seats_unless_markedly_busier():
    """ "Games are placed on a replica by load (each replica reports its running-game count with its
    heartbeat; prefer the replica that holds most of the seats unless it is markedly busier than the least
    loaded)"."""
    assert place(["a", "b", "a"], {"a": 2, "b": 0, "c": 0}) == "a", "2 games is not markedly busier than 0"
    assert place(["a", "b", "a"], {"a": 3, "b": 0, "c": 0}) == "b", "3 > 1.5 x 0 + 2: the least loaded"
    assert place(["a", "b", "a"], {"a": 8, "b": 4, "c": 6}) == "a", "8 <= 1.5 x 4 + 2"
    assert place(["a", "b", "a"], {"a": 9, "b": 4, "c": 3}) == "c", "9 > 1.5 x 3 + 2: the least loaded"
    assert place(["a", "b"], {"a": 2, "b": 1}) == "b", "a tie of seats goes to the less loaded"
    assert place(["gone", "gone"], {"a": 5, "b": 1}) == "b", "no seat on a live replica: the least loaded"


class CuttableProxy:
    """A TCP proxy to the database that the test can cut, as a network partition would."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.writers: list[asyncio.StreamWriter] = []
        self.server: asyncio.Server | None = None
        self.is_cut = False

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", 0)
        port: int = self.server.sockets[0].getsockname()[1]
        return port

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.writers.append(writer)
        upstream_reader, upstream_writer = await asyncio.open_connection(*self.target)
        self.writers.append(upstream_writer)
        if self.is_cut:  # cut while this connection was reaching the database: it must not slip through
            writer.transport.abort()
            upstream_writer.transport.abort()
            return

        async def copy(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()
            sink.close()

        await asyncio.gather(
            copy(reader, upstream_writer), copy(upstream_reader, writer), return_exceptions=True
        )

    def cut(self) -> None:
        assert self.server is not None
        self.is_cut = True
        self.server.close()
        for writer in self.writers:
            writer.transport.abort()


async def _health(address: str) -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        answer = await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=""))
        return answer.status


@postgresql_only
async def test_a_replica_that_loses_the_database_stops_taking_games_and_says_why(
    tmp_path: Path, db_url: str
) -> None:
    """ "a replica that loses the database stops taking games and says why in its health status"."""
    url = make_url(db_url)
    proxy = CuttableProxy(url.host or "127.0.0.1", url.port or 5432)
    proxied = url.set(host="127.0.0.1", port=await proxy.start()).render_as_string(hide_password=False)
    replicas = Replicas(tmp_path, db_url, 1)
    replicas.ports.append(free_port())
    replicas.metrics.append(free_port())
    replicas.db_url = proxied
    replicas.servers.append(replicas.start(1))
    try:
        await replicas.serving()
        assert await _health(replicas.address(1)) == health_pb2.HealthCheckResponse.SERVING
        proxy.cut()
        deadline = time.monotonic() + 20
        while await _health(replicas.address(1)) != health_pb2.HealthCheckResponse.NOT_SERVING:
            assert time.monotonic() < deadline, "the replica cut from its database still says SERVING"
            await asyncio.sleep(0.2)
        # The health status can turn before the cluster's own log line is written (the recorder's probe
        # may find the database gone first): wait for both lines.
        down = await _records_of(replicas.servers[1], "cluster_database_down", 1, 10)
        paused = await _records_of(replicas.servers[1], "seating_paused", 1, 10)
        assert await _health(replicas.address(0)) == health_pb2.HealthCheckResponse.SERVING, (
            "the other serves on"
        )
    finally:
        replicas.servers[1].process.kill()
        replicas.servers[1].process.wait(timeout=10)
        replicas.stop()
    assert down and "takes no new games" in str(down[0]["why"]), "the log says why"
    assert paused and "database" in str(paused[0]["why"])


async def _records_of(server: Serve, event: str, count: int, timeout: float) -> list[dict[str, object]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = [r for r in server.records() if r["event"] == event]
        if len(found) >= count:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {count} {event!r} lines: {server.log_path.read_text()[-3000:]}")


@postgresql_only
async def test_serve_processes_runs_replicas_on_one_port_and_restarts_a_dead_one(
    tmp_path: Path, db_url: str
) -> None:
    """ "`conquest serve --processes N` (or a config key) runs N replicas on one machine sharing the port"
    and "the parent supervises them (restarts a dead child, SIGTERM drains all)"."""
    tokens = register(db_url)
    port, metrics = free_port(), free_port()
    toml = CONFIG.format(
        port=port,
        metrics=metrics,
        replays=tmp_path / "replays",
        url=db_url,
        admin=ADMIN,
        turn_cap=12,
        grace_ms=0,
        reconnect_grace_ms=30000,
    ).replace('cluster = true\ncluster_token = "cluster-secret"\n', "")
    server = Serve(tmp_path, toml, args=("--processes", "2"))
    try:
        await _records_of(server, "serving", 2, 60)
        clients = [
            Client(SlowRandom(i), f"127.0.0.1:{port}", token=tokens[n], queues=["trio"], games=1)
            for i, n in enumerate(NAMES)
        ]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 120)
        started = await _records_of(server, "process_started", 2, 1)
        victim = int(str(started[1]["pid"]))
        os.kill(victim, signal.SIGKILL)
        died = await _records_of(server, "process_died", 1, 10)
        await _records_of(server, "process_started", 3, 10)
        await _records_of(server, "serving", 3, 60)
        children = [int(str(r["pid"])) for r in server.records() if r["event"] == "process_started"]
    finally:
        returncode = server.stop(timeout=60)
    assert returncode == 0, "SIGTERM drained every child and the parent"
    assert died[0]["pid"] == victim and died[0]["index"] == 1
    for pid in children:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    game_ids = {over.game_id for overs in results for over in overs}
    assert len(game_ids) == 1
    check_recorded(db_url, game_ids, [tmp_path / "replays" / f"process-{i}" for i in range(2)], 1)


def test_serve_processes_on_sqlite_says_it_needs_postgresql(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """ "SQLite stays the embedded default for one process; more than one needs PostgreSQL, and the error
    says so"."""
    config = tmp_path / "conquest.toml"
    config.write_text(f'[server]\ndatabase_url = "sqlite:///{tmp_path}/c.sqlite3"\n')
    assert main(["serve", "--config", str(config), "--processes", "3"]) == 2
    error = capsys.readouterr().err
    assert "server.processes = 3 needs PostgreSQL" in error and "postgresql+psycopg://" in error


async def _relay_connection(port: int, unix: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to a relay: at its TCP ``port``, or at its abstract Unix socket ``unix`` (connected
    here: uvloop's own connect takes no abstract name)."""
    if not unix:
        return await asyncio.open_connection("127.0.0.1", port)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, unix)
    return await asyncio.open_unix_connection(sock=sock)


@pytest.mark.parametrize("over", ["tcp", "unix"])
async def test_the_relay_refuses_a_stream_without_the_cluster_token(
    tmp_path: Path, over: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "Guard the internal service (a shared cluster secret ...); a bot calling it is refused with an
    actionable error". A relay connection without the right token, on the relay's TCP port or its Unix
    socket, is told why, closed, and counted; a bot dialling the relay port with gRPC gets no service
    there."""
    # every refusal logged here (how often they are logged: tests/server/test_server_relay_log.py)
    monkeypatch.setattr(relay_link, "REFUSAL_LOG_S", 0.0)
    lobby = build_lobby(ServerConfig(database_url="", replay_dir=tmp_path), None)
    relay = Relay(lobby, f"me-{secrets.token_hex(4)}", "cluster-secret")
    server = await relay.listen(0)
    port = server.port
    unix = relay_link.local_name(relay.replica) if over == "unix" else ""
    try:
        for token in ("", "guess"):
            reader, writer = await _relay_connection(port, unix)
            hello = relay_pb2.RelayRequest(hello=relay_pb2.RelayHello(replica="bot", cluster_token=token))
            writer.write(relay_wire.message([hello.SerializeToString()]))
            size = int.from_bytes(await reader.readexactly(4), "big")
            refused = relay_pb2.RelayResponse.FromString(await reader.readexactly(size)).connection_refused
            assert "server.cluster_token" in refused
            assert "bots connect to BotService.Connect" in refused
            assert await reader.read() == b"", "then the connection is closed"
            writer.close()
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            with pytest.raises(grpc.aio.AioRpcError) as failed:
                await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
            assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
        # Issue 33, item 6: "An unauthenticated relay peer's 4 KB replica name is logged whole"
        reader, writer = await _relay_connection(port, unix)
        hello = relay_pb2.RelayRequest(hello=relay_pb2.RelayHello(replica="r" * 4000, cluster_token="guess"))
        with capture_logs() as logged:
            writer.write(relay_wire.message([hello.SerializeToString()]))
            assert await reader.read(), "refused"
        writer.close()
        [refusal] = [line for line in logged if line["event"] == "relay_refused"]
        assert len(refusal["why"]) < 150 and "(4000 characters)" in refusal["why"], refusal
        refusals = lobby.metrics.streams_cut.labels("relay_refused")._value.get()
        assert refusals == 4, "each refused connection is counted"
        assert not relay.links, "no link came of them"
    finally:
        server.close()


@postgresql_only
async def test_a_challenge_seats_bots_connected_to_three_replicas(tmp_path: Path, db_url: str) -> None:
    """ "a challenge or tournament table (server/play/lobby.py `Appointment`, arena) must seat bots
    connected to any replica; put appointments in the shared store too, matched by the lease holder"."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3)
    try:
        await replicas.serving()
        clients = [
            Client(SlowRandom(i), replicas.address(i), token=tokens[n], games=1) for i, n in enumerate(NAMES)
        ]
        playing = asyncio.gather(*(c.run() for c in clients))
        reply = await _challenge(replicas.address(0))
        results = await asyncio.wait_for(playing, 60)
    finally:
        replicas.stop()
    game_ids = {over.game_id for overs in results for over in overs}
    assert len(game_ids) == 1 and all(len(overs) == 1 for overs in results), "one game, all three seated"
    with Store.open(db_url) as store:
        (game,) = store.games()
        assert game.queue == reply.queue and not game.rated
        assert [s.name for s in game.seats] == list(NAMES), "the challenge's seat order"
    assert (tmp_path / "r0" / "replays" / f"{game.id}.json").exists(), "hosted by the replica that made it"


async def _challenge(address: str) -> arena_pb2.CreateChallengeResponse:
    """A one-game challenge of ``NAMES`` on queue trio, made through the replica at ``address``."""
    async with grpc.aio.insecure_channel(address) as channel:
        deadline = time.monotonic() + 20
        while True:  # once the replica knows every bot is connected somewhere
            try:
                return await arena_pb2_grpc.ArenaServiceStub(channel).CreateChallenge(
                    arena_pb2.CreateChallengeRequest(bots=list(NAMES), queue="trio", games=1),
                    metadata=(("authorization", f"Bearer {ADMIN}"),),
                )
            except grpc.aio.AioRpcError as refused:
                assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION and time.monotonic() < deadline
                await asyncio.sleep(0.2)


@postgresql_only
async def test_a_challenge_taken_over_from_a_killed_host_stays_unrated(tmp_path: Path, db_url: str) -> None:
    """Issue 20's review: "a challenge on a configured queue that is taken over is replayed as rated ... A
    challenge game must stay unrated ... through a takeover": its host killed mid-game, the challenge's
    game finishes on another replica, recorded unrated; no rating moved."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3, turn_cap=25)
    try:
        ids = await replicas.serving()
        clients = [
            Client(SlowRandom(i, 0.015), replicas.address(i), token=tokens[n], games=1, max_backoff_s=0.5)
            for i, n in enumerate(NAMES)
        ]
        playing = asyncio.gather(*(c.run() for c in clients))
        await _challenge(replicas.address(0))
        game_id, host = await hosted(db_url, actions=40, timeout=60)
        killed = ids.index(host)
        replicas.servers[killed].process.kill()
        replicas.servers[killed].process.wait(timeout=10)
        replicas.servers.append(replicas.start(killed, "restarted"))
        results = await asyncio.wait_for(playing, 120)
        taken = [r for s in replicas.servers for r in records_of_log(s) if r["event"] == "game_taken_over"]
    finally:
        replicas.stop()
    assert [r["game_id"] for r in taken] == [game_id], "taken over once"
    assert all([over.game_id for over in overs] == [game_id] for overs in results), "it finished for all"
    with Store.open(db_url) as store:
        (game,) = store.games()
        assert game.id == game_id and not game.rated, "the challenge's game stayed unrated"
        assert store.leaderboard("trio") == [], "no rating moved"
