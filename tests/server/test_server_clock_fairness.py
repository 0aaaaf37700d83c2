"""The clock charges a bot only its own time (issue 34, item 7: "A bot must be charged only the time between
the request leaving the server and its answer reaching the server: measure both ends where the server's
own delay cannot fall into the bot's time, and never announce less than the configured allowance").

The bot here answers from a thread of its own (a blocking gRPC client), so that it answers at once while
the server's event loop is held up."""

from __future__ import annotations

import asyncio
import queue
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import grpc
import pytest
from live_server import no_timebank, serving
from server_support import short_queues

from conquest.v1 import bot_pb2, bot_pb2_grpc
from conquest_bots.first_choice import first_choice
from server.app import BotService
from server.ops.config import TimeControl, default_queues
from server.play.mailbox import Departure, deliver
from server.play.replays import DirectoryReplayWriter
from server.play.runner import GameRunner
from server.play.seats import RemoteSeat
from server.play.session import Session
from server.records import Identity

CONTROL = TimeControl(decision_ms=1000, first_decision_ms=1000, initial_timebank_ms=0, increment_ms=0)
"""No timebank: time over the allowance would be a timeout."""
STALL_S = 0.3


class ThreadBot:
    """A bot on a blocking stream in its own thread: answers every request the moment it reads it, and
    keeps each request's ``time_allowed_ms`` and ``last_latency_ms``."""

    def __init__(self, port: int, name: str, queue_name: str, decisions: int) -> None:
        self.outgoing: queue.Queue[bot_pb2.ConnectRequest | None] = queue.Queue()
        self.requests: list[bot_pb2.DecisionRequest] = []
        self.answered_in_s: list[float] = []
        self.rejected: list[str] = []
        self.decisions = decisions
        self.channel = grpc.insecure_channel(f"localhost:{port}")
        self.outgoing.put(bot_pb2.ConnectRequest(hello=bot_pb2.Hello(name=name)))
        self.outgoing.put(bot_pb2.ConnectRequest(join_queue=bot_pb2.JoinQueue(queue=queue_name)))
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _messages(self) -> Iterator[bot_pb2.ConnectRequest]:
        while (message := self.outgoing.get()) is not None:
            yield message

    def _run(self) -> None:
        stream = bot_pb2_grpc.BotServiceStub(self.channel).Connect(self._messages())
        for response in stream:
            kind = response.WhichOneof("message")
            if kind == "decision_request":
                read = time.monotonic()
                request = response.decision_request
                self.requests.append(request)
                if len(self.requests) > self.decisions:
                    break
                decision = bot_pb2.Decision(
                    game_id=request.game_id, request_id=request.request_id, action=first_choice(request)
                )
                self.outgoing.put(bot_pb2.ConnectRequest(decision=decision))
                self.answered_in_s.append(time.monotonic() - read)
            elif kind == "decision_rejected":
                self.rejected.append(response.decision_rejected.reason)
        self.outgoing.put(None)

    def close(self) -> None:
        self.outgoing.put(None)
        self.channel.close()
        self.thread.join(10)


async def until_done(bot: ThreadBot, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while bot.thread.is_alive() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not bot.thread.is_alive(), f"{len(bot.requests)} requests in {timeout_s} s"


@pytest.fixture
def stall_after_each_request(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Hold the server's event loop up for ``STALL_S`` right after each of a bot's first three answers is
    played on, in the same step of its stream's reader (``read_stream``): the game has put its next
    DecisionRequest in a bot's send queue, and the stream's writer has not run yet (the server busy with
    other work)."""
    stalls: list[float] = []
    read = BotService._read

    async def stalling_read(
        self: BotService, session: Session, requests: AsyncIterator[bot_pb2.ConnectRequest]
    ) -> None:
        async def stalling() -> AsyncIterator[bot_pb2.ConnectRequest]:
            async for request in requests:
                yield request  # read_stream plays it on, then asks for the next: we are back here at once
                if request.WhichOneof("message") == "decision" and len(stalls) < 3:
                    started = time.monotonic()
                    time.sleep(STALL_S)  # the loop, and every game and stream on it, stands still
                    stalls.append(time.monotonic() - started)

        await read(self, session, stalling())

    monkeypatch.setattr(BotService, "_read", stalling_read)
    return stalls


async def instant_pair(tmp_path: Path, decisions: int) -> list[ThreadBot]:
    """Two bots answering at once from threads of their own, ``decisions`` each, in a classic-2 game on a
    server of ``CONTROL``'s time control; returned once both are done."""
    queues = [q for q in short_queues(CONTROL) if q.name == "classic-2"]
    async with serving(queues, tmp_path / "replays") as server:
        bots = [ThreadBot(server.port, f"instant-{i}", "classic-2", decisions=decisions) for i in range(2)]
        try:
            await asyncio.gather(*(until_done(bot) for bot in bots))
        finally:
            for bot in bots:
                bot.close()
    return bots


async def test_the_servers_own_delay_before_sending_is_not_charged(
    tmp_path: Path, stall_after_each_request
) -> None:
    """Issue 34: "Answers sent 0–1 ms after a request arrived were charged 13–884 ms over the allowance on a
    loaded host". The server's event loop stands still for 300 ms right after each of three requests is
    queued: the bot, answering at once, is charged the time from the request's departure (stamped as the
    stream's writer hands it to gRPC) to its answer's arrival, so none of the 300 ms."""
    bots = await instant_pair(tmp_path, decisions=8)
    assert len(stall_after_each_request) == 3 and min(stall_after_each_request) >= STALL_S
    for bot in bots:
        assert not bot.rejected
        assert max(bot.answered_in_s) < 0.05
        charged = [r.last_latency_ms for r in bot.requests[1:]]  # each the charge of the answer before
        assert max(charged) < STALL_S * 1000 / 3, charged


async def test_time_allowed_is_always_the_configured_allowance(
    tmp_path: Path, stall_after_each_request
) -> None:
    """Issue 34: "162 of 378k 2210 requests said `time_allowed_ms` 967–999 instead of 1,000" and "never
    announce less than the configured allowance": every request announces the time control's figure,
    even one the server wrote 300 ms after the game queued it (its clock starts as it leaves). A classic
    game here; a 2210 game's first sends are built the same way (``Runner2210._send_request``)."""
    bots = await instant_pair(tmp_path, decisions=12)
    for bot in bots:
        assert {r.time_allowed_ms for r in bot.requests} <= {CONTROL.decision_ms, CONTROL.defend_decision_ms}
        assert CONTROL.decision_ms in {r.time_allowed_ms for r in bot.requests}


def session_game(tmp_path: Path, control: TimeControl) -> tuple[GameRunner, list[Session]]:
    """A classic-2 game between two sessions whose streams' writers the test runs (``deliver``) or not."""
    queue = next(q for q in default_queues(control) if q.name == "classic-2")
    sessions = [Session(Identity(f"k{i}", f"bot{i}", False), 1) for i in range(2)]
    seats = [RemoteSeat.for_bot(s.identity, s, control) for s in sessions]
    return GameRunner("g", queue, seats, 5, DirectoryReplayWriter(tmp_path)), sessions


def first_request(sessions: list[Session]) -> tuple[int, Departure]:
    for index, session in enumerate(sessions):
        for _ in range(len(session.outbox)):
            item = session.outbox._items[0]
            if isinstance(item, Departure):
                return index, item
            session.outbox._items.popleft()
    raise AssertionError("no DecisionRequest queued")


async def test_a_request_the_server_has_not_written_does_not_time_out(tmp_path: Path) -> None:
    """The deadline runs from the request's departure: a request still in its send queue because the
    server's stream writer has not run (the server's own delay) is not timed out at its allowance; once
    written, an answer at once is in time and charged next to nothing."""
    control = no_timebank(100)
    runner, sessions = session_game(tmp_path, control)
    game = asyncio.create_task(runner.run())
    writers: list[asyncio.Task[bool]] = []
    try:
        await asyncio.sleep(0.05)
        index, request = first_request(sessions)
        await asyncio.sleep(0.3)  # three allowances while the request waits for a writer
        seat = runner.seats[index]
        assert isinstance(seat, RemoteSeat)
        assert seat.timeouts == 0 and seat.open_request and request.sent_at == 0.0

        async def write(item: object) -> None:
            pass

        writers = [asyncio.create_task(deliver(s.outbox, write)) for s in sessions]
        while request.sent_at == 0.0:
            await asyncio.sleep(0.001)
        asked = bot_pb2.ConnectResponse.FromString(request.data).decision_request
        decision = bot_pb2.Decision(game_id="g", request_id=asked.request_id, action=first_choice(asked))
        assert runner.submit(index, decision, time.monotonic())
        assert seat.timeouts == 0 and seat.last_latency_ms < 50
    finally:
        runner.stop()
        await game
        for writer in writers:
            writer.cancel()


async def test_a_request_held_up_by_a_bot_that_does_not_read_times_out(tmp_path: Path) -> None:
    """A bot that does not read its stream holds its requests in their send queue: that wait is its own,
    so the request times out at its allowance from being queued (a game cannot be stalled that way)."""
    control = no_timebank(100)
    runner, sessions = session_game(tmp_path, control)
    stuck = asyncio.Event()

    async def never_taken(item: object) -> None:  # the first message's write never completes
        await stuck.wait()

    writers = [asyncio.create_task(deliver(s.outbox, never_taken)) for s in sessions]
    game = asyncio.create_task(runner.run())
    try:
        started = time.monotonic()
        while not any(isinstance(s, RemoteSeat) and s.timeouts for s in runner.seats):
            assert time.monotonic() - started < 3, "no timeout"
            await asyncio.sleep(0.01)
    finally:
        runner.stop()
        stuck.set()
        await game
        for writer in writers:
            writer.cancel()


async def test_a_request_that_never_left_is_sent_again_after_a_reconnect(tmp_path: Path) -> None:
    """A request still queued when its bot's stream ended never left: sent again on the bot's new stream, its
    clock starts there (the deadline does not run from a departure that never happened)."""
    control = no_timebank(100)
    runner, sessions = session_game(tmp_path, control)
    game = asyncio.create_task(runner.run())
    written: list[bytes] = []

    async def write(item: bytes) -> None:
        written.append(item)

    writer: asyncio.Task[bool] | None = None
    try:
        await asyncio.sleep(0.05)
        index, unsent = first_request(sessions)
        runner.detach(index)  # its stream ended with the request unwritten
        await asyncio.sleep(0.2)  # two allowances
        again = Session(sessions[index].identity, 1)
        writer = asyncio.create_task(deliver(again.outbox, write))
        runner.attach(index, again)
        for _ in range(200):
            requests = [bot_pb2.ConnectResponse.FromString(m) for m in written]
            asked = [m.decision_request for m in requests if m.WhichOneof("message") == "decision_request"]
            if asked:
                break
            await asyncio.sleep(0.005)
        assert asked and unsent.sent_at == 0.0
        seat = runner.seats[index]
        assert isinstance(seat, RemoteSeat)
        decision = bot_pb2.Decision(
            game_id="g", request_id=asked[0].request_id, action=first_choice(asked[0])
        )
        assert runner.submit(index, decision, time.monotonic())
        assert seat.timeouts == 0
    finally:
        runner.stop()
        await game
        if writer is not None:
            writer.cancel()
