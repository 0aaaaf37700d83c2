"""Many replicas, one ladder (``server.cluster``): the replicas' relay addresses and loads, the bots'
sessions and queue memberships (the shared waiting set), the matchmaker's lease, and the seatings it
hands to host replicas. docs/storage.md, "Replicas in a cluster".

A session's free slots change only by relative updates (the matchmaker takes one in the transaction that
seats it, its replica gives one back when the game ends), so two writers never overwrite each other; the
replica numbers its own, so that one it tries again (its commit's answer lost) is applied once. The
lease is fenced by its term: a renewal or a seating carries the term its holder won, and a holder that
lost the lease finds both refused.
"""

from __future__ import annotations

from sqlalchemy import case, delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.records import (
    Identity,
    QueueCount,
    RunningGame,
    SharedAppointment,
    SharedBot,
    SharedSeat,
    SharedSeating,
    SharedWait,
)
from server.storage.live import LiveStore, _changed
from server.storage.models import (
    ClusterAppointmentRow,
    ClusterLeaseRow,
    ClusterReplicaRow,
    ClusterSeatingRow,
    ClusterSessionRow,
    ClusterWaitingRow,
    LiveGameRow,
)


class _Refused(Exception):
    """A seating the database did not take (lease lost, a seat's session gone or full): rolled back."""


class ClusterStore(LiveStore):
    """The shared queues and the matchmaker's lease of the replicas in a cluster."""

    # ------------------------------------------------------------------ replicas

    def publish_replica(self, replica: str, relay: str, games: int) -> None:
        """Replica ``replica``'s relay address and the games it hosts now. Raises: DatabaseUnavailable."""

        def publish(session: Session) -> None:
            row = session.get(ClusterReplicaRow, replica)
            if row is None:
                session.add(ClusterReplicaRow(id=replica, relay=relay, games=games))
            else:
                row.relay, row.games = relay, games

        self._live_write(publish, f"did not keep replica {replica!r}'s relay address")

    def cluster_replicas(self) -> dict[str, tuple[str, int]]:
        """Each replica's relay address and hosted games. Raises: DatabaseUnavailable."""
        return self._live_read(
            lambda session: {r.id: (r.relay, r.games) for r in session.scalars(select(ClusterReplicaRow))}
        )

    def forget_replicas(self, replicas: set[str]) -> None:
        """These replicas are gone: their sessions, queue memberships and address go, and the seatings
        placed on them that they never started go, giving their seats' free slots back."""
        if not replicas:
            return

        def forget(session: Session) -> None:
            for seating in session.scalars(
                select(ClusterSeatingRow).where(ClusterSeatingRow.host.in_(replicas))
            ):
                for seat in seating.seats:
                    session.execute(
                        update(ClusterSessionRow)
                        .where(ClusterSessionRow.replica == seat["replica"])
                        .where(ClusterSessionRow.session_id == seat["session_id"])
                        .values(free=ClusterSessionRow.free + 1)
                    )
                session.delete(seating)
            for table in (ClusterWaitingRow, ClusterSessionRow, ClusterAppointmentRow):
                session.execute(delete(table).where(table.replica.in_(replicas)))
            session.execute(delete(ClusterReplicaRow).where(ClusterReplicaRow.id.in_(replicas)))

        self._live_write(forget, "did not forget the replicas presumed dead")

    # ------------------------------------------------------------------ sessions and queues

    def open_shared_session(self, bot: SharedBot) -> None:
        """A bot's session opened on ``bot.replica`` (kept once: this write may be tried again after a
        commit whose answer was lost). Raises: DatabaseUnavailable."""
        identity = bot.identity

        def open_session(session: Session) -> None:
            if session.get(ClusterSessionRow, (bot.replica, bot.session_id)) is None:
                session.add(
                    ClusterSessionRow(
                        replica=bot.replica,
                        session_id=bot.session_id,
                        key=identity.key,
                        name=identity.name,
                        bot_id=identity.bot_id,
                        ranked=identity.ranked,
                        live_events=bot.live_events,
                        free=bot.free,
                        changes=0,
                    )
                )

        self._live_write(open_session, f"did not keep session {bot.session_id!r}")

    def close_shared_session(self, replica: str, session_id: str) -> None:
        """The session closed: it and its queue memberships go. Raises: DatabaseUnavailable."""

        def close(session: Session) -> None:
            for table in (ClusterWaitingRow, ClusterSessionRow):
                session.execute(delete(table).where(table.replica == replica, table.session_id == session_id))

        self._live_write(close, f"did not remove session {session_id!r}")

    def add_free_slots(self, replica: str, session_id: str, step: int, change: int = 0) -> None:
        """The session's free slots change by ``step`` (a game of its ended: +1; one started: -1).
        ``change``: the number of this change among its replica's own (1, 2, ... in order), applied once
        however often it is tried; 0: not one of those (slots the matchmaker took, given back)."""
        row = ClusterSessionRow.replica == replica, ClusterSessionRow.session_id == session_id
        statement = update(ClusterSessionRow).where(*row).values(free=ClusterSessionRow.free + step)
        if change:
            statement = statement.where(ClusterSessionRow.changes < change).values(changes=change)
        self._live_write(
            lambda session: session.execute(statement), f"did not count session {session_id!r}'s free slots"
        )

    def join_shared_queue(self, wait: SharedWait) -> None:
        """The session joins ``wait.queue`` (again: its games limit is replaced, its wait kept)."""

        def join(session: Session) -> None:
            row = session.get(ClusterWaitingRow, (wait.replica, wait.session_id, wait.queue))
            if row is None:
                session.add(
                    ClusterWaitingRow(
                        replica=wait.replica,
                        session_id=wait.session_id,
                        queue=wait.queue,
                        games_left=wait.games_left,
                        since=wait.since,
                    )
                )
            else:
                row.games_left = wait.games_left

        self._live_write(join, f"did not put session {wait.session_id!r} in queue {wait.queue!r}")

    def leave_shared_queue(self, replica: str, session_id: str, queue: str) -> None:
        """The session leaves ``queue``. Raises: DatabaseUnavailable."""
        self._live_write(
            lambda session: session.execute(
                delete(ClusterWaitingRow).where(
                    ClusterWaitingRow.replica == replica,
                    ClusterWaitingRow.session_id == session_id,
                    ClusterWaitingRow.queue == queue,
                )
            ),
            f"did not take session {session_id!r} out of queue {queue!r}",
        )

    def shared_waiting(self) -> tuple[list[SharedBot], list[SharedWait], list[SharedAppointment]]:
        """Every open session, every queue membership and every appointment waiting (oldest first).

        Raises: DatabaseUnavailable.
        """

        def read(session: Session) -> tuple[list[SharedBot], list[SharedWait], list[SharedAppointment]]:
            waits = [
                SharedWait(w.replica, w.session_id, w.queue, w.games_left, w.since)
                for w in session.scalars(select(ClusterWaitingRow))
            ]
            bots = [
                SharedBot(
                    r.replica,
                    r.session_id,
                    Identity(r.key, r.name, r.ranked, r.bot_id),
                    r.free,
                    r.live_events,
                )
                for r in session.scalars(select(ClusterSessionRow))
            ]
            appointments = [
                SharedAppointment(a.key, a.replica, tuple(a.bots))
                for a in session.scalars(
                    select(ClusterAppointmentRow).order_by(ClusterAppointmentRow.made_at)
                )
            ]
            return bots, waits, appointments

        return self._live_read(read)

    def appoint_shared(self, appointment: SharedAppointment, now: float) -> None:
        """Keep an appointment for the matchmaker to seat (once: this write may be tried again after a
        commit whose answer was lost). Raises: DatabaseUnavailable."""

        def appoint(session: Session) -> None:
            if session.get(ClusterAppointmentRow, appointment.key) is None:
                session.add(
                    ClusterAppointmentRow(
                        key=appointment.key,
                        replica=appointment.replica,
                        bots=list(appointment.bots),
                        made_at=now,
                    )
                )

        self._live_write(appoint, f"did not keep appointment {appointment.key!r}")

    def withdraw_shared(self, key: str) -> None:
        """The appointment is withdrawn (or its game started). Raises: DatabaseUnavailable."""
        self._live_write(
            lambda session: session.execute(
                delete(ClusterAppointmentRow).where(ClusterAppointmentRow.key == key)
            ),
            f"did not withdraw appointment {key!r}",
        )

    def connected_bots(self) -> set[str]:
        """The names of the bots with an open session on any replica. Raises: DatabaseUnavailable."""
        return self._live_read(
            lambda session: set(session.scalars(select(ClusterSessionRow.name).distinct()))
        )

    def sessions_of(self, key: str) -> list[tuple[str, str, bool]]:
        """The open sessions of the bot with identity ``key``, as (replica, session id, live_events)."""
        return self._live_read(
            lambda session: [
                (r.replica, r.session_id, r.live_events)
                for r in session.scalars(select(ClusterSessionRow).where(ClusterSessionRow.key == key))
            ]
        )

    def running_games(self) -> list[RunningGame]:
        """Every game in the action log (being played on some replica), oldest first.

        Raises: DatabaseUnavailable.
        """
        columns = (LiveGameRow.id, LiveGameRow.queue, LiveGameRow.host, LiveGameRow.epoch, LiveGameRow.seats)
        return self._live_read(
            lambda session: [
                RunningGame(
                    game_id,
                    queue,
                    host,
                    epoch - 1,  # a game is logged at epoch 1, and each change of replica adds one
                    tuple((seat["name"], seat["key"]) for seat in seats),
                    started_at,
                )
                for game_id, queue, host, epoch, seats, started_at in session.execute(
                    select(*columns, LiveGameRow.started_at).order_by(LiveGameRow.started_at)
                )
            ]
        )

    def waiting_counts(self) -> dict[tuple[str, str], QueueCount]:
        """By (replica, queue): the sessions of that replica in that queue, and those with a free slot.

        Raises: DatabaseUnavailable.
        """
        ready = func.sum(case((ClusterSessionRow.free > 0, 1), else_=0))
        query = (
            select(ClusterWaitingRow.replica, ClusterWaitingRow.queue, func.count(), ready)
            .join(
                ClusterSessionRow,
                (ClusterSessionRow.replica == ClusterWaitingRow.replica)
                & (ClusterSessionRow.session_id == ClusterWaitingRow.session_id),
            )
            .group_by(ClusterWaitingRow.replica, ClusterWaitingRow.queue)
        )
        return self._live_read(
            lambda session: {
                (replica, queue): QueueCount(int(waiting), int(ready or 0))
                for replica, queue, waiting, ready in session.execute(query)
            }
        )

    # ------------------------------------------------------------------ the lease

    def lease(self, name: str) -> tuple[str, int, int] | None:
        """The lease's (holder, term, renewals), None if no one ever held it."""

        def read(session: Session) -> tuple[str, int, int] | None:
            row = session.get(ClusterLeaseRow, name)
            return None if row is None else (row.holder, row.term, row.renewals)

        return self._live_read(read)

    def take_lease(self, name: str, replica: str, term: int) -> bool:
        """``replica`` takes the lease if its term is still ``term`` (0: no one held it yet); exactly one
        of several takers wins. True when it did (its term is then ``term + 1``)."""

        def take(session: Session) -> bool:
            if term == 0:
                session.add(ClusterLeaseRow(name=name, holder=replica, term=1, renewals=0))
                return True
            won = _changed(
                session,
                update(ClusterLeaseRow)
                .where(ClusterLeaseRow.name == name, ClusterLeaseRow.term == term)
                .values(holder=replica, term=term + 1, renewals=0),
            )
            return won == 1

        try:
            return self._live_write(take, f"did not let {replica!r} take the {name} lease")
        except IntegrityError:  # the first holder's row raced another's insert: that one won
            return False

    def renew_lease(self, name: str, replica: str, term: int) -> bool:
        """The holder renews its lease; False when it no longer holds it at ``term``."""
        return (
            self._live_write(
                lambda session: _changed(
                    session,
                    update(ClusterLeaseRow)
                    .where(ClusterLeaseRow.name == name, ClusterLeaseRow.holder == replica)
                    .where(ClusterLeaseRow.term == term)
                    .values(renewals=ClusterLeaseRow.renewals + 1),
                ),
                f"did not renew {replica!r}'s {name} lease",
            )
            == 1
        )

    def give_up_lease(self, name: str, replica: str, term: int) -> None:
        """``replica``, stopping, leaves the lease it holds at ``term`` to no one (its holder ""): another
        replica takes it at once, with the next term, instead of waiting for its renewals to stop."""
        self._live_write(
            lambda session: session.execute(
                update(ClusterLeaseRow)
                .where(ClusterLeaseRow.name == name, ClusterLeaseRow.holder == replica)
                .where(ClusterLeaseRow.term == term)
                .values(holder="")
            ),
            f"did not let {replica!r} give up the {name} lease",
        )

    # ------------------------------------------------------------------ seatings

    def seat_shared(self, lease: str, replica: str, term: int, seating: SharedSeating, now: float) -> bool:
        """Keep a seating by the holder of ``lease`` at ``term``, in one transaction: the lease is checked,
        each seat's session gives a free slot, its queue membership's wait restarts at ``now`` (or, when
        ``done``, the membership goes) or, for an appointment's game, the appointment goes; the seating
        waits for its host. False (nothing written) when the lease was lost, the host left, a seat's
        session is gone or has no free slot left, or the appointment was withdrawn."""

        def seat(session: Session) -> None:
            held = session.get(ClusterLeaseRow, lease, with_for_update=True)
            if held is None or held.holder != replica or held.term != term:
                raise _Refused
            if session.get(ClusterReplicaRow, seating.host) is None:  # its host left (drained) meanwhile
                raise _Refused
            if seating.appointment:  # it is seated once, unless withdrawn meanwhile
                gone = delete(ClusterAppointmentRow).where(ClusterAppointmentRow.key == seating.appointment)
                if _changed(session, gone) != 1:
                    raise _Refused
            for s in seating.seats:
                moved = _changed(
                    session,
                    update(ClusterSessionRow)
                    .where(
                        ClusterSessionRow.replica == s.replica, ClusterSessionRow.session_id == s.session_id
                    )
                    .where(ClusterSessionRow.free > 0)
                    .values(free=ClusterSessionRow.free - 1),
                )
                if moved != 1:
                    raise _Refused
                if seating.appointment:
                    continue
                membership = (
                    ClusterWaitingRow.replica == s.replica,
                    ClusterWaitingRow.session_id == s.session_id,
                    ClusterWaitingRow.queue == seating.queue,
                )
                if s.done:
                    session.execute(delete(ClusterWaitingRow).where(*membership))
                else:
                    left = ClusterWaitingRow.games_left
                    session.execute(
                        update(ClusterWaitingRow)
                        .where(*membership)
                        .values(since=now, games_left=case((left > 0, left - 1), else_=0))
                    )
            session.add(
                ClusterSeatingRow(
                    game_id=seating.game_id,
                    queue=seating.queue,
                    host=seating.host,
                    seats=[
                        {
                            "replica": s.replica,
                            "session_id": s.session_id,
                            "key": s.key,
                            "name": s.name,
                            "bot_id": s.bot_id,
                            "ranked": s.ranked,
                            "live_events": s.live_events,
                            "done": s.done,
                        }
                        for s in seating.seats
                    ],
                    appointment=seating.appointment,
                )
            )

        try:
            self._live_write(seat, f"did not keep the seating of game {seating.game_id!r}")
        except _Refused:
            return False
        return True

    def take_seatings(self, host: str) -> list[SharedSeating]:
        """The seatings waiting for replica ``host`` to start them, taken (removed) in one transaction."""

        def take(session: Session) -> list[SharedSeating]:
            rows = list(session.scalars(select(ClusterSeatingRow).where(ClusterSeatingRow.host == host)))
            for row in rows:
                session.delete(row)
            return [
                SharedSeating(
                    row.game_id,
                    row.queue,
                    row.host,
                    tuple(
                        SharedSeat(
                            s["replica"],
                            s["session_id"],
                            s["key"],
                            s["name"],
                            s["bot_id"],
                            s["ranked"],
                            s["live_events"],
                            s["done"],
                        )
                        for s in row.seats
                    ),
                    row.appointment,
                )
                for row in rows
            ]

        return self._live_write(take, f"did not hand replica {host!r} its seatings")
