"""Many replicas serve one ladder (``server.cluster``): this replica's side of the shared queues, the
matchmaker's lease, and the games it hosts for the cluster.

- **Shared queues.** Each session's open, close, JoinQueue and LeaveQueue is written to the database (in
  order, by one writer task; never on a Decision's path): the session with its free game slots, and its
  queue memberships. A write the database does not take is tried again every heartbeat until it is, the
  later ones waiting behind it. A session's free slots change only relatively: the matchmaker takes one
  as it seats the session, the session's replica gives it back when the game ends (numbering its changes,
  so that one tried again after a commit whose answer was lost is applied once: the count never drifts).
- **One matchmaker.** Every heartbeat the lease's holder renews it (``UPDATE ... WHERE holder = me AND
  term = mine``); the others watch its renewals and take it over (one wins, by term) once they have stood
  still for ``replica_timeout_ms`` of their own clock (no two machines' clocks are compared). A holder whose
  renewal is refused stops matching at once; its seatings would be refused anyway (each carries its term).
  The holder runs the lobby's own ``Matchmaker`` (``server.play.pairing``: rating-aware, no starvation,
  seat rotation, pair caps) over every waiting bot of every live replica, every ``POLL_S``
  (``server.play.shared_pairing``), appointments first.
- **Placement.** A game goes to the replica holding most of its seats, unless that replica is markedly
  busier than the least loaded one (``server.play.shared_pairing.place``; each replica reports the games
  it hosts with its heartbeat).
- **Hosting.** Every ``POLL_S`` each replica takes the seatings addressed to it and starts them: its own
  sessions play as ever, the others' through ``server.play.relay``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

import structlog

from conquest.v1 import bot_pb2
from server.play.cluster_view import ClusterView
from server.play.lobby import Lobby
from server.play.players import Appointment, BotPlayer
from server.play.ports import SharedQueues
from server.play.relay import Relay, RelayedSeat
from server.play.runner_2210 import AnyRunner
from server.play.seats import RemoteSeat
from server.play.session import Outgoing, Session
from server.play.shared_pairing import SharedPairing
from server.records import (
    DatabaseUnavailable,
    Identity,
    SharedAppointment,
    SharedBot,
    SharedSeating,
    SharedWait,
)

log = structlog.get_logger("conquest.cluster")
LEASE = "matchmaker"
POLL_S = 0.15
"""How often a replica looks for the seatings addressed to it, and the lease holder pairs the queues."""


@dataclass(eq=False)
class Absent:
    """A seated bot whose session closed before its host started the game: its seat starts disconnected
    (the reconnect grace runs)."""

    identity: Identity
    live_events: bool = False
    games: dict[str, int] = field(default_factory=dict)

    def send(self, message: Outgoing) -> None:
        pass


class Cluster:
    """This replica in the cluster: the lobby's ``Shared`` side, the lease, the matchmaking it runs while
    it holds the lease, and the seatings it hosts."""

    def __init__(
        self,
        lobby: Lobby,
        store: SharedQueues,
        relay: Relay,
        address: str,
        heartbeat_s: float,
        timeout_s: float,
        presumed_dead: Callable[[], set[str]] = set,
        alive: Callable[[], set[str]] = set,
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.relay = relay
        self.replica = relay.replica
        self.address = address
        """This replica's relay address, as the others reach it."""
        self.heartbeat_s = heartbeat_s
        self.timeout_s = timeout_s
        self.presumed_dead = presumed_dead
        """The replicas presumed dead (the takeover's heartbeat decides): their sessions are ignored and
        removed."""
        self.alive = alive
        """The registered replicas not presumed dead: games are placed on these."""
        self.term = 0
        """The lease's term while this replica holds it; 0 when it does not."""
        self._lease_seen: tuple[str, int, int] | None = None
        self._lease_moved = 0.0
        self.pairing: SharedPairing | None = None
        """The matchmaking over the shared queues while this replica holds the lease."""
        self.loads: dict[str, int] = {}
        self.view = ClusterView(self.replica)
        """The cluster as of the last heartbeat: the queues and running games of every replica."""
        self.games_by_bot: dict[str, list[tuple[str, str]]] = {}
        """Each bot's running games in the cluster (identity key -> (game id, host)), as of the last
        heartbeat: a bot that connects here takes back its seats of those hosted elsewhere."""
        self.bots_connected: set[str] = set()
        """The names of the bots connected to any replica, as of the last heartbeat."""
        self.down = ""
        """Why the database does not answer ("": it does)."""
        self.on_database: Callable[[str], None] = lambda why: None
        """Told when the database stops ("why") or starts again ("") answering this replica."""
        self._writes: asyncio.Queue[Callable[[], None]] = asyncio.Queue()
        self._slot_changes: dict[str, int] = {}
        """Each open session's free-slot changes so far (by session id): the number of its next one."""
        relay.on_free = self.free

    # ------------------------------------------------------------------ the lobby's side (Shared)

    def connected(self, name: str) -> bool:
        return name in self.bots_connected

    def elsewhere(self, key: str) -> list[tuple[str, str]]:
        return [(g, host) for g, host in self.games_by_bot.get(key, []) if host != self.replica]

    def opened(self, session: Session, elsewhere: list[tuple[str, str]]) -> None:
        self.relay.sessions[session.session_id] = session
        free = session.free_slots()  # a seat taken back elsewhere takes its slot as it is attached
        bot = SharedBot(self.replica, session.session_id, session.identity, free, session.live_events)
        self._write(lambda: self.store.open_shared_session(bot))
        for game_id, host in elsewhere:
            self.relay.resume(host, game_id, session)
            self.relay.awaited[game_id, session.session_id] = True  # its Welcome lists it: running then

    def closed(self, session: Session) -> None:
        self.relay.closed(session)
        self._slot_changes.pop(session.session_id, None)
        self._write(lambda: self.store.close_shared_session(self.replica, session.session_id))

    def joined(self, queue: str, session: Session, games: int) -> None:
        wait = SharedWait(self.replica, session.session_id, queue, games, time.time())
        self._write(lambda: self.store.join_shared_queue(wait))

    def left(self, queue: str, session: Session) -> None:
        self._write(lambda: self.store.leave_shared_queue(self.replica, session.session_id, queue))

    def forward(self, session: Session, decision: bot_pb2.Decision) -> int:
        return self.relay.forward(session, decision)

    def ended(self, runner: AnyRunner) -> None:
        self.relay.ended(runner)
        for seat in runner.seats:
            if isinstance(seat, RemoteSeat) and isinstance(seat.connection, Session):
                self.free(seat.connection, 1)

    def appointed(self, appointment: Appointment) -> None:
        shared = SharedAppointment(appointment.key, self.replica, appointment.bots)
        made = time.time()
        self._write(lambda: self.store.appoint_shared(shared, made))

    def withdrawn(self, appointment: Appointment) -> None:
        self._write(lambda: self.store.withdraw_shared(appointment.key))

    def _took_slots(self, runner: AnyRunner) -> None:
        """The sessions of this replica holding seats of a game taken over (not seated by the matchmaker,
        which takes their slots itself) have one free slot less: each gives one back when it ends."""
        for seat in runner.seats:
            if isinstance(seat, RemoteSeat) and isinstance(seat.connection, Session):
                self.free(seat.connection, -1)

    def free(self, session: Session, step: int) -> None:
        """``session``'s free slots changed by ``step``."""
        change = self._slot_changes[session.session_id] = self._slot_changes.get(session.session_id, 0) + 1
        self._write(lambda: self.store.add_free_slots(self.replica, session.session_id, step, change))

    def _write(self, work: Callable[[], None]) -> None:
        self._writes.put_nowait(work)

    def _spawn(self, work: Coroutine[Any, Any, None], name: str) -> None:
        self.lobby.track(asyncio.get_running_loop().create_task(work, name=name))

    # ------------------------------------------------------------------ the loops

    async def write(self) -> None:
        """Until cancelled: the queued writes, in order; one the database did not take is tried again every
        heartbeat until it is (the later ones wait: a session's close never overtakes its open)."""
        while True:
            work = await self._writes.get()
            try:
                while not await self._written(work):
                    await asyncio.sleep(self.heartbeat_s)
            finally:
                self._writes.task_done()

    async def _written(self, work: Callable[[], None]) -> bool:
        try:
            await asyncio.to_thread(work)
        except DatabaseUnavailable as down:
            self._went_down(str(down))
            return False
        return True

    async def flushed(self, timeout_s: float) -> None:
        """Once the queued writes are done (at most ``timeout_s``): a stopping replica's sessions are out
        of the shared queues before it goes."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._writes.join(), timeout_s)

    async def start(self) -> None:
        """Before the replica takes bots: its first heartbeat (its address and the running games known)."""
        await self._beat()

    async def run(self) -> None:
        """Until cancelled: every ``POLL_S`` start the seatings addressed here and, holding the lease, pair
        the shared queues; every heartbeat publish this replica's load and renew or watch the lease."""
        next_beat = time.monotonic() + self.heartbeat_s
        while True:
            try:
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + self.heartbeat_s
                    await self._beat()
                if self.lobby.accepting and not self.lobby.paused:
                    for seating in await asyncio.to_thread(self.store.take_seatings, self.replica):
                        self._host(seating)
                    if self.term:
                        await self._pair()
                if self.down:
                    self.down = ""
                    log.info("cluster_database_back", replica=self.replica)
                    self.on_database("")
            except DatabaseUnavailable as down:
                self._went_down(str(down))
            await asyncio.sleep(POLL_S)

    def _went_down(self, why: str) -> None:
        if self.term:
            self._lost(f"the database does not answer: {why}")
        if not self.down:
            self.down = f"the cluster's database does not answer, so this replica takes no new games: {why}"
            log.warning("cluster_database_down", replica=self.replica, why=self.down)
            self.on_database(self.down)

    async def _beat(self) -> None:
        hosting = len(self.lobby.runners)
        self.lobby.metrics.games_hosted.set(hosting)
        await asyncio.to_thread(self.store.publish_replica, self.replica, self.address, hosting)
        replicas = await asyncio.to_thread(self.store.cluster_replicas)
        running = await asyncio.to_thread(self.store.running_games)
        waiting = await asyncio.to_thread(self.store.waiting_counts)
        self.bots_connected = await asyncio.to_thread(self.store.connected_bots)
        counts, totals = await asyncio.to_thread(self.store.cluster_counts)
        dead = self.presumed_dead()
        self.relay.addresses = {r: address for r, (address, _) in replicas.items() if r != self.replica}
        alive = self.alive() | {self.replica}
        self.loads = {r: hosted for r, (_, hosted) in replicas.items() if r in alive}
        await self._lease()
        holder = self.replica if self.term else (self._lease_seen or ("",))[0]
        hosted = {r: games for r, (_, games) in replicas.items()}
        self.view = ClusterView(
            self.replica,
            hosted,
            frozenset(alive),
            holder,
            tuple(running),
            waiting,
            {r: c for r, c in counts.items() if r in hosted},
            totals,
        )
        self.games_by_bot = self.view.games_by_bot()
        if self.term:
            await asyncio.to_thread(self.store.forget_replicas, dead & set(replicas))
        self._take_back(alive)

    def _take_back(self, alive: set[str]) -> None:
        """Each seat this replica asked back for a session of its and has not got yet is asked again of
        its game's live host (after a reconnect whose first ask failed, or a host taken over); one whose
        game was seen running and runs nowhere now ended while its bot was away: the bot is told."""
        for (game_id, session_id), seen in list(self.relay.awaited.items()):
            session = self.relay.sessions.get(session_id)
            if session is None:
                continue
            host = next((h for g, h in self.games_by_bot.get(session.identity.key, []) if g == game_id), None)
            if host is None:
                if seen:
                    self.relay.not_resumed(game_id, session_id, "it ended while you were away")
                continue
            self.relay.awaited[game_id, session_id] = True
            if host in alive and host != self.replica:
                self.relay.resume(host, game_id, session)

    async def _lease(self) -> None:
        if self.term:
            if not await asyncio.to_thread(self.store.renew_lease, LEASE, self.replica, self.term):
                self._lost("another replica took the matchmaker lease")
            return
        seen = await asyncio.to_thread(self.store.lease, LEASE)
        now = time.monotonic()
        if seen != self._lease_seen:
            self._lease_seen, self._lease_moved = seen, now
        term = 0 if seen is None else seen[1]
        if seen is not None and seen[0] and now - self._lease_moved < self.timeout_s:
            return  # its holder renews it (a holder that stopped cleanly left it to no one: taken at once)
        if await asyncio.to_thread(self.store.take_lease, LEASE, self.replica, term):
            self.term = term + 1
            self.pairing = None
            self.lobby.metrics.lease_holder.set(1)
            log.warning("lease_taken", replica=self.replica, term=self.term, previous=seen and seen[0])

    def _lost(self, why: str) -> None:
        """This replica holds the lease no more: it stops matching at once."""
        log.warning("lease_lost", replica=self.replica, term=self.term, why=why)
        self.term = 0
        self.pairing = None
        self.lobby.metrics.lease_holder.set(0)

    def stop(self) -> None:
        """The replica stops (its ``run`` task cancelled): its address, sessions, queue memberships and
        the seatings placed on it go, and the lease it holds is given up, for another replica to take at
        once. In a worker thread."""
        try:
            self.store.forget_replicas({self.replica})
            if self.term:
                self.store.give_up_lease(LEASE, self.replica, self.term)
                self.term = 0
        except DatabaseUnavailable as down:  # the others forget it, and take its lease, after the timeout
            log.warning("replica_not_removed", replica=self.replica, error=str(down))

    # ------------------------------------------------------------------ matchmaking (the lease holder)

    async def _pair(self) -> None:
        pairing = self.pairing
        if pairing is None:
            lobby = self.lobby
            pairing = self.pairing = await asyncio.to_thread(
                SharedPairing, lobby.matchmaker.players, lobby.matchmaker.policy, lobby.ratings
            )
        bots, waits, appointments = await asyncio.to_thread(self.store.shared_waiting)
        loads = dict(self.loads) or {self.replica: 0}
        seatings = await asyncio.to_thread(
            pairing.seatings, bots, waits, appointments, self.presumed_dead(), loads
        )
        for seating in seatings:
            if not await asyncio.to_thread(
                self.store.seat_shared, LEASE, self.replica, self.term, seating, time.time()
            ):
                self.pairing = None  # a session went or the lease was lost: pair again from the database
                return
            self.loads[seating.host] = self.loads.get(seating.host, 0) + 1
            log.info("game_seated", game_id=seating.game_id, queue=seating.queue, host=seating.host)

    # ------------------------------------------------------------------ hosting

    def _host(self, seating: SharedSeating) -> None:
        """Start a game the matchmaker placed here: a queue's, or an appointment's made here."""
        appointed = [
            a for a in self.lobby.appointments if seating.appointment and a.key == seating.appointment
        ]
        config = appointed[0].queue if appointed else self.lobby.queues.get(seating.queue)
        if config is None:
            why = (
                "its appointment was withdrawn" if seating.appointment else f"no queue {seating.queue!r} here"
            )
            log.warning("seating_not_started", game_id=seating.game_id, why=why)
            for seat in seating.seats:  # the slots the matchmaker took go back
                self._write(functools.partial(self.store.add_free_slots, seat.replica, seat.session_id, 1))
            return
        players: list[BotPlayer] = []
        dead = self.presumed_dead()
        for seat in seating.seats:
            identity = Identity(seat.key, seat.name, seat.ranked, seat.bot_id)
            session = self.relay.sessions.get(seat.session_id) if seat.replica == self.replica else None
            link = self.relay.link(seat.replica) if seat.replica not in dead | {self.replica} else None
            if session is not None and not session.closed:
                players.append(session)
                if seat.done:
                    self.lobby.left_queue(seating.queue, session)
            elif link is not None:
                players.append(
                    RelayedSeat(link, seating.game_id, -1, seat.session_id, identity, seat.live_events)
                )
            else:
                players.append(Absent(identity))
        if appointed:
            runner = self.lobby.start_appointment(appointed[0], players, seating.game_id)
        else:
            runner = self.lobby.seat_bots(config, players, seating.game_id)
        done = {s.session_id for s in seating.seats if s.done}
        for index, held in enumerate(runner.seats):
            connection = held.connection if isinstance(held, RemoteSeat) else None
            if isinstance(connection, RelayedSeat):
                connection.index = index
                self.relay.seated(connection, config.name, connection.session_id in done)
            elif isinstance(connection, Absent):
                runner.detach(index)

    def adopt(self, runner: AnyRunner) -> None:
        """A game taken over here: the seats whose bots are connected to other replicas are re-attached
        through the relay (``takeover.adopt`` seated those connected here: they wait for it no more)."""
        for game_id, session_id in list(self.relay.awaited):
            session = self.relay.sessions.get(session_id)
            if game_id == runner.game_id and session is not None and game_id in session.games:
                del self.relay.awaited[game_id, session_id]
        self._spawn(self._adopt(runner), f"adopt-{runner.game_id}")

    async def _adopt(self, runner: AnyRunner) -> None:
        self._took_slots(runner)
        for index, seat in enumerate(runner.seats):
            if not isinstance(seat, RemoteSeat) or not runner.is_resumable(index, seat.identity):
                continue
            try:
                sessions = await asyncio.to_thread(self.store.sessions_of, seat.identity)
            except DatabaseUnavailable as down:
                self._went_down(str(down))
                return
            dead = self.presumed_dead()
            for replica, session_id, live_events in sessions:
                link = self.relay.link(replica) if replica not in dead | {self.replica} else None
                if link is not None and runner.is_resumable(index, seat.identity):
                    identity = Identity(seat.identity, seat.name, seat.bot_id is not None, seat.bot_id)
                    self.relay.attach(link, runner, index, session_id, identity, live_events, resumed=True)
                    break
