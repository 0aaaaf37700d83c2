"""The arena tests' queues and admin token, and a bot that plays whole games over gRPC with random actions."""

from __future__ import annotations

import asyncio
import contextlib
import random

import grpc
from live_server import no_timebank
from raw_client import RawBot

from conquest.v1 import bot_pb2
from engine import preset
from server.ops.config import QueueConfig

ADMIN = "arena-admin-token-for-tests"
QUEUE = "classic-2"
CONTROL = no_timebank(5000)
QUEUES = (
    QueueConfig(QUEUE, preset("classic_two_player", turn_cap=12), 2, CONTROL),
    QueueConfig("classic-long-2", preset("classic_two_player", turn_cap=40), 2, CONTROL),
)


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


class Bot:
    """A registered bot that stays connected and answers every request of every game it is seated in."""

    def __init__(self, port: int, token: str, seed: int) -> None:
        self.player = Player(port, token=token, seed=seed)
        self.games: list[str] = []
        self.task: asyncio.Task[None] | None = None

    async def start(self) -> Bot:
        assert (await self.player.connect()).WhichOneof("message") == "welcome"
        self.task = asyncio.create_task(self._answer())
        return self

    async def _answer(self) -> None:
        with contextlib.suppress(EOFError):  # the server closed the stream
            while True:
                message = await self.player.next(timeout=3600)
                kind = message.WhichOneof("message")
                if kind == "game_over":
                    self.games.append(message.game_over.game_id)
                elif kind == "decision_request":
                    self.player.answer_randomly(message.decision_request, self.player.rng)

    async def stop(self) -> None:
        await self.player.close()  # first: a read the task is waiting in then ends at once
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                await self.task


async def until(condition, timeout: float = 60.0) -> None:  # type: ignore[no-untyped-def]
    """Poll the async ``condition`` every 0.1 s until it holds (TimeoutError after ``timeout`` s)."""
    async with asyncio.timeout(timeout):
        while not await condition():
            await asyncio.sleep(0.1)
