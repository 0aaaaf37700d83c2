"""A server with a database on port 0, and a bot that plays whole games over gRPC with random actions."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from raw_client import RawBot

from conquest.v1 import arena_pb2_grpc, bot_pb2
from engine import preset
from server.app import build_lobby, create_server
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.storage import Store

ADMIN = "arena-admin-token-for-tests"
QUEUE = "classic-2"
CONTROL = TimeControl(
    decision_ms=5000,
    first_decision_ms=5000,
    initial_timebank_ms=0,
    increment_ms=0,
    max_timebank_ms=0,
    max_strikes=3,
    reconnect_grace_ms=5000,
)
QUEUES = (
    QueueConfig(QUEUE, preset("classic_two_player", turn_cap=12), 2, CONTROL),
    QueueConfig("classic-long-2", preset("classic_two_player", turn_cap=40), 2, CONTROL),
)


@dataclass
class ArenaServer:
    """A started server over ``db_url``; ``stop()`` ends it and closes its store."""

    db_url: str
    replay_dir: Path
    admin_token: str = ADMIN
    port: int = 0
    store: Store | None = None
    lobby: Lobby | None = None
    server: grpc.aio.Server | None = None
    channels: list[grpc.aio.Channel] = field(default_factory=list)
    stopped: bool = False

    async def start(self) -> ArenaServer:
        config = ServerConfig(
            replay_dir=self.replay_dir,
            queues=QUEUES,
            metrics_port=0,
            database_url=self.db_url,
            admin_token=self.admin_token,
        )
        self.store = Store.open(self.db_url, admin_token=self.admin_token or None)
        self.lobby = build_lobby(config, self.store)
        self.server, self.port = create_server(config, "localhost:0", self.lobby, self.store)
        await self.server.start()
        return self

    @property
    def address(self) -> str:
        return f"localhost:{self.port}"

    def arena(self) -> arena_pb2_grpc.ArenaServiceStub:
        channel = grpc.aio.insecure_channel(self.address)
        self.channels.append(channel)
        return arena_pb2_grpc.ArenaServiceStub(channel)

    async def stop(self) -> None:
        for channel in self.channels:
            await channel.close()
        assert self.server is not None and self.store is not None and self.lobby is not None
        await self.lobby.shutdown(0)
        await self.server.stop(grace=None)
        self.store.close()
        self.stopped = True


class Player(RawBot):
    """A registered (token) or practice (name) bot that plays one game at a time with random legal
    actions; ``log`` holds every message received."""

    def __init__(self, port: int, *, token: str = "", name: str = "", seed: int = 0) -> None:
        super().__init__(port)
        self.token = token
        self.name = name
        self.rng = random.Random(seed)

    async def connect(self) -> bot_pb2.ConnectResponse:
        """Hello; the server's first answer (Welcome or Error)."""
        return await self.hello(self.name, token=self.token)

    async def join_one_game(self, queue: str = QUEUE) -> bot_pb2.GameStarted:
        """Join ``queue``, wait to be seated, and leave it so that no second game starts; ``play``
        answers the requests."""
        await self.join(queue)
        started = (await self.expect("game_started", timeout=20)).game_started
        self.send(leave_queue=bot_pb2.LeaveQueue(queue=queue))
        return started

    async def play(self) -> bot_pb2.GameOver:
        """Answer requests until GameOver."""
        return await self.play_until_over(self.rng)


async def play_game(port: int, tokens: list[str], queue: str = QUEUE) -> bot_pb2.GameOver:
    """The registered bots with these tokens play one game of ``queue`` to the end."""
    players = [Player(port, token=t, seed=i) for i, t in enumerate(tokens)]
    try:
        for player in players:
            assert (await player.connect()).WhichOneof("message") == "welcome"
        await asyncio.gather(*(p.join_one_game(queue) for p in players))
        overs = await asyncio.gather(*(p.play() for p in players))
    finally:
        for player in players:
            await player.close()
    assert all(o == overs[0] for o in overs)
    return overs[0]


def admin(token: str = ADMIN) -> tuple[tuple[str, str]]:
    """Request metadata carrying an admin token."""
    return (("authorization", f"Bearer {token}"),)
