"""A raw test client: one Connect stream on a real grpc.aio channel, driven message by message.

Not an SDK: tests send exactly the messages they want (including wrong ones) and read every reply.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence
from typing import Any

import grpc

from conquest.v1 import bot_pb2, bot_pb2_grpc, game_pb2
from conquest_sdk.r2210 import random_2210
from engine import Action, random_legal_action
from server.play.convert import action_to_pb, legal_from_pb

Response = bot_pb2.ConnectResponse


def events_in(message: Response) -> Sequence[game_pb2.GameEvent]:
    """The game events a message carries: a GameEvents batch, or those riding in a DecisionRequest."""
    kind = message.WhichOneof("message")
    if kind == "game_events":
        return message.game_events.events
    if kind == "decision_request":
        return message.decision_request.events
    return ()


class RawBot:
    def __init__(self, port: int) -> None:
        self.channel = grpc.aio.insecure_channel(f"localhost:{port}")
        self._outgoing: asyncio.Queue[bot_pb2.ConnectRequest | None] = asyncio.Queue()
        self.call = bot_pb2_grpc.BotServiceStub(self.channel).Connect(self._requests())
        self.log: list[Response] = []
        """Every message received, in order."""
        self._unread: list[Response] = []

    async def _requests(self) -> AsyncIterator[bot_pb2.ConnectRequest]:
        while (message := await self._outgoing.get()) is not None:
            yield message

    def send(self, **message: Any) -> None:
        self._outgoing.put_nowait(bot_pb2.ConnectRequest(**message))

    async def hello(
        self, name: str, capacity: int = 1, token: str = "", live_events: bool = False
    ) -> Response:
        self.send(
            hello=bot_pb2.Hello(
                name=name, capacity=capacity, token=token, client_name="raw-test", live_events=live_events
            )
        )
        return await self.next()

    async def join(self, queue: str, games: int = 0) -> Response:
        self.send(join_queue=bot_pb2.JoinQueue(queue=queue, games=games))
        return await self.expect("queue_status", "error")

    def decide(
        self, request: bot_pb2.DecisionRequest, action: Action | game_pb2.Action, note: str = ""
    ) -> None:
        message = action if isinstance(action, game_pb2.Action) else action_to_pb(action)
        self.send(
            decision=bot_pb2.Decision(
                game_id=request.game_id, request_id=request.request_id, action=message, annotation=note
            )
        )

    def answer_randomly(self, request: bot_pb2.DecisionRequest, rng: random.Random) -> None:
        """A random legal answer: the SDK's ``random_2210`` to a RISK 2210 A.D. request, else the engine's."""
        if request.WhichOneof("game") == "r2210":
            action = random_2210(request.r2210.legal, rng)
            self.send(
                decision=bot_pb2.Decision(
                    game_id=request.game_id, request_id=request.request_id, r2210=action
                )
            )
            return
        legal = legal_from_pb(request.legal, request.observation.phase, request.observation.to_act)
        self.decide(request, random_legal_action(legal, rng), note=f"random reply to {request.request_id}")

    async def next(self, timeout: float = 10.0) -> Response:
        """The next message not yet read (None-safe: raises TimeoutError when nothing comes)."""
        if self._unread:
            return self._unread.pop(0)
        message = await asyncio.wait_for(self.call.read(), timeout)
        if message is grpc.aio.EOF:
            raise EOFError("the server closed the stream")
        assert isinstance(message, Response)
        self.log.append(message)
        return message

    async def expect(self, *kinds: str, timeout: float = 10.0) -> Response:
        """The next message of one of ``kinds``; messages of other kinds in between are kept for ``next``."""
        skipped: list[Response] = []
        try:
            while True:
                message = await self.next(timeout)
                if message.WhichOneof("message") in kinds:
                    return message
                skipped.append(message)
        finally:
            self._unread[:0] = skipped

    async def expect_event(self, kind: str, timeout: float = 10.0) -> game_pb2.GameEvent:
        """The next game event of ``kind`` (e.g. "claimed"), from the messages not yet read that carry
        events (a DecisionRequest read here for its events stays unanswered)."""
        while True:
            for event in events_in(await self.expect("game_events", "decision_request", timeout=timeout)):
                if event.WhichOneof("kind") == kind:
                    return event

    async def play_until_over(self, rng: random.Random, skip: int = 0) -> bot_pb2.GameOver:
        """Answer every DecisionRequest with a random legal action until GameOver (one game)."""
        while True:
            message = await self.next()
            kind = message.WhichOneof("message")
            if kind == "game_over":
                return message.game_over
            if kind == "decision_request":
                self.answer_randomly(message.decision_request, rng)

    async def close(self) -> None:
        self._outgoing.put_nowait(None)
        await self.channel.close()


async def seat_three(server: Any, names=("a", "b", "c"), queue="classic-3") -> tuple[list[RawBot], list]:
    """Three bots in one game; returns them in seat order with their GameStarted messages."""
    bots = [server.bot() for _ in names]
    for name, bot in zip(names, bots, strict=True):
        await bot.hello(name)
        await bot.join(queue)
    started = [(await bot.expect("game_started")).game_started for bot in bots]
    order = sorted(range(len(bots)), key=lambda i: started[i].seat)
    return [bots[i] for i in order], [started[i] for i in order]
