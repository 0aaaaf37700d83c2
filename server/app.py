"""The gRPC server: a thin BotService servicer over the Lobby, the ArenaService, health and reflection.

``create_server(config, address)`` returns the server and its bound port, so tests bind ``[::]:0`` and
talk to it over a real channel. ``serve(config, store)`` runs until SIGTERM or SIGINT, then shuts down
cleanly. With a store (``open_store``), registered bots play rated games, and every game is recorded in the
database (result, ratings and replay in one transaction) as well as in a replay file.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import secrets
import signal
import socket
from collections.abc import AsyncIterator, Callable, MutableMapping

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from conquest.v1 import arena_pb2_grpc, bot_pb2
from server.arena import service as arena_service
from server.arena.api import Arena
from server.ops.calls import MAX_REQUEST_BYTES, CallGuard, cut_off, log_failure, unread
from server.ops.config import ConfigError, QueueConfig, ServerConfig
from server.ops.metrics import Metrics
from server.ops.ratelimit import RateLimit
from server.play.admission import Refused
from server.play.cluster import Cluster
from server.play.drain import hand_over, others_alive
from server.play.lobby import Lobby
from server.play.mailbox import deliver
from server.play.recorder import Recorder
from server.play.refusals import flooded
from server.play.relay import Relay
from server.play.relay_link import Listening
from server.play.replays import DatabaseReplayWriter
from server.play.session import Outgoing, Session
from server.play.stream import read_stream, serialize_response
from server.play.takeover import Takeover, abandon
from server.storage import Store
from server.storage.auth import StoreAuthenticator, StoreRatings
from server.web.limits import WebLimits
from server.web.live import FEED_BURST, FEED_RATE, FEED_STREAMS
from server.web.process import DashboardProcess, Settings, play_address

UNREAD_FLUSH_S = 5.0
"""A bot stream whose reading ended (or was cut) has this long to take what is left to it."""
SERVICE_NAME = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
CONNECT_METHOD = f"/{SERVICE_NAME}/Connect"
log = structlog.get_logger("conquest.server")


class Health(health.aio.HealthServicer):
    """grpc.health.v1.Health for the server as a whole (service "") and for each of its services
    (conquest.v1.BotService, conquest.v1.ArenaService): every one SERVING from the start, NOT_SERVING
    while finished games cannot all be kept as they end (the database or replay_dir does not take them:
    ``serving``) and for good once draining
    (``enter_graceful_shutdown``, the base class's)."""

    _server_status: MutableMapping[str, int]
    """The base class's status of each service name (its type stubs leave it out)."""

    def __init__(self) -> None:
        super().__init__()  # "" starts SERVING
        self.services = ("", SERVICE_NAME, arena_service.SERVICE_NAME)
        for name in self.services:  # set before the server starts: ``set`` is a coroutine
            self._server_status[name] = health_pb2.HealthCheckResponse.SERVING

    async def serving(self, up: bool) -> None:
        """Every service SERVING (``up``) or NOT_SERVING; no change once draining."""
        status = health_pb2.HealthCheckResponse.SERVING if up else health_pb2.HealthCheckResponse.NOT_SERVING
        for name in self.services:
            await self.set(name, status)


class BotService:
    """conquest.v1.BotService (registered by ``add_bot_service``)."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self.admission = lobby.admission

    async def Connect(
        self,
        request_iterator: AsyncIterator[bot_pb2.ConnectRequest],
        context: grpc.aio.ServicerContext[bot_pb2.ConnectRequest, Outgoing],
    ) -> None:
        try:
            with self.admission.stream(context.peer()):
                await self._play(aiter(request_iterator), context)
        except Refused as refused:
            self.lobby.metrics.streams_cut.labels(refused.code).inc()
            await _refuse(context, bot_pb2.Error(code=refused.code, message=str(refused), fatal=True))

    async def _play(
        self,
        requests: AsyncIterator[bot_pb2.ConnectRequest],
        context: grpc.aio.ServicerContext[bot_pb2.ConnectRequest, Outgoing],
    ) -> None:
        opened = self.lobby.open_session(await self.admission.hello(anext(requests, None)))
        if isinstance(opened, bot_pb2.Error):
            await _refuse(context, opened)
            return
        reader = asyncio.create_task(self._read(opened, requests))
        try:
            # Written with context.write (gRPC's reader/writer API), not by an async generator that gRPC
            # iterates: one hop less per message sent.
            delivered = await deliver(opened.outbox, context.write, reader, UNREAD_FLUSH_S)
        finally:
            reader.cancel()
            self.lobby.close_session(opened)
        if not delivered:
            self.lobby.metrics.streams_cut.labels("unread").inc()
            await cut_off(context, unread(self.lobby.config))

    async def _read(self, session: Session, requests: AsyncIterator[bot_pb2.ConnectRequest]) -> None:
        try:
            rate, metrics = self.lobby.config.session_message_rate, self.lobby.metrics
            await read_stream(
                requests,
                session,
                self.lobby.classic_runners,
                self.lobby.handle,
                rate,
                lambda flooding, dropped: flooded(flooding, dropped, rate, metrics),
            )
        except grpc.aio.AioRpcError:
            pass  # the client went away; the stream's end is handled below
        except Exception:  # a fault of the server's, in this task of the call: logged with the call
            log_failure(CONNECT_METHOD)
            session.error(
                "internal", "the server failed on this stream (logged as call_failed): reconnect", True
            )
        finally:
            session.close()


async def _refuse(
    context: grpc.aio.ServicerContext[bot_pb2.ConnectRequest, Outgoing], error: bot_pb2.Error
) -> None:
    """Answer a stream the server does not take with its fatal ``error``; a client that does not read it
    within a second is not waited for."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(context.write(bot_pb2.ConnectResponse(error=error)), 1.0)


def add_bot_service(servicer: BotService, server: grpc.aio.Server) -> None:
    """``bot_pb2_grpc.add_BotServiceServicer_to_server`` with ``serialize_response`` for the stream."""
    handlers = {
        "Connect": grpc.stream_stream_rpc_method_handler(
            servicer.Connect,
            request_deserializer=bot_pb2.ConnectRequest.FromString,
            response_serializer=serialize_response,
        )
    }
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)


def open_store(config: ServerConfig) -> Store | None:
    """The store at ``config.database_url``, migrated to the latest schema; None when the URL is empty.

    Raises:
        ConfigError: a URL that is not a database URL, or a database that cannot be reached.
    """
    if not config.database_url:
        return None
    try:
        shown = make_url(config.database_url).render_as_string(hide_password=True)
    except SQLAlchemyError:
        raise ConfigError(
            f"server.database_url = {config.database_url!r} is not a database URL: use "
            "sqlite:///path/to/conquest.sqlite3 or postgresql+psycopg://user:password@host:5432/conquest"
        ) from None
    try:
        return Store.open(config.database_url, admin_token=config.admin_token or None)
    except SQLAlchemyError as bad:
        raise ConfigError(
            f"server.database_url: cannot open the database {shown}: {getattr(bad, 'orig', None) or bad}"
        ) from None


def create_server(
    config: ServerConfig, address: str = "[::]:0", lobby: Lobby | None = None, store: Store | None = None
) -> tuple[grpc.aio.Server, int]:
    """A grpc.aio server with BotService, ArenaService, health and reflection, bound to ``address`` (not
    started). ``store``: the database of bots, ratings and games (None: practice play and replay files).

    Returns the server and the bound port (useful with port 0).
    """
    server, port, _, _ = build_server(config, address, lobby or build_lobby(config, store), store)
    return server, port


def build_lobby(config: ServerConfig, store: Store | None) -> Lobby:
    """The lobby of a server: with a store, registered bots (and practice names if allowed) play, and
    games are written to replay files and to the database (kept pending in the files while it does not
    take them: ``server.play.recorder``); without one, practice play and files. ``start_recorder`` starts
    what keeps those records.

    The one place play's Protocols (``server.play.ports``) are given their implementations over the store.
    """
    metrics = Metrics()
    if store is None:
        lobby = Lobby(config, Recorder(config.replay_dir, None, metrics), metrics=metrics)
    else:
        action_log = store if config.takeover else None
        replica = f"{socket.gethostname()[:40]}-{os.getpid()}-{secrets.token_hex(4)}" if action_log else ""
        lobby = Lobby(
            config,
            Recorder(config.replay_dir, DatabaseReplayWriter(store, metrics), metrics, action_log, replica),
            StoreAuthenticator(store, allow_practice=config.practice),
            metrics,
            StoreRatings(store),
        )
    assert isinstance(lobby.writer, Recorder)
    lobby.on_game_start = lobby.writer.started
    lobby.writer.on_handed_over = functools.partial(abandon, lobby)
    lobby.writer.on_down = lobby.pause
    return lobby


async def start_recorder(lobby: Lobby, health_servicer: Health) -> asyncio.Task[None] | None:
    """Before the server takes bots: record the games a crash left live as aborted and load the results
    still pending; then run the task that keeps running games' records and retries pending results. While
    the database does not take results, or replay_dir takes no file, health says NOT_SERVING (for the server
    and each service) and the lobby seats no new games.

    Returns the task (cancel it once the lobby has shut down), or None for a lobby without a Recorder.
    """
    recorder = lobby.writer
    if not isinstance(recorder, Recorder):
        return None
    aborted = await asyncio.to_thread(recorder.recover)
    if aborted or recorder.pending():
        log.info("recovered", aborted=aborted, pending=len(recorder.pending()))

    async def durability_changed(up: bool) -> None:
        if up:
            lobby.resume()
        if lobby.accepting:  # while draining, health stays NOT_SERVING
            await health_servicer.serving(up)

    return asyncio.create_task(recorder.run(durability_changed), name="recorder")


async def start_takeover(
    config: ServerConfig,
    lobby: Lobby,
    cluster: Cluster | None = None,
    queue_of: Callable[[str, int], QueueConfig | None] | None = None,
) -> tuple[Takeover, asyncio.Task[None]] | None:
    """With ``server.takeover``: before the server takes bots, beat in the replica registry and take over
    the games of the servers presumed dead (``Takeover.start``; with ``cluster``, their seats whose bots
    are connected to other replicas are re-attached through the relay); then the task that goes on doing
    so. ``queue_of``: the queues of games not configured here (tournaments'). None without takeover."""
    recorder = lobby.writer
    if not isinstance(recorder, Recorder) or recorder.action_log is None:
        return None
    takeover = Takeover(
        lobby,
        recorder,
        recorder.action_log,
        recorder.replica,
        config.replica_heartbeat_ms / 1000,
        config.replica_timeout_ms / 1000,
    )
    if queue_of is not None:
        takeover.queue_of = queue_of
    if cluster is not None:
        takeover.on_adopted = cluster.adopt
        cluster.presumed_dead = lambda: takeover.dead
        cluster.alive = lambda: takeover.alive
    await takeover.start()
    return takeover, asyncio.create_task(takeover.run(), name="takeover")


async def start_cluster(
    config: ServerConfig, lobby: Lobby, store: Store, health_servicer: Health
) -> tuple[Cluster, Listening]:
    """With ``server.cluster``: this replica's relay listening on ``relay_port``, and its side of
    the shared queues, set as the lobby's (``run`` and ``write`` are started once the takeover watches the
    replicas). While the cluster's database does not answer, the lobby seats nothing and health says
    NOT_SERVING."""
    recorder = lobby.writer
    assert isinstance(recorder, Recorder)
    relay = Relay(lobby, recorder.replica, config.cluster_token)
    relay_server = await relay.listen(config.relay_port)
    relay_port = relay_server.port
    host = config.advertise_host or socket.gethostbyname(socket.gethostname())
    cluster = Cluster(
        lobby,
        store,
        relay,
        f"{host}:{relay_port}",
        config.replica_heartbeat_ms / 1000,
        config.replica_timeout_ms / 1000,
    )

    def database(why: str) -> None:
        if why:
            lobby.pause(why)
        elif recorder.up:
            lobby.resume()
        if lobby.accepting:
            asyncio.get_running_loop().create_task(health_servicer.serving(not why and recorder.up))

    cluster.on_database = database
    lobby.shared = cluster
    lobby.news.elsewhere = lambda queue: cluster.view.waiting_elsewhere(queue)
    return cluster, relay_server


def build_server(
    config: ServerConfig, address: str, lobby: Lobby, store: Store | None, dashboard_token: str = ""
) -> tuple[grpc.aio.Server, int, Health, Arena]:
    """The gRPC server, its port, its health servicer and the Arena its ArenaService reads through (a
    second Arena over the same lobby would run a second tournament director and seat a resumed
    tournament's tables twice). ``dashboard_token``: the secret of the dashboard process to be started
    (``start_web``), whose Arena calls are then counted under limits of their own ("": no dashboard)."""
    server = grpc.aio.server(
        interceptors=[CallGuard()],
        # replicas of one cluster on one machine share the bots' port (``conquest serve --processes``)
        options=[
            ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
            ("grpc.so_reuseport", int(config.cluster)),
        ],
    )
    add_bot_service(BotService(lobby), server)
    arena = Arena(lobby, store)
    dashboard = (
        arena_service.DashboardClient(dashboard_token, RateLimit(FEED_RATE, FEED_BURST), FEED_STREAMS)
        if dashboard_token
        else None
    )
    arena_pb2_grpc.add_ArenaServiceServicer_to_server(
        arena_service.ArenaService(arena, dashboard=dashboard), server
    )
    health_servicer = Health()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    services = (SERVICE_NAME, arena_service.SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME)
    reflection.enable_server_reflection(services, server)
    try:
        port = server.add_insecure_port(address)
    except RuntimeError:  # grpc's "Failed to bind to address ...; set GRPC_VERBOSITY=debug ..."
        port = 0
    if port == 0:
        raise OSError(
            f"cannot listen on {address}: another process holds that port, or the host is not one of this "
            "machine's addresses; choose another address (--address host:port)"
        )
    return server, port, health_servicer, arena


def dashboard_secret(config: ServerConfig) -> str:
    """A new secret for the dashboard process to show with its Arena calls ("" without a dashboard): made at
    each start and handed to it with its settings, so that no other client can have it."""
    return secrets.token_urlsafe(32) if config.dashboard_port else ""


async def start_web(
    config: ServerConfig, port: int, store: Store | None, metrics: Metrics, dashboard_token: str = ""
) -> DashboardProcess:
    """The web dashboard of the game server on gRPC ``port``, in a process of its own listening on
    ``config.dashboard_port``, restarted (and counted in ``metrics``) if it dies. ``dashboard_token``: the
    secret its calls show (``build_server``'s), handed to it with its settings.

    Raises:
        OSError: it could not listen on that port (the message says why).
    """
    web = DashboardProcess(
        Settings(
            port=config.dashboard_port,
            play_address=play_address(config.address, port),
            play_token=dashboard_token,
            database_url=store.url if store is not None else "",
            queues=tuple(q.name for q in config.queues),
            log_format=config.log_format,
            web_limits=WebLimits(
                client_watches=config.dashboard_client_watch_limit,
                client_connections=config.dashboard_client_connection_limit,
                connections=config.dashboard_connection_limit,
                request_timeout_s=config.dashboard_request_timeout_ms / 1000,
                send_timeout_s=config.dashboard_send_timeout_ms / 1000,
            ),
        ),
        metrics.dashboard_restarts.inc,
    )
    await web.start()
    return web


async def serve(config: ServerConfig, store: Store | None = None) -> None:
    """Run until SIGTERM or SIGINT; then stop seating bots, hand the running games to the other replicas
    of the cluster (``server.play.drain``: on SIGTERM, with ``server.cluster`` and another replica
    alive), give the games left ``config.shutdown_grace_ms`` to finish, end and record the rest, and
    stop."""
    lobby = build_lobby(config, store)
    dashboard_token = dashboard_secret(config)
    server, port, health_servicer, arena = build_server(config, config.address, lobby, store, dashboard_token)
    stop = asyncio.Event()
    signals: list[signal.Signals] = []

    def stopping(signum: signal.Signals) -> None:
        signals.append(signum)
        stop.set()

    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stopping, signum)
    metrics_http = lobby.metrics.serve(config.metrics_port) if config.metrics_port else None
    dashboard = (
        await start_web(config, port, store, lobby.metrics, dashboard_token)
        if config.dashboard_port
        else None
    )
    recording = await start_recorder(lobby, health_servicer)
    cluster = await start_cluster(config, lobby, store, health_servicer) if config.cluster and store else None
    queue_of = arena.director.queue if arena.director is not None else None
    takeover = await start_takeover(config, lobby, cluster[0] if cluster else None, queue_of)
    clustering: list[asyncio.Task[None]] = []
    if cluster is not None:
        arena.cluster = cluster[0]
        await cluster[0].start()
        clustering = [asyncio.create_task(cluster[0].write()), asyncio.create_task(cluster[0].run())]
        if arena.director is not None:  # the tournaments are directed by the matchmaker lease's holder
            holder = cluster[0]
            arena.director.directs = lambda: holder.term > 0
            direct = arena.director.direct(config.replica_heartbeat_ms / 1000)
            clustering.append(asyncio.create_task(direct))
    await server.start()
    log.info(
        "serving",
        address=config.address,
        port=port,
        metrics_port=config.metrics_port or None,
        dashboard=dashboard.url if dashboard else None,
        database=make_url(config.database_url).render_as_string(hide_password=True) if store else None,
        queues=[q.name for q in config.queues],
        event_loop=type(loop).__module__.split(".")[0],  # "uvloop" (server/ops/runtime.py), else "asyncio"
        replica=takeover[0].replica if takeover else None,
        relay=cluster[0].address if cluster else None,
    )
    await stop.wait()
    # SIGTERM (a rolling update, a scale-down) hands the games over; SIGINT stops this replica the
    # single-server way, as when every replica stops at once (``conquest serve --processes``'s parent)
    handing_over = (
        signals[0] == signal.SIGTERM
        and cluster is not None
        and takeover is not None
        and others_alive(takeover[0])
    )
    log.info(
        "shutting_down",
        games=len(lobby.runners),
        grace_ms=config.shutdown_grace_ms,
        hand_over=handing_over,
    )
    await health_servicer.enter_graceful_shutdown()
    if cluster is not None and takeover is not None and handing_over:
        await hand_over(lobby, cluster[0], [takeover[1], *clustering[1:]])  # the queued writes go on
    await lobby.shutdown(config.shutdown_grace_ms / 1000)
    if cluster is not None:
        await cluster[0].flushed(5.0)
        for task in clustering:
            task.cancel()
        cluster[0].relay.stop()
        cluster[1].close()
        await asyncio.to_thread(cluster[0].stop)
    if takeover is not None:
        takeover[1].cancel()
        await asyncio.to_thread(takeover[0].stop)
    if recording is not None:  # results still pending stay in replay_dir for the next start
        recording.cancel()
    if dashboard is not None:  # after the games: their spectators' streams have ended
        await dashboard.stop()
    await server.stop(grace=1.0)
    if metrics_http is not None:
        metrics_http.shutdown()
    log.info("stopped")
