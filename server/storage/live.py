"""Running games, so that no game is lost when its server dies: the replicas and their heartbeats, each
live game's record (host, fencing epoch, fresh seeds) and its actions in batches.

Every write about a game carries the epoch its writer holds; a takeover adds one to the epoch with an
``UPDATE ... WHERE epoch = <the one read>``, so exactly one claimer wins, and from then on the old host's
writes (actions, and its result: ``GameStore.record_game``'s ``epoch``) are refused with
``GameHandedOver``. docs/storage.md, "Games taken over".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from sqlalchemy import CursorResult, Executable, delete, select, update
from sqlalchemy.exc import IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session

from server.records import DatabaseUnavailable, GameHandedOver, LiveGame, LiveSeat
from server.storage.database import Database, T, utc_now
from server.storage.models import LiveActionsRow, LiveGameRow, ReplicaRow


class LiveStore(Database):
    """Running games and the replicas that play them."""

    def open_live_game(self, game: LiveGame, host: str) -> None:
        """Keep a game that just started, hosted by replica ``host`` at ``game.epoch``.

        Raises: DatabaseUnavailable.
        """

        def add(session: Session) -> None:
            session.add(
                LiveGameRow(
                    id=game.game_id,
                    queue=game.queue,
                    rules=dict(game.rules),
                    board=game.board,
                    seed=game.seed,
                    dice_version=game.dice_version,
                    seats=[
                        {
                            "name": s.name,
                            "key": s.key,
                            "bot_id": s.bot_id,
                            "ranked": s.ranked,
                            "house": s.house,
                        }
                        for s in game.seats
                    ],
                    seed_commitment=game.seed_commitment,
                    started_at=game.started_at,
                    host=host,
                    epoch=game.epoch,
                    actions=0,
                    reseeds=[],
                )
            )

        self._live_write(add, f"did not keep game {game.game_id!r} running")

    def append_actions(self, game_id: str, epoch: int, first: int, count: int, data: str) -> None:
        """Log ``count`` actions (``data``: their JSON array) as the game's actions ``first`` on.

        Raises:
            GameHandedOver: the game's epoch is no longer ``epoch`` (or the game is gone): another server
                took it over; nothing was written.
            DatabaseUnavailable: nothing was written; the same call may succeed later.
        """

        def append(session: Session) -> None:
            moved = _changed(
                session,
                update(LiveGameRow)
                .where(LiveGameRow.id == game_id, LiveGameRow.epoch == epoch, LiveGameRow.actions == first)
                .values(actions=first + count),
            )
            if moved != 1:
                row = session.get(LiveGameRow, game_id)
                if row is not None and row.epoch == epoch and row.actions == first + count:
                    return  # this very batch was written by an attempt whose commit was not seen
                raise GameHandedOver(_handed_over(game_id, epoch, row))
            session.add(LiveActionsRow(game_id=game_id, first=first, data=data))

        self._live_write(append, f"did not log the actions of game {game_id!r}")

    def beat(self, replica: str) -> None:
        """Replica ``replica`` is alive: one more heartbeat (its row is made at its first).

        Raises: DatabaseUnavailable.
        """

        def beat(session: Session) -> None:
            now = utc_now()
            moved = _changed(
                session,
                update(ReplicaRow)
                .where(ReplicaRow.id == replica)
                .values(beats=ReplicaRow.beats + 1, beat_at=now),
            )
            if moved == 0:
                session.add(ReplicaRow(id=replica, beats=1, beat_at=now))

        self._live_write(beat, f"did not take replica {replica!r}'s heartbeat")

    def leave(self, replica: str) -> None:
        """Replica ``replica`` stopped cleanly (its games are over): its row goes."""
        self._live_write(
            lambda session: session.execute(delete(ReplicaRow).where(ReplicaRow.id == replica)),
            f"did not remove replica {replica!r}",
        )

    def replica_beats(self) -> dict[str, int]:
        """Every registered replica's heartbeats so far. Raises: DatabaseUnavailable."""
        return self._live_read(
            lambda session: {r.id: r.beats for r in session.scalars(select(ReplicaRow))},
        )

    def live_games(self) -> list[tuple[str, str, int, int]]:
        """Every running game as (game id, host replica, epoch, actions logged), oldest first.

        Raises: DatabaseUnavailable.
        """
        return self._live_read(
            lambda session: [
                (row.id, row.host, row.epoch, row.actions)
                for row in session.scalars(select(LiveGameRow).order_by(LiveGameRow.started_at))
            ]
        )

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
                epoch=epoch + 1,
                reseeds=tuple((int(at), int(s), str(c)) for at, s, c in reseeds),
                actions=row.actions,
            )
            return game, list(batches)

        return self._live_write(claim, f"did not let game {game_id!r} be claimed")

    def _live_write(self, work: Callable[[Session], T], what: str) -> T:
        try:
            return self._write(work, attempts=1)
        except IntegrityError as clash:  # a second open of one game id
            raise GameHandedOver(f"the database {what}: {clash.orig}") from None
        except (OperationalError, InterfaceError) as down:
            raise DatabaseUnavailable(f"the {self.dialect} database {what}: {down.orig or down}") from down

    def _live_read(self, work: Callable[[Session], T]) -> T:
        try:
            return self._read(work)
        except (OperationalError, InterfaceError) as down:
            raise DatabaseUnavailable(
                f"the {self.dialect} database cannot be read: {down.orig or down}"
            ) from down


def _changed(session: Session, statement: Executable) -> int:
    """Run an UPDATE; the rows it changed."""
    return cast(CursorResult[Any], session.execute(statement)).rowcount


def fence(session: Session, game_id: str, epoch: int) -> None:
    """In a result's transaction: the game must still be live at ``epoch`` (this writer still hosts it);
    its live record and logged actions go, as the result takes their place.

    Raises:
        GameHandedOver: another server took the game over.
    """
    row = session.get(LiveGameRow, game_id, with_for_update=True)
    if row is None or row.epoch != epoch:
        raise GameHandedOver(_handed_over(game_id, epoch, row))
    session.execute(delete(LiveActionsRow).where(LiveActionsRow.game_id == game_id))
    session.delete(row)


def _handed_over(game_id: str, epoch: int, row: LiveGameRow | None) -> str:
    if row is None:
        return (
            f"game {game_id!r} is not live in the database (finished or ended elsewhere): epoch {epoch} "
            "is stale"
        )
    return (
        f"game {game_id!r} was taken over by replica {row.host!r} (epoch {row.epoch}); this server's epoch "
        f"{epoch} is stale, so it records nothing more of the game"
    )
