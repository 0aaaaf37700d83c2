"""The gRPC server: a thin BotService servicer over the Lobby, plus health checking and reflection.

``create_server(config, address)`` returns the server and its bound port, so tests bind ``[::]:0`` and
talk to it over a real channel. ``serve(config)`` runs until SIGTERM or SIGINT, then shuts down cleanly.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import AsyncIterator

import grpc
import structlog
from grpc_health.v1 import health, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from conquest.v1 import bot_pb2, bot_pb2_grpc
from server.config import ServerConfig
from server.lobby import Lobby
from server.replays import DirectoryReplayWriter
from server.session import Session

SERVICE_NAME = bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name
log = structlog.get_logger("conquest.server")


class BotService(bot_pb2_grpc.BotServiceServicer):
    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby

    async def Connect(
        self,
        request_iterator: AsyncIterator[bot_pb2.ConnectRequest],
        context: grpc.aio.ServicerContext[bot_pb2.ConnectRequest, bot_pb2.ConnectResponse],
    ) -> AsyncIterator[bot_pb2.ConnectResponse]:
        requests = aiter(request_iterator)
        opened = self.lobby.open_session(await anext(requests, None))
        if isinstance(opened, bot_pb2.Error):
            yield bot_pb2.ConnectResponse(error=opened)
            return
        reader = asyncio.create_task(self._read(opened, requests))
        try:
            while (message := await opened.outbox.get()) is not None:
                yield message
        finally:
            reader.cancel()
            self.lobby.close_session(opened)

    async def _read(self, session: Session, requests: AsyncIterator[bot_pb2.ConnectRequest]) -> None:
        try:
            async for request in requests:
                self.lobby.handle(session, request, time.monotonic())
        except grpc.aio.AioRpcError:
            pass  # the client went away; the stream's end is handled below
        finally:
            session.close()


def create_server(
    config: ServerConfig, address: str = "[::]:0", lobby: Lobby | None = None
) -> tuple[grpc.aio.Server, int]:
    """A grpc.aio server with BotService, health and reflection, bound to ``address`` (not started).

    Returns the server and the bound port (useful with port 0).
    """
    server, port, _ = _build(config, address, lobby or _lobby(config))
    return server, port


def _lobby(config: ServerConfig) -> Lobby:
    return Lobby(config, DirectoryReplayWriter(config.replay_dir))


def _build(
    config: ServerConfig, address: str, lobby: Lobby
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    server = grpc.aio.server()
    bot_pb2_grpc.add_BotServiceServicer_to_server(BotService(lobby), server)
    health_servicer = health.aio.HealthServicer()  # the overall status "" starts SERVING
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection((SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server)
    port = server.add_insecure_port(address)
    if port == 0:
        raise OSError(f"cannot listen on {address}")
    return server, port, health_servicer


async def serve(config: ServerConfig) -> None:
    """Run until SIGTERM or SIGINT; then stop seating bots, give in-flight games
    ``config.shutdown_grace_ms`` to finish, end and record the rest, and stop."""
    lobby = _lobby(config)
    server, port, health_servicer = _build(config, config.address, lobby)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    metrics_http = lobby.metrics.serve(config.metrics_port) if config.metrics_port else None
    await server.start()
    log.info(
        "serving",
        address=config.address,
        port=port,
        metrics_port=config.metrics_port or None,
        queues=[q.name for q in config.queues],
    )
    await stop.wait()
    log.info("shutting_down", games=len(lobby.runners), grace_ms=config.shutdown_grace_ms)
    await health_servicer.enter_graceful_shutdown()
    await lobby.shutdown(config.shutdown_grace_ms / 1000)
    await server.stop(grace=1.0)
    if metrics_http is not None:
        metrics_http.shutdown()
    log.info("stopped")
