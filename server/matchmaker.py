"""Who plays whom: a FIFO per queue, capacity-aware, with seat order drawn from the OS's randomness.

Joining a queue is standing membership: a bot is seated again and again, as long as it has a free game
slot, until it leaves. A game never seats the same session twice.
"""

from __future__ import annotations

import secrets

from server.session import Session

_system_random = secrets.SystemRandom()


class Matchmaker:
    def __init__(self, queue_players: dict[str, int]) -> None:
        self.players = dict(queue_players)
        self.waiting: dict[str, list[Session]] = {name: [] for name in queue_players}

    def join(self, queue: str, session: Session) -> None:
        if session not in self.waiting[queue]:
            self.waiting[queue].append(session)

    def leave(self, queue: str, session: Session) -> None:
        if session in self.waiting[queue]:
            self.waiting[queue].remove(session)

    def leave_all(self, session: Session) -> None:
        for queue in self.waiting:
            self.leave(queue, session)

    def waiting_count(self, queue: str) -> int:
        return len(self.waiting[queue])

    def next_game(self, queue: str) -> list[Session] | None:
        """Seats of a new game (in random seat order) if enough bots with a free slot wait, else None.

        The chosen bots go to the back of the queue, so bots take turns.
        """
        ready = [s for s in self.waiting[queue] if s.free_slots() > 0 and not s.closed]
        players = self.players[queue]
        if len(ready) < players:
            return None
        chosen = ready[:players]
        waiting = self.waiting[queue]
        for session in chosen:
            waiting.remove(session)
            waiting.append(session)
        _system_random.shuffle(chosen)
        return chosen
