"""Who plays whom: per queue, the rating-aware pairing of ``server.play.pairing`` over the bots with a free
slot.

Joining a queue is standing membership: a bot is seated again and again, as long as it has a free game
slot, until it leaves. A game never seats the same session twice. A bot in several queues has its free
slots shared among them (``next_games``): one game at a time, each to the queue whose ready bot plays the
fewest of its games from there now, then has waited there longest. Ratings come from ``skills`` (the
lobby reads them from the store; without one every bot has the default μ/σ, and the order is that of
the seed rule: fewest recent games, then longest wait).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence, Set
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from server.play.pairing import LADDER, MatchPolicy, PairingHistory, Waiting, pick_table
from server.records import INITIAL, Identity, Skill

_system_random = secrets.SystemRandom()


class Member(Hashable, Protocol):
    """What the matchmaker needs of a queue member: a local ``Session``, or a session of another replica
    as the cluster's shared queues know it (``server.play.cluster``)."""

    @property
    def identity(self) -> Identity: ...

    @property
    def closed(self) -> bool: ...

    def free_slots(self) -> int: ...


M = TypeVar("M", bound=Member)


@dataclass(frozen=True, slots=True)
class Seating(Generic[M]):
    sessions: list[M]
    """The new game's players, in seat order."""
    waited_s: list[float]
    """How long each waited since it joined or was last seated in this queue, in seconds."""
    done: list[M]
    """Sessions that reached their JoinQueue.games limit with this game and left the queue."""


class Matchmaker(Generic[M]):
    def __init__(
        self,
        queue_players: dict[str, int],
        clock: Callable[[], float] = time.monotonic,
        policy: MatchPolicy = LADDER,
        skills: Callable[[str, M], Skill] = lambda queue, session: INITIAL,
    ) -> None:
        self.players = dict(queue_players)
        self.waiting: dict[str, list[M]] = {name: [] for name in queue_players}
        self.clock = clock
        self.policy = policy
        self.skills = skills
        """The session's rating in the queue."""
        self.history = {name: PairingHistory(policy.memory) for name in queue_players}
        self._since: dict[tuple[str, M], float] = {}
        self._games_left: dict[tuple[str, M], int] = {}

    def remember(self, queue: str, tables: Sequence[Sequence[str]]) -> None:
        """Earlier games of ``queue`` (identity keys in seat order, oldest first), e.g. from the store."""
        for table in tables:
            self.history[queue].record(table)

    def join(self, queue: str, session: M, games: int = 0, since: float | None = None) -> None:
        """Standing membership; ``games`` > 0 seats the session in at most that many more games. ``since``:
        when it began to wait, on the matchmaker's clock (None: now)."""
        if session not in self.waiting[queue]:
            self.waiting[queue].append(session)
            self._since[queue, session] = self.clock() if since is None else since
        if games > 0:
            self._games_left[queue, session] = games
        else:
            self._games_left.pop((queue, session), None)

    def leave(self, queue: str, session: M) -> None:
        if session in self.waiting[queue]:
            self.waiting[queue].remove(session)
            del self._since[queue, session]
            self._games_left.pop((queue, session), None)

    def leave_all(self, session: M) -> None:
        for queue in self.waiting:
            self.leave(queue, session)

    def waiting_count(self, queue: str) -> int:
        return len(self.waiting[queue])

    def ready_count(self, queue: str) -> int:
        """Members with a free game slot: the seats of the next game filled so far."""
        return len(self._ready(queue, frozenset()))

    def waited_s(self, queue: str, session: M) -> float:
        """How long ``session`` has waited since it joined ``queue`` or was last seated from it (0: not a
        member)."""
        since = self._since.get((queue, session))
        return 0.0 if since is None else self.clock() - since

    def _ready(self, queue: str, held: Set[M]) -> list[M]:
        return [s for s in self.waiting[queue] if s.free_slots() > 0 and not s.closed and s not in held]

    def stalled(self, queue: str, held: Set[M] = frozenset()) -> bool:
        """Enough bots are ready to fill a table, but none could be formed (their rating windows widen
        with time, so asking again later may form one)."""
        return len(self._ready(queue, held)) >= self.players[queue]

    def next_games(
        self,
        queues: Iterable[str],
        held: Set[M] = frozenset(),
        playing: Callable[[str, M], int] = lambda queue, session: 0,
    ) -> Iterator[tuple[str, Seating[M]]]:
        """The games ``queues`` can seat now, one at a time, each with its queue: a bot's free slots are
        shared among its queues, not taken by the first that could fill them all (issue 34: "Share a
        stream's free slots across its queues fairly").

        Each next game comes from the queue that is owed one most: the one where a ready bot plays the
        fewest games (``playing``: how many of the bot's running games are of the queue) and, among
        equals, has waited longest since it joined or was last seated there. A queue seats one game and
        the order is taken again, so the queues take turns. A queue that forms no table now is left out
        until the next call (taking slots only ever makes a table harder to form). Lazy: nothing is
        seated beyond the games taken from the iterator."""
        left = list(dict.fromkeys(queues))
        while left:
            owed: list[tuple[int, float, int, str]] = []
            for order, queue in enumerate(left):
                ready = self._ready(queue, held)
                if ready:
                    owed.append(min((playing(queue, s), self._since[queue, s], order, queue) for s in ready))
            left = [queue for *_, queue in owed]  # no ready bot: none gets ready by seating others
            seated = False
            for *_, queue in sorted(owed):
                seating = self.next_game(queue, held)
                if seating is not None:
                    seated = True
                    yield queue, seating
                    break
                left.remove(queue)
            if not seated:
                return

    def next_game(self, queue: str, held: Set[M] = frozenset()) -> Seating[M] | None:
        """Seats of a new game (seat order rotated, docs/matchmaking.md) if a table can be formed now;
        ``held`` sessions keep their free slots for something else."""
        free = self._ready(queue, held)
        ready = [Waiting(s.identity.key, self.skills(queue, s), self._since[queue, s]) for s in free]
        session_of = {id(w): s for w, s in zip(ready, free, strict=True)}
        now = self.clock()
        table = pick_table(
            ready,
            self.players[queue],
            now,
            self.history[queue],
            self.policy,
            len(self.waiting[queue]),
            _system_random,
        )
        if table is None:
            return None
        self.history[queue].record([w.key for w in table])
        chosen = [session_of[id(w)] for w in table]
        done = []
        for session in chosen:
            self._since[queue, session] = now
            left = self._games_left.get((queue, session))
            if left is not None:
                self._games_left[queue, session] = left - 1
                if left == 1:
                    self.leave(queue, session)
                    done.append(session)
        return Seating(chosen, [now - w.since for w in table], done)
