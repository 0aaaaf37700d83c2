"""What the bots waiting in a queue are told of it (bot.proto QueueStatus): how many seats are filled and
how long each has waited, when it joins or leaves and then every ``QUEUE_STATUS_INTERVAL_S`` while it
waits, so that a bot alone in a queue learns why nothing happens. With ``server.cluster`` the counts are
the whole cluster's: this replica's bots as they are, the other replicas' as of the last heartbeat."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from conquest.v1 import bot_pb2
from server.play.matchmaker import Matchmaker
from server.play.session import Session
from server.records import QueueCount

QUEUE_STATUS_INTERVAL_S = 10.0
"""How often a bot waiting in a queue for a game is told how the queue stands (bot.proto QueueStatus)."""


class QueueNews:
    """The QueueStatus messages of one lobby's queues, and the timer that repeats them."""

    def __init__(self, matchmaker: Matchmaker[Session]) -> None:
        self.matchmaker = matchmaker
        self._timer: asyncio.TimerHandle | None = None
        """Set while some bot waits in a queue: it is told how the queue stands when the timer fires."""
        self.elsewhere: Callable[[str], QueueCount] = lambda queue: QueueCount(0, 0)
        """The bots waiting in a queue on the other replicas of the cluster (``server.cluster``), as of
        this replica's last heartbeat: counted with this replica's own."""

    def status(self, queue: str, session: Session, joined: bool) -> bot_pb2.ConnectResponse:
        """How ``queue`` stands for ``session``; ``joined``: whether it is (still) in it."""
        elsewhere = self.elsewhere(queue)
        status = bot_pb2.QueueStatus(
            queue=queue,
            joined=joined,
            waiting=self.matchmaker.waiting_count(queue) + elsewhere.waiting,
            seats=self.matchmaker.players[queue],
            ready=self.matchmaker.ready_count(queue) + elsewhere.ready,
            waited_ms=round(1000 * self.matchmaker.waited_s(queue, session)),
        )
        return bot_pb2.ConnectResponse(queue_status=status)

    def watch(self) -> None:
        """Tell the waiting bots how their queues stand in ``QUEUE_STATUS_INTERVAL_S`` (unless due sooner)."""
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(QUEUE_STATUS_INTERVAL_S, self._tell)

    def stop(self) -> None:
        """Tell nothing more (the server is shutting down)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _waiting(self) -> list[tuple[str, Session]]:
        """Every (queue, member) waiting for a game there: it has a free game slot."""
        waiting = self.matchmaker.waiting
        return [(q, s) for q in waiting for s in waiting[q] if s.free_slots() > 0 and not s.closed]

    def _tell(self) -> None:
        """Each bot waiting for a game hears how long it has waited and how many seats are filled, unless
        it joined less than half an interval ago (the answer to its JoinQueue said so); then again an
        interval later while anyone waits."""
        self._timer = None
        waiting = self._waiting()
        for queue, session in waiting:
            if self.matchmaker.waited_s(queue, session) >= QUEUE_STATUS_INTERVAL_S / 2:
                session.send(self.status(queue, session, True))
        if waiting:
            self.watch()
