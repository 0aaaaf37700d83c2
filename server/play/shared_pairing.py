"""The matchmaking of the cluster's shared queues (``server.cluster``), run by the replica holding the
matchmaker lease (``server.play.cluster``): the lobby's own ``Matchmaker`` (``server.play.pairing``:
rating-aware, no starvation, seat rotation, pair caps) over every session of every live replica, the
appointments (challenges, tournament tables) seated first, and where each game goes (``place``).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from server.play.matchmaker import Matchmaker
from server.play.pairing import MatchPolicy
from server.play.ports import Ratings
from server.records import (
    INITIAL,
    Identity,
    SharedAppointment,
    SharedBot,
    SharedSeat,
    SharedSeating,
    SharedWait,
    Skill,
)

BUSIER_FACTOR = 1.5
BUSIER_MARGIN = 2
"""A game's majority replica is "markedly busier" than the least loaded one when it hosts more than
``BUSIER_FACTOR`` × that one's games + ``BUSIER_MARGIN``."""


@dataclass(eq=False)
class Waiter:
    """A session of any replica in the shared queues, as the lease holder's matchmaker pairs it."""

    replica: str
    session_id: str
    identity: Identity
    free: int
    live_events: bool
    closed: bool = False
    skills: dict[str, Skill] = field(default_factory=dict)
    """Its rating per queue, read once and again after each game of its ends (its free slots went up)."""

    def free_slots(self) -> int:
        return self.free


def _seat(waiter: Waiter, done: bool) -> SharedSeat:
    """The seat of a new game ``waiter`` is seated in; it has one free slot less now."""
    waiter.free -= 1
    identity = waiter.identity
    return SharedSeat(
        waiter.replica,
        waiter.session_id,
        identity.key,
        identity.name,
        identity.bot_id,
        identity.ranked,
        waiter.live_events,
        done,
    )


def place(seats: list[str], loads: dict[str, int]) -> str:
    """The host of a game whose bot seats are on these replicas (``loads``: each live replica's hosted
    games): the one holding most seats unless it is markedly busier than the least loaded one."""
    known = [r for r in seats if r in loads] or list(loads)
    majority = max(known, key=lambda r: (known.count(r), -loads.get(r, 0)))
    least = min(loads, key=lambda r: (loads[r], r != majority))
    if loads.get(majority, 0) > BUSIER_FACTOR * loads[least] + BUSIER_MARGIN:
        return least
    return majority


class SharedPairing:
    """The lease holder's matchmaking state: the matchmaker (its pairing history read afresh when the
    lease is taken) and a ``Waiter`` per open session of the cluster."""

    def __init__(self, players: dict[str, int], policy: MatchPolicy, ratings: Ratings | None) -> None:
        self.ratings = ratings
        self.matchmaker: Matchmaker[Waiter] = Matchmaker(
            dict(players), clock=time.time, policy=policy, skills=self._skill
        )
        if ratings is not None:
            for queue in players:
                self.matchmaker.remember(queue, ratings.recent_tables(queue, policy.memory))
        self.waiters: dict[tuple[str, str], Waiter] = {}

    def seatings(
        self,
        bots: list[SharedBot],
        waits: list[SharedWait],
        appointments: list[SharedAppointment],
        dead: set[str],
        loads: dict[str, int],
    ) -> list[SharedSeating]:
        """The games the appointments and the shared queues form now, appointments first, from the
        sessions of the replicas not ``dead``; queue games are placed by ``loads`` (each live replica's
        hosted games, counted up as games are placed here). In a worker thread: ratings may be read."""
        matchmaker = self._sync(bots, waits, dead)
        seatings = []
        for appointment in appointments:
            if appointment.replica not in dead and (seats := self._appointed(appointment)) is not None:
                seatings.append(
                    SharedSeating(secrets.token_hex(8), "", appointment.replica, seats, appointment.key)
                )
        names = {name for appointment in appointments for name in appointment.bots}
        held = {w for w in self.waiters.values() if w.identity.ranked and w.identity.name in names}
        # A bot's free slots are shared among its queues, the one it has waited in longest first (its
        # running games per queue are not in the shared store, so this side goes by the wait alone).
        for queue, seating in matchmaker.next_games(matchmaker.players, held):
            done = set(map(id, seating.done))
            seats = tuple(_seat(w, id(w) in done) for w in seating.sessions)
            host = place([s.replica for s in seats], loads)
            loads[host] += 1
            seatings.append(SharedSeating(secrets.token_hex(8), queue, host, seats))
        return seatings

    def _appointed(self, appointment: SharedAppointment) -> tuple[SharedSeat, ...] | None:
        """The seats of the appointment's game if each of its bots has a session with a free slot (their
        slots taken), else None."""
        chosen: list[Waiter] = []
        for name in appointment.bots:
            free = [
                w
                for w in self.waiters.values()
                if w.identity.name == name and w.identity.ranked and w.free > 0 and w not in chosen
            ]
            if not free:
                return None
            chosen.append(free[0])
        return tuple(_seat(w, False) for w in chosen)

    def _sync(self, bots: list[SharedBot], waits: list[SharedWait], dead: set[str]) -> Matchmaker[Waiter]:
        """The matchmaker with the database's sessions (their free slots) and queue memberships."""
        matchmaker = self.matchmaker
        current = {(b.replica, b.session_id): b for b in bots if b.replica not in dead}
        for key, waiter in list(self.waiters.items()):
            if key not in current:
                waiter.closed = True
                matchmaker.leave_all(waiter)
                del self.waiters[key]
        for key, bot in current.items():
            found = self.waiters.get(key)
            if found is None:
                self.waiters[key] = Waiter(
                    bot.replica, bot.session_id, bot.identity, bot.free, bot.live_events
                )
                continue
            if bot.free > found.free:
                found.skills.clear()  # a game of its ended: its rating may have moved
            found.free = bot.free
        members = {(w.queue, w.replica, w.session_id) for w in waits}
        for queue, waiting in matchmaker.waiting.items():
            for waiter in list(waiting):
                if (queue, waiter.replica, waiter.session_id) not in members:
                    matchmaker.leave(queue, waiter)
        for wait in waits:
            member = self.waiters.get((wait.replica, wait.session_id))
            if member is not None and wait.queue in matchmaker.players:
                matchmaker.join(wait.queue, member, wait.games_left, since=wait.since)
        return matchmaker

    def _skill(self, queue: str, waiter: Waiter) -> Skill:
        ratings = self.ratings
        if ratings is None:
            return INITIAL
        if queue not in waiter.skills:
            if waiter.identity.bot_id is not None:
                ratings.forget(queue, [waiter.identity.bot_id])
            waiter.skills[queue] = ratings.skill(queue, waiter.identity)
        return waiter.skills[queue]
