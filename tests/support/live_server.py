"""``serving(queues, replay_dir, ...)``: a real Conquest server in the test's own process, on a free port.

The one way tests start a server. It is wired by ``server.app``'s builders, as ``conquest serve`` wires it:
without ``database_url``, practice play with replay files; with one, registered bots, ratings and games in
that database too; with ``dashboard=True``, the web dashboard (in the test's process).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
from raw_client import RawBot

from conquest.v1 import arena_pb2_grpc
from server.app import build_lobby, build_server, open_store, start_recorder, start_takeover
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.play.takeover import Takeover
from server.storage import Store
from server.web.dashboard import RunningDashboard, start_dashboard
from server.web.live import LiveFeed


def no_timebank(decision_ms: int, *, reconnect_grace_ms: int = 5000, max_strikes: int = 3) -> TimeControl:
    """A clock that gives every decision, the first too, ``decision_ms`` and nothing more: what a slow
    reply costs does not depend on what the seat saved before."""
    return TimeControl(
        decision_ms=decision_ms,
        first_decision_ms=decision_ms,
        initial_timebank_ms=0,
        increment_ms=0,
        max_timebank_ms=0,
        max_strikes=max_strikes,
        reconnect_grace_ms=reconnect_grace_ms,
    )


@dataclasses.dataclass
class LiveServer:
    """A started server; the clients it hands out (``bot()``, ``arena()``) are closed when it stops."""

    port: int
    lobby: Lobby
    replay_dir: Path
    store: Store | None
    dashboard: RunningDashboard | None
    grpc_server: grpc.aio.Server
    recording: asyncio.Task[None] | None = None
    """The Recorder's task (``server.app.start_recorder``): live records, pending results, health."""
    takeover: tuple[Takeover, asyncio.Task[None]] | None = None
    """With ``takeover=True``: its heartbeat, which logs the running games (``server.app.start_takeover``)."""
    dashboard_token: str = ""
    """The secret its ArenaService knows the dashboard's calls by ("": none)."""
    _bots: list[RawBot] = dataclasses.field(default_factory=list)
    _channels: list[grpc.aio.Channel] = dataclasses.field(default_factory=list)
    stopped: bool = False

    @property
    def address(self) -> str:
        return f"localhost:{self.port}"

    def bot(self) -> RawBot:
        """A raw bot connected to this server."""
        bot = RawBot(self.port)
        self._bots.append(bot)
        return bot

    def arena(self) -> arena_pb2_grpc.ArenaServiceStub:
        """A client of this server's Arena API."""
        channel = grpc.aio.insecure_channel(self.address)
        self._channels.append(channel)
        return arena_pb2_grpc.ArenaServiceStub(channel)

    async def stop(self) -> None:
        """Close its clients, end its games at once, stop serving and close its database; a second call
        does nothing (a test may stop a server to restart it on the same database)."""
        if self.stopped:
            return
        self.stopped = True
        for bot in self._bots:
            await bot.close()
        for channel in self._channels:
            await channel.close()
        await self.lobby.shutdown(0)
        if self.takeover is not None:
            self.takeover[1].cancel()
            await asyncio.to_thread(self.takeover[0].stop)
        if self.recording is not None:
            self.recording.cancel()
        if self.dashboard is not None:  # after the games: their spectators' streams have ended
            await self.dashboard.stop()
        await self.grpc_server.stop(grace=None)
        if self.store is not None:
            self.store.close()


@asynccontextmanager
async def serving(
    queues: Sequence[QueueConfig],
    replay_dir: Path,
    *,
    database_url: str = "",
    admin_token: str = "",
    dashboard: bool = False,
    dashboard_token: str = "",
    **settings: Any,
) -> AsyncIterator[LiveServer]:
    """A server on ``localhost:0`` playing ``queues``, replays written to ``replay_dir``; its database
    (migrated on opening) at ``database_url`` ("" for none), ``admin_token`` for the Arena's admin calls
    ("" refuses them), the dashboard on a free port of 127.0.0.1 when asked (its calls showing
    ``dashboard_token``, one made up if none is given), ``dashboard_token`` for a dashboard the test starts
    itself, and any other ``ServerConfig`` field in ``settings`` (``send_queue_limit=50``). Stopped (with
    its clients) when the block ends, unless the test stopped it first."""
    config = ServerConfig(
        replay_dir=replay_dir,
        queues=tuple(queues),
        metrics_port=0,
        dashboard_port=0,
        database_url=database_url,
        admin_token=admin_token,
        **settings,
    )
    store = open_store(config)
    lobby = build_lobby(config, store)
    if dashboard and not dashboard_token:
        dashboard_token = secrets.token_urlsafe(32)
    grpc_server, port, health_servicer, arena = build_server(
        config, "localhost:0", lobby, store, dashboard_token
    )
    recording = await start_recorder(lobby, health_servicer)
    takeover = await start_takeover(config, lobby)
    await grpc_server.start()
    # The dashboard's code as its process runs it (server.web.process), here in the test's process: the
    # server's own Arena for the records (a second one would run a second tournament director), the live
    # games over gRPC.
    web = (
        await start_dashboard(
            arena, LiveFeed(f"localhost:{port}", token=dashboard_token), 0, host="127.0.0.1"
        )
        if dashboard
        else None
    )
    server = LiveServer(
        port, lobby, replay_dir, store, web, grpc_server, recording, takeover, dashboard_token
    )
    try:
        yield server
    finally:
        await server.stop()
