"""Running games, so that no game is lost when its server dies: the replicas and their heartbeats, each
live game's record (host, fencing epoch, fresh seeds) and its actions in batches.

Every write about a game carries the epoch its writer holds; a takeover adds one to the epoch with an
``UPDATE ... WHERE epoch = <the one read>``, so exactly one claimer wins, and from then on the old host's
writes (actions, and its result: ``GameStore.record_game``'s ``epoch``) are refused with
``GameHandedOver``. docs/storage.md, "Games taken over".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, fields
from typing import Any, cast

from sqlalchemy import Connection, CursorResult, Executable, Table, bindparam, delete, insert, select, update
from sqlalchemy.orm import Session

from server.records import (
    ActionBatch,
    ClusterCounts,
    GameHandedOver,
    Heartbeat,
    LiveGame,
    LiveSeat,
)
from server.storage.database import Database, T, unavailable, utc_now
from server.storage.models import ClusterTotalsRow, LiveActionsRow, LiveGameRow, ReplicaRow

LIVE_GAMES = cast(Table, LiveGameRow.__table__)
LIVE_ACTIONS = cast(Table, LiveActionsRow.__table__)
REPLICAS = cast(Table, ReplicaRow.__table__)
TOTALS = cast(Table, ClusterTotalsRow.__table__)
"""The tables the heartbeat writes, reached through SQLAlchemy Core: once a second per replica, for all
its games at once, without the ORM's unit of work."""
COUNTS = tuple(f.name for f in fields(ClusterCounts))
"""The ``ClusterCounts`` columns of ``replicas`` and ``cluster_totals``."""
RELEASED = ""
"""The host of a game its draining replica handed over: no replica, so any claims it at its next beat."""


class LiveStore(Database):
    """Running games and the replicas that play them."""

    def beat(
        self,
        replica: str,
        batches: Sequence[ActionBatch],
        leaving: bool = False,
        counts: ClusterCounts | None = None,
    ) -> Heartbeat:
        """In ONE transaction: one more heartbeat of ``replica`` (its row is made at its first), with its
        process's ``counts`` so far (absolute values, so a beat tried again counts once; None: its row's
        are kept), each of
        ``batches`` logged in order, and the registry read back. A batch carrying its game's record opens
        the game, hosted by ``replica``. A batch is refused, writing nothing, when its game is not live at
        its epoch with its ``first`` actions logged (another server took the game over, or it ended
        elsewhere), and so are that game's later batches (a game's batches follow each other: the first
        of them is the one refused, and nothing of the game is written); the other games' are written. A
        batch whose actions are logged already (a transaction whose commit was not seen) is not written
        again. ``leaving``: then each game ``replica`` hosts is released (its host ``RELEASED``, its epoch
        one up: the leaving replica's writes are refused from now on, and the others claim it at once,
        as a game whose host is not registered) and ``replica``'s row goes, its counts (the games it
        released counted as handed over) added to the cluster's totals. A batch of no actions
        (``count`` 0, its record alone: ``open_games``'s, sent again) opens its game with none logged.

        Raises: DatabaseUnavailable (nothing was written).
        """

        def beat(session: Session) -> Heartbeat:
            connection = session.connection()
            now = utc_now()
            written = asdict(counts) if counts is not None else {}
            counted = connection.execute(
                update(REPLICAS)
                .where(REPLICAS.c.id == replica)
                .values(beats=REPLICAS.c.beats + 1, beat_at=now, **written)
            )
            if counted.rowcount == 0:
                connection.execute(insert(REPLICAS).values(id=replica, beats=1, beat_at=now, **written))
            refused = _log(connection, replica, batches) if batches else {}
            released: tuple[str, ...] = ()
            if leaving:
                released = tuple(
                    connection.execute(
                        update(LIVE_GAMES)
                        .where(LIVE_GAMES.c.host == replica)
                        .values(host=RELEASED, epoch=LIVE_GAMES.c.epoch + 1)
                        .returning(LIVE_GAMES.c.id)
                    ).scalars()
                )
                _leave(connection, replica, counts, len(released))
            beats = {r.id: r.beats for r in connection.execute(select(REPLICAS.c.id, REPLICAS.c.beats))}
            return Heartbeat(beats, _live_games(connection, other_than=replica), refused, released)

        return self._live_write(beat, f"did not take replica {replica!r}'s heartbeat")

    def open_games(self, replica: str, batches: Sequence[ActionBatch]) -> dict[str, str]:
        """In ONE transaction, ``batches`` logged as ``beat`` logs them, without a heartbeat: the records of
        games starting on ``replica`` (batches of no actions carrying them), written before their first
        request so that a game killed at any moment after its start is taken over. Returns the refused
        games, each with the reason.

        Raises: DatabaseUnavailable (nothing was written).
        """
        return self._live_write(
            lambda session: _log(session.connection(), replica, batches),
            f"did not open replica {replica!r}'s starting games",
        )

    def leave(self, replica: str, counts: ClusterCounts) -> None:
        """Replica ``replica`` stopped cleanly (its games are over): its row goes, its process's last
        ``counts`` added to the cluster's totals in the same transaction (nothing, when its row went
        already: a drained replica's last beat took it)."""
        self._live_write(
            lambda session: _leave(session.connection(), replica, counts),
            f"did not remove replica {replica!r}",
        )

    def cluster_counts(self) -> tuple[dict[str, ClusterCounts], ClusterCounts]:
        """Each registered replica's counts, as of its last heartbeat, and the cluster's totals since the
        database was created: those of the replicas that left, and those of every registered one (presumed
        dead ones included, whose rows stay).

        Raises: DatabaseUnavailable.
        """

        def read(session: Session) -> tuple[dict[str, ClusterCounts], ClusterCounts]:
            connection = session.connection()
            columns = [REPLICAS.c[name] for name in COUNTS]
            registered = {
                row.id: ClusterCounts(*row[1:]) for row in connection.execute(select(REPLICAS.c.id, *columns))
            }
            left = connection.execute(select(*(TOTALS.c[name] for name in COUNTS))).first()
            totals = ClusterCounts(*left) if left is not None else ClusterCounts()
            return registered, sum(registered.values(), totals)

        return self._live_read(read)

    def live_games(self) -> list[tuple[str, str, int, int]]:
        """Every running game as (game id, host replica, epoch, actions logged), oldest first.

        Raises: DatabaseUnavailable.
        """
        return self._live_read(lambda session: _live_games(session.connection()))

    def claim_game(
        self, game_id: str, epoch: int, actions: int, replica: str, seed: int, commitment: str
    ) -> tuple[LiveGame, list[str]] | None:
        """Take the game over for ``replica`` if its epoch is still ``epoch`` and ``actions`` actions are
        logged: its epoch goes one up, its host becomes ``replica`` and ``seed`` (with ``commitment``) is
        kept as the fresh seed from action ``actions`` on. Returns the game as claimed and its logged
        batches in order; None when another server changed it first (it claimed the game, or its host
        logged more actions meanwhile).

        Raises: DatabaseUnavailable.
        """

        def claim(session: Session) -> tuple[LiveGame, list[str]] | None:
            row = session.get(LiveGameRow, game_id)
            if row is None or row.epoch != epoch or row.actions != actions:
                return None
            reseeds = [*row.reseeds, [actions, str(seed), commitment]]
            won = _changed(
                session,
                update(LiveGameRow)
                .where(LiveGameRow.id == game_id, LiveGameRow.epoch == epoch, LiveGameRow.actions == actions)
                .values(epoch=epoch + 1, host=replica, reseeds=reseeds)
                .execution_options(synchronize_session=False),
            )
            if won != 1:
                return None
            batches = session.scalars(
                select(LiveActionsRow.data)
                .where(LiveActionsRow.game_id == game_id)
                .order_by(LiveActionsRow.first)
            ).all()
            game = LiveGame(
                game_id=row.id,
                queue=row.queue,
                rules=row.rules,
                board=row.board,
                seed=row.seed,
                dice_version=row.dice_version,
                seats=tuple(
                    LiveSeat(s["name"], s["key"], s["bot_id"], bool(s["ranked"]), s["house"])
                    for s in row.seats
                ),
                seed_commitment=row.seed_commitment,
                started_at=row.started_at,
                rated=row.rated,
                epoch=epoch + 1,
                reseeds=tuple((int(at), int(s), str(c)) for at, s, c in reseeds),
                actions=row.actions,
            )
            return game, list(batches)

        return self._live_write(claim, f"did not let game {game_id!r} be claimed")

    def _live_write(self, work: Callable[[Session], T], what: str) -> T:
        with unavailable(self.dialect, what):
            return self._write(work, attempts=1)

    def _live_read(self, work: Callable[[Session], T]) -> T:
        with unavailable(self.dialect, "cannot be read"):
            return self._read(work)


def _log(connection: Connection, host: str, batches: Sequence[ActionBatch]) -> dict[str, str]:
    """``beat``'s batches: each game's row is locked and checked once, then the new games, the action
    counts and the batches are written with one statement each (many rows at once). Returns the refused
    games, each with the reason."""
    held = {
        r.id: (r.host, r.epoch, r.actions)
        for r in connection.execute(
            select(LIVE_GAMES.c.id, LIVE_GAMES.c.host, LIVE_GAMES.c.epoch, LIVE_GAMES.c.actions)
            .where(LIVE_GAMES.c.id.in_({b.game_id for b in batches}))
            .order_by(LIVE_GAMES.c.id)  # locked in one order: two writers never wait for each other
            .with_for_update()
        )
    }
    opened: list[dict[str, Any]] = []
    logged: dict[str, int] = {}
    rows: list[dict[str, Any]] = []
    refused: dict[str, str] = {}
    for batch in batches:
        game_id = batch.game_id
        if game_id in refused:
            continue
        row = held.get(game_id)
        if row is None and batch.game is not None:
            opened.append(_opened(batch.game, host, batch.epoch))
            row = (host, batch.epoch, batch.first)
        if row is None or row[1] != batch.epoch or row[2] not in (batch.first, batch.first + batch.count):
            refused[game_id] = _handed_over(game_id, batch.epoch, row)
            continue
        held[game_id] = (row[0], row[1], batch.first + batch.count)
        # not written: a batch a transaction whose commit was not seen wrote already, or a record alone (a
        # starting game's: it only opens the game, with no action logged)
        if row[2] == batch.first and batch.count:
            logged[game_id] = batch.first + batch.count
            rows.append({"game_id": game_id, "first": batch.first, "data": batch.data})
    if opened:
        connection.execute(insert(LIVE_GAMES), opened)
    if logged:
        connection.execute(
            update(LIVE_GAMES).where(LIVE_GAMES.c.id == bindparam("game")).values(actions=bindparam("count")),
            [{"game": game_id, "count": count} for game_id, count in logged.items()],
        )
    if rows:
        connection.execute(insert(LIVE_ACTIONS), rows)
    return refused


def _opened(game: LiveGame, host: str, epoch: int) -> dict[str, Any]:
    """A new game's ``live_games`` row, its actions counted as its first batch is written."""
    return {
        "id": game.game_id,
        "queue": game.queue,
        "rules": dict(game.rules),
        "board": game.board,
        "seed": game.seed,
        "dice_version": game.dice_version,
        "seats": [
            {"name": s.name, "key": s.key, "bot_id": s.bot_id, "ranked": s.ranked, "house": s.house}
            for s in game.seats
        ],
        "seed_commitment": game.seed_commitment,
        "started_at": game.started_at,
        "rated": game.rated,
        "host": host,
        "epoch": epoch,
        "actions": 0,
        "reseeds": [],
    }


def _live_games(connection: Connection, other_than: str | None = None) -> list[tuple[str, str, int, int]]:
    """The running games as (game id, host, epoch, actions logged), oldest first; those of replica
    ``other_than`` left out."""
    query = select(LIVE_GAMES.c.id, LIVE_GAMES.c.host, LIVE_GAMES.c.epoch, LIVE_GAMES.c.actions)
    if other_than is not None:
        query = query.where(LIVE_GAMES.c.host != other_than)
    return [
        (r.id, r.host, r.epoch, r.actions)
        for r in connection.execute(query.order_by(LIVE_GAMES.c.started_at))
    ]


def _leave(connection: Connection, replica: str, last: ClusterCounts | None, handed_over: int = 0) -> None:
    """``replica``'s row leaves the registry and its counts (``last``, its process's latest; None: as its
    row has them), with ``handed_over`` more games handed over, are added to ``cluster_totals``' one row:
    once, as the row goes once (nothing when it went already)."""
    gone = connection.execute(
        delete(REPLICAS).where(REPLICAS.c.id == replica).returning(*(REPLICAS.c[name] for name in COUNTS))
    ).first()
    if gone is None:
        return
    added = asdict((last or ClusterCounts(*gone)) + ClusterCounts(games_handed_over=handed_over))
    connection.execute(update(TOTALS).values({TOTALS.c[n]: TOTALS.c[n] + added[n] for n in COUNTS}))


def _changed(session: Session, statement: Executable) -> int:
    """Run an UPDATE; the rows it changed."""
    return cast(CursorResult[Any], session.execute(statement)).rowcount


def fence(session: Session, game_id: str, epoch: int) -> None:
    """In a result's transaction: a game whose live record is there must still be live at ``epoch`` (this
    writer still hosts it), and its live record and logged actions go as the result takes their place. A
    game with no live record was never logged (the database did not take its record as it started, nor
    at a heartbeat before it ended, or the game was not of the action log): there is nothing to fence, as
    no other server can have claimed it, and the game id's primary key still keeps its result once.

    Raises:
        GameHandedOver: another server took the game over.
    """
    connection = session.connection()
    row = connection.execute(
        select(LIVE_GAMES.c.host, LIVE_GAMES.c.epoch).where(LIVE_GAMES.c.id == game_id).with_for_update()
    ).first()
    if row is None:
        return
    if row.epoch != epoch:
        raise GameHandedOver(_handed_over(game_id, epoch, (row.host, row.epoch, 0)))
    connection.execute(delete(LIVE_ACTIONS).where(LIVE_ACTIONS.c.game_id == game_id))
    connection.execute(delete(LIVE_GAMES).where(LIVE_GAMES.c.id == game_id))


def _handed_over(game_id: str, epoch: int, row: tuple[str, int, int] | None) -> str:
    """Why a write about ``game_id`` at ``epoch`` is refused; ``row``: its (host, epoch, actions logged)."""
    if row is None:
        return (
            f"game {game_id!r} is not live in the database (finished or ended elsewhere): epoch {epoch} "
            "is stale"
        )
    host, held, _ = row
    if held == epoch:
        return (
            f"game {game_id!r} has {row[2]} actions logged at epoch {epoch}, not what this server sent: "
            "another writer holds its epoch, so this server records nothing more of it"
        )
    return (
        f"game {game_id!r} was taken over by replica {host!r} (epoch {held}); this server's epoch "
        f"{epoch} is stale, so it records nothing more of the game"
    )
