"""A server with a database on port 0, and the smallest bot client that plays whole games over gRPC."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field
from pathlib import Path

import grpc

from conquest.v1 import arena_pb2_grpc, bot_pb2, bot_pb2_grpc
from engine import preset, random_legal_action
from server.app import build_lobby, create_server
from server.config import QueueConfig, ServerConfig, TimeControl
from server.lobby import Lobby
from server.storage import Store
from server.wire import action_to_pb, legal_from_pb

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


class Player:
    """One bot connection: Hello, join a queue, answer every request with a random legal action."""

    def __init__(self, port: int, *, token: str = "", name: str = "", seed: int = 0) -> None:
        self.channel = grpc.aio.insecure_channel(f"localhost:{port}")
        self.outgoing: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect(self._requests())
        self.hello = bot_pb2.Hello(token=token, name=name, client_name="arena-test")
        self.rng = random.Random(seed)
        self.received: list[bot_pb2.ConnectResponse] = []

    async def _requests(self):  # type: ignore[no-untyped-def]
        while (message := await self.outgoing.get()) is not None:
            yield message

    async def next(self) -> bot_pb2.ConnectResponse:
        message = await asyncio.wait_for(self.call.read(), 20)
        assert message is not grpc.aio.EOF, "the server closed the stream"
        self.received.append(message)
        return message

    async def connect(self) -> bot_pb2.ConnectResponse:
        """Hello; the server's first answer (Welcome or Error)."""
        self.outgoing.put_nowait(bot_pb2.ConnectRequest(hello=self.hello))
        return await self.next()

    async def join(self, queue: str = QUEUE) -> bot_pb2.GameStarted:
        """Join ``queue`` and wait to be seated; requests that come later are answered by ``play``."""
        self.outgoing.put_nowait(bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue=queue)))
        while (message := await self.next()).WhichOneof("message") != "game_started":
            assert message.WhichOneof("message") == "queue_status", message
        self.outgoing.put_nowait(bot_pb2.ConnectRequest(leave_queue=bot_pb2.LeaveQueue(queue=queue)))
        return message.game_started

    async def play(self) -> bot_pb2.GameOver:
        """Answer requests until GameOver."""
        while True:
            message = await self.next()
            kind = message.WhichOneof("message")
            if kind == "game_over":
                return message.game_over
            if kind == "decision_request":
                request = message.decision_request
                legal = legal_from_pb(request.legal, request.observation.phase, request.observation.to_act)
                action = action_to_pb(random_legal_action(legal, self.rng))
                decision = bot_pb2.Decision(
                    game_id=request.game_id, request_id=request.request_id, action=action
                )
                self.outgoing.put_nowait(bot_pb2.ConnectRequest(decision=decision))

    async def close(self) -> None:
        self.outgoing.put_nowait(None)
        await self.channel.close()


async def play_game(port: int, tokens: list[str], queue: str = QUEUE) -> bot_pb2.GameOver:
    """The registered bots with these tokens play one game of ``queue`` to the end."""
    players = [Player(port, token=t, seed=i) for i, t in enumerate(tokens)]
    try:
        for player in players:
            assert (await player.connect()).WhichOneof("message") == "welcome"
        await asyncio.gather(*(p.join(queue) for p in players))
        overs = await asyncio.gather(*(p.play() for p in players))
    finally:
        for player in players:
            await player.close()
    assert all(o == overs[0] for o in overs)
    return overs[0]


def admin(token: str = ADMIN) -> tuple[tuple[str, str]]:
    """Request metadata carrying an admin token."""
    return (("authorization", f"Bearer {token}"),)
