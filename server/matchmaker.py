"""Who plays whom: a FIFO per queue, capacity-aware, with seat order drawn from the OS's randomness.

Joining a queue is standing membership: a bot is seated again and again, as long as it has a free game
slot, until it leaves. A game never seats the same session twice.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from server.session import Session

_system_random = secrets.SystemRandom()


@dataclass(frozen=True, slots=True)
class Seating:
    sessions: list[Session]
    """The new game's players, in seat order."""
    waited_s: list[float]
    """How long each waited since it joined or was last seated in this queue, in seconds."""


class Matchmaker:
    def __init__(self, queue_players: dict[str, int], clock: Callable[[], float] = time.monotonic) -> None:
        self.players = dict(queue_players)
        self.waiting: dict[str, list[Session]] = {name: [] for name in queue_players}
        self.clock = clock
        self._since: dict[tuple[str, Session], float] = {}

    def join(self, queue: str, session: Session) -> None:
        if session not in self.waiting[queue]:
            self.waiting[queue].append(session)
            self._since[queue, session] = self.clock()

    def leave(self, queue: str, session: Session) -> None:
        if session in self.waiting[queue]:
            self.waiting[queue].remove(session)
            del self._since[queue, session]

    def leave_all(self, session: Session) -> None:
        for queue in self.waiting:
            self.leave(queue, session)

    def waiting_count(self, queue: str) -> int:
        return len(self.waiting[queue])

    def next_game(self, queue: str) -> Seating | None:
        """Seats of a new game (in random seat order) if enough bots with a free slot wait, else None.

        The chosen bots go to the back of the queue, so bots take turns.
        """
        ready = [s for s in self.waiting[queue] if s.free_slots() > 0 and not s.closed]
        players = self.players[queue]
        if len(ready) < players:
            return None
        chosen = ready[:players]
        waiting = self.waiting[queue]
        now = self.clock()
        waited = {}
        for session in chosen:
            waiting.remove(session)
            waiting.append(session)
            waited[session] = now - self._since[queue, session]
            self._since[queue, session] = now
        _system_random.shuffle(chosen)
        return Seating(chosen, [waited[s] for s in chosen])
