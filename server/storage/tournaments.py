"""Tournaments: entrants seeded by rating, rounds of tables, and the recorded game that counts for each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.records import ABORTED, INITIAL, SHUTDOWN, Skill, shown
from server.storage.bots import bot_row
from server.storage.database import Database, utc_now
from server.storage.errors import AlreadyExistsError, InvalidInputError, NotFoundError
from server.storage.models import (
    BotRow,
    EntrantRow,
    GameRow,
    RatingRow,
    SeatRow,
    TournamentRow,
    TournamentTableRow,
)


@dataclass(frozen=True, slots=True)
class EntrantRecord:
    name: str
    seed: int
    """1 = the best rated at the start."""
    rating: float
    """μ − 3σ at the start."""


@dataclass(frozen=True, slots=True)
class TableRecord:
    id: int
    round: int
    number: int
    bots: list[str]
    """Bot names in seat order; one name is a bye."""
    game_id: str | None
    """The recorded game that counts for this table (None: a bye, or not played yet)."""
    places: list[int] | None
    """Its final places in seat order, once played."""
    playing: str | None = None
    """The game seated for this table and not recorded yet: being played, on any replica (or lost)."""


@dataclass(frozen=True, slots=True)
class TournamentRecord:
    id: int
    name: str
    format: str
    table_size: int
    rounds: int
    queue: str
    rules: dict[str, Any]
    time_control: dict[str, Any]
    created_at: datetime
    finished_at: datetime | None
    entrants: list[EntrantRecord]
    tables: list[TableRecord]


class TournamentStore(Database):
    """Tournaments, their entrants and their tables."""

    def create_tournament(
        self,
        name: str,
        *,
        format: str,
        table_size: int,
        rounds: int,
        rules: dict[str, Any],
        time_control: dict[str, Any],
        bots: Sequence[str],
        rating_queue: str | None,
    ) -> TournamentRecord:
        """A new tournament; entrants are seeded by μ − 3σ in ``rating_queue`` (the default rating if None
        or unrated), then by name.

        Raises:
            AlreadyExistsError (name taken), NotFoundError (unknown bot), InvalidInputError (a bot named
            twice, or revoked).
        """
        if len(set(bots)) != len(bots):
            raise InvalidInputError(f"bots {list(bots)} name a bot more than once: each enters once")

        def create(session: Session) -> int:
            if session.scalar(select(TournamentRow.id).where(TournamentRow.name == name)) is not None:
                raise AlreadyExistsError(f"a tournament named {name!r} exists; choose another name")
            rows = [bot_row(session, bot) for bot in bots]
            revoked = [r.name for r in rows if r.revoked_at is not None]
            if revoked:
                raise InvalidInputError(f"bots {revoked} are revoked and cannot enter a tournament")
            skills = {
                r.bot_id: Skill(r.mu, r.sigma)
                for r in session.scalars(select(RatingRow).where(RatingRow.queue == (rating_queue or "")))
            }
            scored = sorted(
                ((skills.get(r.id, INITIAL).conservative, r) for r in rows),
                key=lambda pair: (-pair[0], pair[1].name),
            )
            tournament = TournamentRow(
                name=name,
                format=format,
                table_size=table_size,
                rounds=rounds,
                queue=f"tournament-{name}",
                rules=rules,
                time_control=time_control,
                created_at=utc_now(),
            )
            session.add(tournament)
            session.flush()
            session.add_all(
                EntrantRow(tournament_id=tournament.id, bot_id=r.id, seed=i + 1, rating=rating)
                for i, (rating, r) in enumerate(scored)
            )
            return tournament.id

        try:
            self._write(create)
        except IntegrityError:
            raise AlreadyExistsError(f"a tournament named {name!r} exists; choose another name") from None
        return self.tournament(name)

    def add_round(self, tournament: str, round_: int, tables: Sequence[Sequence[str]]) -> None:
        """Store a round's tables (bot names in seat order; one name is a bye).

        Raises:
            AlreadyExistsError: the round was stored already (another writer advanced the tournament).
        """

        def add(session: Session) -> None:
            row = _tournament_row(session, tournament)
            ids = {b.name: b.id for b in session.scalars(select(BotRow))}
            session.add_all(
                TournamentTableRow(
                    tournament_id=row.id, round=round_, number=i + 1, bot_ids=[ids[n] for n in seats]
                )
                for i, seats in enumerate(tables)
            )

        try:
            self._write(add)
        except IntegrityError:
            raise AlreadyExistsError(f"round {round_} of tournament {tournament!r} exists already") from None

    def start_table(self, table_id: int, game_id: str) -> None:
        """Game ``game_id`` started for tournament table ``table_id``: the table's game once recorded (on
        any replica), unless cut short by a stop (``SHUTDOWN``, ``ABORTED``), which leaves the table to be
        played again."""
        self._set_table(table_id, playing=game_id)

    def link_table(self, table_id: int, game_id: str) -> None:
        """The recorded game ``game_id`` is the result of tournament table ``table_id``."""
        self._set_table(table_id, game_id=game_id)

    def _set_table(self, table_id: int, **values: str) -> None:
        def set_table(session: Session) -> None:
            table = session.get(TournamentTableRow, table_id)
            if table is None:
                raise NotFoundError(f"no tournament table {table_id}")
            for column, value in values.items():
                setattr(table, column, value)

        self._write(set_table)

    def finish_tournament(self, tournament: str) -> None:
        def finish(session: Session) -> None:
            _tournament_row(session, tournament).finished_at = utc_now()

        self._write(finish)

    def tournament(self, name: str) -> TournamentRecord:
        """Raises: NotFoundError."""
        return self._read(lambda session: _tournament(session, _tournament_row(session, name)))

    def tournaments(self) -> list[TournamentRecord]:
        """Every tournament, the latest first."""
        return self._read(
            lambda session: [
                _tournament(session, row)
                for row in session.scalars(select(TournamentRow).order_by(TournamentRow.id.desc()))
            ]
        )


CUT_SHORT = (SHUTDOWN, ABORTED)
"""A tournament game recorded with one of these reasons was cut short by a stop or a crash: its table is
played again."""


def _tournament_row(session: Session, name: str) -> TournamentRow:
    row = session.scalar(select(TournamentRow).where(TournamentRow.name == name))
    if row is None:
        raise NotFoundError(f"no tournament named {shown(name)}; list tournaments to see their names")
    return row


def _tournament(session: Session, row: TournamentRow) -> TournamentRecord:
    names = {b.id: b.name for b in session.scalars(select(BotRow))}
    entrants = session.scalars(
        select(EntrantRow).where(EntrantRow.tournament_id == row.id).order_by(EntrantRow.seed)
    )
    tables = list(
        session.scalars(
            select(TournamentTableRow)
            .where(TournamentTableRow.tournament_id == row.id)
            .order_by(TournamentTableRow.round, TournamentTableRow.number)
        )
    )
    games = [g for t in tables for g in (t.game_id, t.playing) if g is not None]
    recorded = {
        game: reason
        for game, reason in session.execute(select(GameRow.id, GameRow.reason).where(GameRow.id.in_(games)))
    }
    counted = {game for game, reason in recorded.items() if reason not in CUT_SHORT}
    places: dict[str, list[int]] = {g: [] for g in counted}
    for seat in session.scalars(
        select(SeatRow).where(SeatRow.game_id.in_(counted)).order_by(SeatRow.game_id, SeatRow.seat)
    ):
        places[seat.game_id].append(seat.place)
    return TournamentRecord(
        id=row.id,
        name=row.name,
        format=row.format,
        table_size=row.table_size,
        rounds=row.rounds,
        queue=row.queue,
        rules=row.rules,
        time_control=row.time_control,
        created_at=row.created_at,
        finished_at=row.finished_at,
        entrants=[EntrantRecord(names[e.bot_id], e.seed, e.rating) for e in entrants],
        tables=[_table(t, names, places, recorded) for t in tables],
    )


def _table(
    row: TournamentTableRow, names: dict[int, str], places: dict[str, list[int]], recorded: dict[str, str]
) -> TableRecord:
    """A table as played: its game is the one linked, else the one seated for it once recorded and not
    cut short (it finished on another replica than the one that seated it)."""
    game_id = row.game_id if row.game_id is not None else row.playing
    counted = game_id is not None and game_id in places
    return TableRecord(
        id=row.id,
        round=row.round,
        number=row.number,
        bots=[names[b] for b in row.bot_ids],
        game_id=game_id if counted else None,
        places=places[game_id] if counted and game_id is not None else None,
        playing=row.playing if row.playing is not None and row.playing not in recorded else None,
    )
