"""What play needs from outside it, as small Protocols: who a Hello speaks for, the bots' ratings, where
a finished game's result is kept, and where running games are logged for another server to take over.
``server.app`` wires them to the database (``server.storage``), or leaves play to its practice defaults;
play never imports ``server.storage``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from conquest.v1 import bot_pb2
from engine.r2210.replay import Replay2210
from engine.replay import Replay
from server.records import (
    ActionBatch,
    ClusterCounts,
    GameResult,
    Heartbeat,
    Identity,
    LiveGame,
    QueueCount,
    RunningGame,
    SharedAppointment,
    SharedBot,
    SharedSeating,
    SharedWait,
    Skill,
)


class Authenticator(Protocol):
    def authenticate(self, hello: bot_pb2.Hello) -> Identity:
        """The bot a Hello speaks for.

        Raises:
            HelloError: unknown token, or no token where one is required.
        """
        ...


class Ratings(Protocol):
    """The ladder's ratings and its recent games, as the matchmaker reads them. A read the database does not
    answer raises DatabaseUnavailable (a cluster's matchmaker, which reads them in its loop, then says its
    database is down and pairs no more until it is back)."""

    def skill(self, queue: str, identity: Identity) -> Skill:
        """The player's rating in ``queue`` (the initial one for a practice player)."""
        ...

    def forget(self, queue: str, bot_ids: list[int]) -> None:
        """These bots' ratings in ``queue`` may have changed (a game of theirs was recorded)."""
        ...

    def recent_tables(self, queue: str, limit: int) -> list[list[str]]:
        """The identity keys of the queue's last ``limit`` recorded games, in seat order, oldest first."""
        ...


class ResultSink(Protocol):
    """Where finished games are kept with their results and rating updates (the database)."""

    @property
    def dialect(self) -> str:
        """What kind of database it is ("sqlite", "postgresql"), for the logs."""
        ...

    def record_game(
        self, result: GameResult, replay: Replay | Replay2210, epoch: int | None = None
    ) -> Sequence[object]:
        """Keep the game: result, rating updates and replay at once. Returns its rating changes (none for
        an unrated game). ``epoch``: the game may have been logged live at this epoch (``ActionLog``);
        a stale one raises GameHandedOver and nothing is kept."""
        ...

    def check(self) -> None:
        """Reach the database now; raises DatabaseUnavailable when it cannot be reached."""
        ...


class ActionLog(Protocol):
    """Running games kept in the database as they are played (``server.play.takeover``): each write about
    a game carries the writer's epoch and is refused once another server has taken the game over; every
    method raises ``DatabaseUnavailable`` when the database did not answer (and then wrote nothing)."""

    def beat(
        self,
        replica: str,
        batches: Sequence[ActionBatch],
        leaving: bool = False,
        counts: ClusterCounts | None = None,
    ) -> Heartbeat:
        """In ONE transaction: replica ``replica``'s heartbeat with its process's ``counts`` so far
        (absolute values: a beat tried again counts once), ``batches`` logged in order (a batch
        carrying its game's record opens the game, hosted by ``replica``), and what the registry holds
        now (a starting game's record goes ahead of its actions, by ``open_games``, and comes here only
        when that did not reach the database). A batch whose game was taken over or is no longer live
        writes nothing and is named in
        ``Heartbeat.refused``; the other games' batches are written. A batch written already (by a
        transaction whose commit was not seen) is not written twice. ``leaving`` (a draining replica's
        last beat): then every game ``replica`` hosts is released, its host gone and its epoch one up (its
        writes from now on are refused, and any other replica claims it at its next heartbeat), named in
        ``Heartbeat.released``, and ``replica`` leaves the registry, its counts (those games counted as
        handed over) added to the cluster's totals."""
        ...

    def open_games(self, replica: str, batches: Sequence[ActionBatch]) -> dict[str, str]:
        """In ONE transaction, ``batches`` logged as ``beat`` logs them, without a heartbeat: the records
        of games starting (batches of no actions carrying them), hosted by ``replica``. Returns the games
        whose batches were refused (another server holds them), each with the reason."""
        ...

    def leave(self, replica: str, counts: ClusterCounts) -> None:
        """Replica ``replica`` stopped cleanly: it leaves the registry, its process's last ``counts`` added
        to the cluster's totals (once: nothing when its last beat took it out already)."""
        ...

    def claim_game(
        self, game_id: str, epoch: int, actions: int, replica: str, seed: int, commitment: str
    ) -> tuple[LiveGame, list[str]] | None:
        """Take the game over if its epoch is still ``epoch`` and ``actions`` are logged: the game as
        claimed (epoch + 1, the fresh seed kept from action ``actions`` on) and its logged batches; None
        when another server got there first."""
        ...


class SharedQueues(Protocol):
    """The cluster's shared queues and matchmaker lease (``server.play.cluster``); every method raises
    ``DatabaseUnavailable`` when the database did not answer."""

    def publish_replica(self, replica: str, relay: str, games: int) -> None:
        """This replica's relay address and the games it hosts now."""
        ...

    def give_up_lease(self, name: str, replica: str, term: int) -> None:
        """``replica``, stopping, leaves the lease it holds at ``term`` to no one (its holder "")."""
        ...

    def cluster_replicas(self) -> dict[str, tuple[str, int]]:
        """Each replica's relay address and hosted games."""
        ...

    def cluster_counts(self) -> tuple[dict[str, ClusterCounts], ClusterCounts]:
        """Each registered replica's counts as of its last heartbeat, and the cluster's totals since the
        database was created."""
        ...

    def forget_replicas(self, replicas: set[str]) -> None:
        """These replicas are gone: their sessions, memberships and address go."""
        ...

    def open_shared_session(self, bot: SharedBot) -> None:
        """A bot's session opened."""
        ...

    def close_shared_session(self, replica: str, session_id: str) -> None:
        """A bot's session closed."""
        ...

    def add_free_slots(self, replica: str, session_id: str, step: int, change: int = 0) -> None:
        """A session's free slots change by ``step``; ``change``: its number among its replica's own
        changes (1, 2, ... in order), applied once however often it is tried (0: not numbered)."""
        ...

    def join_shared_queue(self, wait: SharedWait) -> None:
        """A session joins a queue."""
        ...

    def leave_shared_queue(self, replica: str, session_id: str, queue: str) -> None:
        """A session leaves a queue."""
        ...

    def shared_waiting(self) -> tuple[list[SharedBot], list[SharedWait], list[SharedAppointment]]:
        """Every open session, every queue membership and every appointment waiting (oldest first)."""
        ...

    def appoint_shared(self, appointment: SharedAppointment, now: float) -> None:
        """Keep an appointment for the matchmaker to seat."""
        ...

    def withdraw_shared(self, key: str) -> None:
        """An appointment is withdrawn."""
        ...

    def connected_bots(self) -> set[str]:
        """The names of the bots with an open session on any replica."""
        ...

    def sessions_of(self, key: str) -> list[tuple[str, str, bool]]:
        """The open sessions of a bot, as (replica, session id, live_events)."""
        ...

    def running_games(self) -> list[RunningGame]:
        """Every game being played on some replica (in the action log), oldest first."""
        ...

    def waiting_counts(self) -> dict[tuple[str, str], QueueCount]:
        """By (replica, queue): its sessions waiting in the queue, and those of them with a free slot."""
        ...

    def lease(self, name: str) -> tuple[str, int, int] | None:
        """The lease's (holder, term, renewals), None if never held."""
        ...

    def take_lease(self, name: str, replica: str, term: int) -> bool:
        """Take the lease if its term is still ``term``; exactly one taker wins."""
        ...

    def renew_lease(self, name: str, replica: str, term: int) -> bool:
        """Renew the lease held at ``term``; False once lost."""
        ...

    def seat_shared(self, lease: str, replica: str, term: int, seating: SharedSeating, now: float) -> bool:
        """Keep a seating by the lease's holder at ``term``; False (nothing written) when refused."""
        ...

    def take_seatings(self, host: str) -> list[SharedSeating]:
        """The seatings for replica ``host`` to start, taken once."""
        ...
