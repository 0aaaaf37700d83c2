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
    done: list[Session]
    """Sessions that reached their JoinQueue.games limit with this game and left the queue."""


class Matchmaker:
    def __init__(self, queue_players: dict[str, int], clock: Callable[[], float] = time.monotonic) -> None:
        self.players = dict(queue_players)
        self.waiting: dict[str, list[Session]] = {name: [] for name in queue_players}
        self.clock = clock
        self._since: dict[tuple[str, Session], float] = {}
        self._games_left: dict[tuple[str, Session], int] = {}

    def join(self, queue: str, session: Session, games: int = 0) -> None:
        """Standing membership; ``games`` > 0 seats the session in at most that many more games."""
        if session not in self.waiting[queue]:
            self.waiting[queue].append(session)
            self._since[queue, session] = self.clock()
        if games > 0:
            self._games_left[queue, session] = games
        else:
            self._games_left.pop((queue, session), None)

    def leave(self, queue: str, session: Session) -> None:
        if session in self.waiting[queue]:
            self.waiting[queue].remove(session)
            del self._since[queue, session]
            self._games_left.pop((queue, session), None)

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
        done = []
        for session in chosen:
            waiting.remove(session)
            waiting.append(session)
            waited[session] = now - self._since[queue, session]
            self._since[queue, session] = now
            left = self._games_left.get((queue, session))
            if left is not None:
                self._games_left[queue, session] = left - 1
                if left == 1:
                    self.leave(queue, session)
                    done.append(session)
        _system_random.shuffle(chosen)
        return Seating(chosen, [waited[s] for s in chosen], done)
