"""The store: bots and their tokens, finished games with their replays, ratings per queue.

``Store.open(url)`` migrates the database to the latest schema and returns a store that is safe to share
between threads (each call uses its own session). A SQLite file is the embedded default
(``sqlite:///path``); PostgreSQL is reached by URL (``postgresql+psycopg://user:pass@host/db``).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, Engine, create_engine, event, func, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session

from engine import Phase
from engine.replay import Replay
from server.records import (
    INITIAL,
    LEADERBOARD_SIGMAS,
    NAME_PATTERN,
    ROUND_TRIP_BUCKETS,
    GameResult,
    SeatOutcome,
    SeatResult,
    Skill,
)
from server.storage import ratings
from server.storage.errors import (
    AdminTokenError,
    AlreadyExistsError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    RevokedTokenError,
    RotatedTokenError,
    UnknownTokenError,
)
from server.storage.models import (
    BotRow,
    ChallengeBotRow,
    ChallengeRow,
    EntrantRow,
    GameRow,
    RatingChangeRow,
    RatingRow,
    ReplayRow,
    SeatRoundTripRow,
    SeatRow,
    TournamentRow,
    TournamentTableRow,
)
from server.storage.tokens import hash_token, new_token, token_matches

T = TypeVar("T")

MIGRATIONS = Path(__file__).parent / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 5000
WRITE_ATTEMPTS = 5
"""A write that loses a lock race (SQLite busy, PostgreSQL deadlock or serialization failure) is retried."""
_WRITE = "conquest_write"
"""Execution option marking a connection whose transactions write (SQLite: BEGIN IMMEDIATE)."""
_MIGRATION_LOCK = 0x636F6E71
"""PostgreSQL advisory lock key held while migrating, so two servers starting at once migrate once."""
_RETRYABLE_SQLSTATES = {"40001", "40P01"}  # serialization_failure, deadlock_detected


@dataclass(frozen=True, slots=True)
class Bot:
    id: int
    name: str
    created_at: datetime
    rotated_at: datetime | None
    revoked_at: datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True, slots=True)
class Registration:
    """A bot and its token. The token is shown this once: only its hash is stored."""

    bot: Bot
    token: str


@dataclass(frozen=True, slots=True)
class GameSummary:
    id: str
    queue: str
    rated: bool
    board: str
    rules: dict[str, Any]
    seed: int
    seed_commitment: str
    started_at: datetime
    finished_at: datetime
    turns: int
    reason: str
    seats: list[SeatResult]


@dataclass(frozen=True, slots=True)
class RatingChange:
    bot: str
    queue: str
    game_id: str
    place: int
    before: Skill
    after: Skill
    at: datetime


@dataclass(frozen=True, slots=True)
class Standing:
    """A leaderboard row."""

    rank: int
    bot: str
    skill: Skill
    games: int
    wins: int
    """Games finished in first place (shared first places included)."""
    average_place: float
    timeouts: int
    forfeits: int


@dataclass(frozen=True, slots=True)
class BotStats:
    """A registered bot's decisions summed over its recorded games (of one queue, or of all)."""

    bot: str
    queue: str | None
    """None: every queue."""
    games: int
    timeouts: int
    rejections: int
    crashes: int
    round_trips: dict[str, list[int]]
    """Answered decisions by phase, in the engine's phase order: counts per bucket as in SeatResult."""


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


class Store:
    """Bots, games, replays and ratings in one database. Use ``Store.open(url)``."""

    def __init__(self, engine: Engine, admin_token: str | None) -> None:
        self._engine = engine
        self._writer = engine.execution_options(**{_WRITE: True})
        self._admin_hash = hash_token(admin_token) if admin_token else None

    @classmethod
    def open(cls, url: str, *, admin_token: str | None = None) -> Store:
        """Connect, migrate the schema to the latest revision, and return the store.

        ``admin_token`` (from the server config) is required by register, rotate and revoke; without it
        those operations are refused.
        """
        engine = create_engine(url, pool_pre_ping=True)
        if engine.dialect.name == "sqlite":
            _configure_sqlite(engine)
        store = cls(engine, admin_token)
        store._migrate()
        return store

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    @property
    def dialect(self) -> str:
        """ "sqlite" or "postgresql"."""
        return self._engine.dialect.name

    def _migrate(self) -> None:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._writer.begin() as connection:
            if self.dialect == "postgresql":
                connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            config.attributes["connection"] = connection
            command.upgrade(config, "head")

    # ------------------------------------------------------------------ transactions

    def _read(self, work: Callable[[Session], T]) -> T:
        with Session(self._engine) as session, session.begin():
            return work(session)

    def _write(self, work: Callable[[Session], T]) -> T:
        """Run ``work`` in one write transaction, retrying it when it lost a lock race."""
        for attempt in range(WRITE_ATTEMPTS):
            try:
                with Session(self._writer) as session, session.begin():
                    return work(session)
            except DBAPIError as error:
                if attempt == WRITE_ATTEMPTS - 1 or not _is_lock_race(error):
                    raise
                time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable: the last attempt returns or raises")

    # ------------------------------------------------------------------ bots and tokens

    def _check_admin(self, admin_token: str) -> None:
        if self._admin_hash is None:
            raise AdminTokenError(
                "admin operations are disabled: the server has no admin token configured; "
                "set one in the server config to register, rotate or revoke bots"
            )
        if not token_matches(admin_token, self._admin_hash):
            raise AdminTokenError(
                "wrong admin token: registering, rotating and revoking bots needs the admin token "
                "from the server config"
            )

    def is_admin(self, token: str) -> bool:
        """``token`` is the configured admin token (compared in constant time)."""
        return self._admin_hash is not None and token_matches(token, self._admin_hash)

    def register_bot(self, name: str, *, admin_token: str) -> Registration:
        """Register a bot; the returned token is shown once.

        Raises:
            AdminTokenError, InvalidInputError (bad name), AlreadyExistsError (name taken).
        """
        self._check_admin(admin_token)
        if not NAME_PATTERN.fullmatch(name):  # the names a Hello may carry
            raise InvalidInputError(
                f"bot name {name!r} is not allowed: use 1 to 32 letters, digits, '_', '.' or '-'"
            )
        token = new_token()

        def register(session: Session) -> Bot:
            if session.scalar(select(BotRow.id).where(BotRow.name == name)) is not None:
                raise AlreadyExistsError(f"a bot named {name!r} is already registered; choose another name")
            row = BotRow(name=name, token_hash=hash_token(token), created_at=_now())
            session.add(row)
            session.flush()
            return _bot(row)

        try:
            return Registration(self._write(register), token)
        except IntegrityError:  # registered by someone else between our check and insert
            raise AlreadyExistsError(
                f"a bot named {name!r} is already registered; choose another name"
            ) from None

    def rotate_token(self, name: str, *, admin_token: str) -> Registration:
        """Give a bot a new token (shown once); the old one stops working at once.

        Raises:
            AdminTokenError, NotFoundError, RevokedTokenError (a revoked bot stays revoked).
        """
        self._check_admin(admin_token)
        token = new_token()

        def rotate(session: Session) -> Bot:
            row = _bot_row(session, name, lock=True)
            if row.revoked_at is not None:
                raise RevokedTokenError(
                    f"bot {name!r} was revoked on {row.revoked_at:%Y-%m-%d %H:%M} UTC and cannot get a new "
                    "token; register a new bot instead"
                )
            row.previous_token_hash = row.token_hash
            row.token_hash = hash_token(token)
            row.rotated_at = _now()
            return _bot(row)

        return Registration(self._write(rotate), token)

    def revoke_bot(self, name: str, *, admin_token: str) -> Bot:
        """Revoke a bot: its token is refused from now on; its games and history stay.

        Raises:
            AdminTokenError, NotFoundError.
        """
        self._check_admin(admin_token)

        def revoke(session: Session) -> Bot:
            row = _bot_row(session, name, lock=True)
            if row.revoked_at is None:
                row.revoked_at = _now()
            return _bot(row)

        return self._write(revoke)

    def authenticate(self, token: str) -> Bot:
        """The bot this token belongs to.

        Raises:
            UnknownTokenError, RotatedTokenError, RevokedTokenError — never quoting the token.
        """
        digest = hash_token(token)

        def find(session: Session) -> Bot:
            row = session.scalar(select(BotRow).where(BotRow.token_hash == digest))
            # The lookup is by hash, so its timing reveals nothing usable; the comparison is constant-time
            # anyway, so no code path compares a secret byte by byte.
            if row is not None and token_matches(token, row.token_hash):
                if row.revoked_at is not None:
                    raise RevokedTokenError(
                        f"bot {row.name!r} was revoked on {row.revoked_at:%Y-%m-%d %H:%M} UTC; its token no "
                        "longer works. Ask the organizer to register the bot again"
                    )
                return _bot(row)
            old = session.scalar(select(BotRow).where(BotRow.previous_token_hash == digest))
            if old is not None:
                rotated = f"{old.rotated_at:%Y-%m-%d %H:%M} UTC" if old.rotated_at else "recently"
                raise RotatedTokenError(
                    f"this token of bot {old.name!r} was replaced on {rotated}; connect with the new token "
                    "the organizer received when rotating it"
                )
            raise UnknownTokenError(
                "unknown bot token: no registered bot has it. Check that the whole token was copied "
                "(43 characters), or ask the organizer to register your bot and give you its token"
            )

        return self._read(find)

    def bot(self, name: str) -> Bot:
        """Raises: NotFoundError."""
        return self._read(lambda session: _bot(_bot_row(session, name)))

    def bots(self) -> list[Bot]:
        return self._read(
            lambda session: [_bot(r) for r in session.scalars(select(BotRow).order_by(BotRow.name))]
        )

    # ------------------------------------------------------------------ games, replays, ratings

    def record_game(self, result: GameResult, replay: Replay) -> list[RatingChange]:
        """Write a finished game: its seats, its compressed replay and (if rated) the rating updates, in ONE
        transaction. Returns the rating changes in seat order (empty for an unrated game).

        Ratings are read and written under a lock (SQLite: the write transaction is taken up front;
        PostgreSQL: the rating rows are selected FOR UPDATE), so games finishing at once lose no update.

        Raises:
            InvalidInputError (result and replay disagree, or a rated game with a practice or repeated bot),
            AlreadyExistsError (this game id was recorded before), NotFoundError (unknown bot id).
        """
        _check_result(result, replay)
        data = replay.to_json().encode()
        now = _now()

        def record(session: Session) -> list[RatingChange]:
            if session.get(GameRow, replay.game_id) is not None:
                raise AlreadyExistsError(f"game {replay.game_id!r} is already recorded")
            bots = _seat_bots(session, result)
            session.add(
                GameRow(
                    id=replay.game_id,
                    queue=result.queue,
                    rules=replay.rules.to_dict(),
                    board=replay.board,
                    seed=replay.seed,
                    seed_commitment=result.seed_commitment,
                    rated=result.rated,
                    started_at=result.started_at,
                    finished_at=result.finished_at,
                    turns=result.turns,
                    reason=result.reason,
                )
            )
            session.flush()
            session.add_all(
                SeatRow(
                    game_id=replay.game_id,
                    seat=i,
                    bot_id=s.bot_id,
                    name=s.name,
                    place=s.place,
                    outcome=s.outcome.value,
                    timeouts=s.timeouts,
                    rejections=s.rejections,
                    crashes=s.crashes,
                )
                for i, s in enumerate(result.seats)
            )
            session.flush()  # the seats before the rows that refer to them
            session.add_all(
                SeatRoundTripRow(game_id=replay.game_id, seat=i, phase=phase, bucket=b, decisions=count)
                for i, s in enumerate(result.seats)
                for phase, counts in s.round_trips.items()
                for b, count in enumerate(counts)
                if count
            )
            session.add(ReplayRow(game_id=replay.game_id, data=zlib.compress(data), size=len(data)))
            changes = _update_ratings(session, result, replay.game_id, bots, now) if result.rated else []
            session.flush()
            return changes

        try:
            return self._write(record)
        except IntegrityError:  # the same game recorded concurrently by another writer
            raise AlreadyExistsError(f"game {replay.game_id!r} is already recorded") from None

    def game(self, game_id: str) -> GameSummary:
        """Raises: NotFoundError."""

        def find(session: Session) -> GameSummary:
            row = session.get(GameRow, game_id)
            if row is None:
                raise NotFoundError(f"no game {game_id!r}; list games to see the recorded ids")
            return _summaries(session, [row])[0]

        return self._read(find)

    def games(
        self, *, queue: str | None = None, bot: str | None = None, limit: int = 50
    ) -> list[GameSummary]:
        """The latest finished games first, optionally of one queue and/or one bot.

        Raises: NotFoundError (unknown bot).
        """

        def find(session: Session) -> list[GameSummary]:
            query = select(GameRow).order_by(GameRow.finished_at.desc(), GameRow.id).limit(limit)
            if queue is not None:
                query = query.where(GameRow.queue == queue)
            if bot is not None:
                bot_id = _bot_row(session, bot).id
                query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.bot_id == bot_id)))
            return _summaries(session, list(session.scalars(query)))

        return self._read(find)

    def replay(self, game_id: str) -> Replay:
        """The game's replay as recorded. Raises: NotFoundError."""

        def find(session: Session) -> Replay:
            row = session.get(ReplayRow, game_id)
            if row is None:
                raise NotFoundError(f"no replay for game {game_id!r}; list games to see the recorded ids")
            return Replay.from_json(zlib.decompress(row.data).decode())

        return self._read(find)

    def leaderboard(self, queue: str, *, limit: int | None = None) -> list[Standing]:
        """Bots rated in a queue, best first by μ − 3σ (revoked bots left out)."""

        def find(session: Session) -> list[Standing]:
            score = RatingRow.mu - LEADERBOARD_SIGMAS * RatingRow.sigma
            query = (
                select(RatingRow, BotRow.name)
                .join(BotRow, BotRow.id == RatingRow.bot_id)
                .where(RatingRow.queue == queue, BotRow.revoked_at.is_(None))
                .order_by(score.desc(), RatingRow.games.desc(), BotRow.name)
                .limit(limit)
            )
            return [
                Standing(
                    rank=i + 1,
                    bot=name,
                    skill=Skill(r.mu, r.sigma),
                    games=r.games,
                    wins=r.wins,
                    average_place=r.place_sum / r.games if r.games else 0.0,
                    timeouts=r.timeouts,
                    forfeits=r.forfeits,
                )
                for i, (r, name) in enumerate(session.execute(query).all())
            ]

        return self._read(find)

    def bot_stats(self, bot: str, queue: str | None = None) -> BotStats:
        """A bot's timeouts, rejections, crashes and decision round trips by phase, summed over its recorded
        games (rated or not) of ``queue``, or of every queue. Raises: NotFoundError."""

        def find(session: Session) -> BotStats:
            row = _bot_row(session, bot)
            seats = select(SeatRow).where(SeatRow.bot_id == row.id)
            if queue is not None:
                seats = seats.where(SeatRow.game_id.in_(select(GameRow.id).where(GameRow.queue == queue)))
            mine = seats.subquery()
            games, timeouts, rejections, crashes = session.execute(
                select(
                    func.count(),
                    func.coalesce(func.sum(mine.c.timeouts), 0),
                    func.coalesce(func.sum(mine.c.rejections), 0),
                    func.coalesce(func.sum(mine.c.crashes), 0),
                )
            ).one()
            buckets = (
                select(SeatRoundTripRow.phase, SeatRoundTripRow.bucket, func.sum(SeatRoundTripRow.decisions))
                .join(
                    mine,
                    (mine.c.game_id == SeatRoundTripRow.game_id) & (mine.c.seat == SeatRoundTripRow.seat),
                )
                .group_by(SeatRoundTripRow.phase, SeatRoundTripRow.bucket)
            )
            return BotStats(
                bot=row.name,
                queue=queue,
                games=games,
                timeouts=timeouts,
                rejections=rejections,
                crashes=crashes,
                round_trips=_histograms(session.execute(buckets).all()),
            )

        return self._read(find)

    def skill(self, bot_id: int, queue: str) -> Skill:
        """The bot's rating in the queue; the initial μ/σ if it has played no rated game there."""

        def find(session: Session) -> Skill:
            row = session.get(RatingRow, (bot_id, queue))
            return Skill(row.mu, row.sigma) if row is not None else INITIAL

        return self._read(find)

    # ------------------------------------------------------------------ challenges and tournaments

    def create_challenge(
        self, bots: Sequence[str], queue: str, games: int, *, quota: int, period: timedelta
    ) -> int:
        """Record a challenge of ``games`` games between ``bots`` (names) if every bot has that many games
        left of its ``quota`` in the last ``period``; returns its id.

        Raises:
            NotFoundError (unknown bot), QuotaExceededError (the message says which bot and when it resets).
        """
        now = _now()

        def create(session: Session) -> int:
            rows = [_bot_row(session, name) for name in bots]
            since = now - period
            for row in rows:
                used = (
                    select(func.coalesce(func.sum(ChallengeRow.games), 0), func.min(ChallengeRow.created_at))
                    .join(ChallengeBotRow, ChallengeBotRow.challenge_id == ChallengeRow.id)
                    .where(ChallengeBotRow.bot_id == row.id, ChallengeRow.created_at > since)
                )
                count, oldest = session.execute(used).one()
                if count + games > quota:
                    resets = (_aware(oldest) + period) if oldest is not None else now
                    raise QuotaExceededError(
                        f"bot {row.name!r} has used {count} of its {quota} challenge games per "
                        f"{_duration(period)}; {games} more would exceed it. The oldest counted challenge "
                        f"leaves the window at {resets:%Y-%m-%d %H:%M:%S} UTC"
                    )
            challenge = ChallengeRow(queue=queue, games=games, created_at=now)
            session.add(challenge)
            session.flush()
            session.add_all(ChallengeBotRow(challenge_id=challenge.id, bot_id=row.id) for row in rows)
            return challenge.id

        return self._write(create)

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
            rows = [_bot_row(session, bot) for bot in bots]
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
                created_at=_now(),
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

    def link_table(self, table_id: int, game_id: str) -> None:
        """The recorded game ``game_id`` is the result of tournament table ``table_id``."""

        def link(session: Session) -> None:
            table = session.get(TournamentTableRow, table_id)
            if table is None:
                raise NotFoundError(f"no tournament table {table_id}")
            table.game_id = game_id

        self._write(link)

    def finish_tournament(self, tournament: str) -> None:
        def finish(session: Session) -> None:
            _tournament_row(session, tournament).finished_at = _now()

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

    def queues(self) -> list[str]:
        """Queues with at least one rating."""
        return self._read(
            lambda session: list(
                session.scalars(select(RatingRow.queue).distinct().order_by(RatingRow.queue))
            )
        )

    def rating_history(self, bot: str, queue: str) -> list[RatingChange]:
        """A bot's rating changes in a queue, oldest first. Raises: NotFoundError."""

        def find(session: Session) -> list[RatingChange]:
            row = _bot_row(session, bot)
            query = (
                select(RatingChangeRow)
                .where(RatingChangeRow.bot_id == row.id, RatingChangeRow.queue == queue)
                .order_by(RatingChangeRow.id)
            )
            return [_change(c, row.name) for c in session.scalars(query)]

        return self._read(find)


# ---------------------------------------------------------------------- helpers


def _configure_sqlite(engine: Engine) -> None:
    """WAL (readers never block the writer), foreign keys enforced, and a wait instead of "database is
    locked"; transactions begun by us so that writes can take the lock up front (BEGIN IMMEDIATE)."""

    @event.listens_for(engine, "connect")
    def on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # pysqlite must not issue its own (deferred) BEGIN
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def on_begin(connection: Connection) -> None:
        # A deferred transaction that reads and then writes can fail with SQLITE_BUSY without waiting;
        # an immediate one takes the write lock first, so ratings are read by the one writer.
        writes = connection.get_execution_options().get(_WRITE, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")


def _is_lock_race(error: DBAPIError) -> bool:
    sqlstate = getattr(error.orig, "sqlstate", None)
    if sqlstate in _RETRYABLE_SQLSTATES:
        return True
    message = str(error.orig).lower()
    return "database is locked" in message or "database is busy" in message


def _now() -> datetime:
    return datetime.now(UTC)


def _bot(row: BotRow) -> Bot:
    return Bot(row.id, row.name, row.created_at, row.rotated_at, row.revoked_at)


def _bot_row(session: Session, name: str, *, lock: bool = False) -> BotRow:
    query = select(BotRow).where(BotRow.name == name)
    row = session.scalar(query.with_for_update() if lock else query)
    if row is None:
        raise NotFoundError(f"no bot named {name!r}; list bots to see the registered names")
    return row


def _aware(moment: datetime) -> datetime:
    """SQLite returns aggregate timestamps without a zone (and as text): UTC is meant."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _duration(period: timedelta) -> str:
    seconds = int(period.total_seconds())
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds % size == 0 and seconds >= size:
            count = seconds // size
            return f"{count} {unit}{'s' if count > 1 else ''}"
    return f"{seconds} s"


def _tournament_row(session: Session, name: str) -> TournamentRow:
    row = session.scalar(select(TournamentRow).where(TournamentRow.name == name))
    if row is None:
        raise NotFoundError(f"no tournament named {name!r}; list tournaments to see their names")
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
    games = [t.game_id for t in tables if t.game_id is not None]
    places: dict[str, list[int]] = {g: [] for g in games}
    for seat in session.scalars(
        select(SeatRow).where(SeatRow.game_id.in_(games)).order_by(SeatRow.game_id, SeatRow.seat)
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
        tables=[
            TableRecord(
                id=t.id,
                round=t.round,
                number=t.number,
                bots=[names[b] for b in t.bot_ids],
                game_id=t.game_id,
                places=places[t.game_id] if t.game_id is not None else None,
            )
            for t in tables
        ],
    )


def _check_result(result: GameResult, replay: Replay) -> None:
    if not replay.game_id:
        raise InvalidInputError("the replay has no game_id; set Replay.game_id to the game's id")
    names = [s.name for s in result.seats]
    if names != list(replay.seats):
        raise InvalidInputError(f"result seats {names} differ from the replay's seats {replay.seats}")
    places = [s.place for s in result.seats]
    if replay.places and places != list(replay.places):
        raise InvalidInputError(f"result places {places} differ from the replay's places {replay.places}")
    if any(not 1 <= p <= len(places) for p in places):
        raise InvalidInputError(f"places {places} must each be between 1 and {len(places)} (1 = best)")
    if result.rated:
        ids = [s.bot_id for s in result.seats]
        if None in ids:
            raise InvalidInputError(
                f"a rated game needs a registered bot in every seat; seats {names} have bot ids {ids}. "
                "Record practice games with rated=False"
            )
        if len(set(ids)) != len(ids):
            raise InvalidInputError(f"a rated game needs distinct bots; seats {names} have bot ids {ids}")


def _seat_bots(session: Session, result: GameResult) -> dict[int, BotRow]:
    ids = {s.bot_id for s in result.seats if s.bot_id is not None}
    rows = {r.id: r for r in session.scalars(select(BotRow).where(BotRow.id.in_(ids)))}
    missing = sorted(ids - rows.keys())
    if missing:
        raise NotFoundError(f"no registered bot with id {missing}; seats must carry Bot.id from authenticate")
    return rows


def _update_ratings(
    session: Session, result: GameResult, game_id: str, bots: dict[int, BotRow], now: datetime
) -> list[RatingChange]:
    seat_ids = [s.bot_id for s in result.seats if s.bot_id is not None]
    # Create missing rows without racing another writer, then lock every row in id order (no deadlocks).
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(
        insert(RatingRow)
        .values(
            [
                dict(
                    bot_id=bot_id,
                    queue=result.queue,
                    mu=INITIAL.mu,
                    sigma=INITIAL.sigma,
                    games=0,
                    wins=0,
                    place_sum=0,
                    timeouts=0,
                    forfeits=0,
                    updated_at=now,
                )
                for bot_id in sorted(seat_ids)
            ]
        )
        .on_conflict_do_nothing()
    )
    locked = session.scalars(
        select(RatingRow)
        .where(RatingRow.queue == result.queue, RatingRow.bot_id.in_(seat_ids))
        .order_by(RatingRow.bot_id)
        .with_for_update()
        .execution_options(populate_existing=True)
    )
    rows = {r.bot_id: r for r in locked}
    before = [Skill(rows[b].mu, rows[b].sigma) for b in seat_ids]
    after = ratings.rate(before, [s.place for s in result.seats])
    changes = []
    for seat, bot_id, old, new in zip(result.seats, seat_ids, before, after, strict=True):
        row = rows[bot_id]
        row.mu, row.sigma = new
        row.games += 1
        row.wins += int(seat.place == 1)
        row.place_sum += seat.place
        row.timeouts += seat.timeouts
        row.forfeits += int(seat.outcome.is_forfeit)
        row.updated_at = now
        change = RatingChangeRow(
            bot_id=bot_id,
            queue=result.queue,
            game_id=game_id,
            place=seat.place,
            mu_before=old.mu,
            sigma_before=old.sigma,
            mu=new.mu,
            sigma=new.sigma,
            at=now,
        )
        session.add(change)
        changes.append(_change(change, bots[bot_id].name))
    return changes


def _change(row: RatingChangeRow, bot: str) -> RatingChange:
    return RatingChange(
        bot=bot,
        queue=row.queue,
        game_id=row.game_id,
        place=row.place,
        before=Skill(row.mu_before, row.sigma_before),
        after=Skill(row.mu, row.sigma),
        at=row.at,
    )


def _histograms(rows: Iterable[tuple[str, int, int]]) -> dict[str, list[int]]:
    """(phase, bucket, decisions) rows as counts per bucket by phase, phases in the engine's order."""
    histograms: dict[str, list[int]] = {}
    for phase, bucket, decisions in rows:
        counts = histograms.setdefault(phase, [0] * (len(ROUND_TRIP_BUCKETS) + 1))
        counts[bucket] += decisions
    return {p: histograms[p] for p in sorted(histograms, key=lambda p: Phase[p.upper()])}


def _summaries(session: Session, games: list[GameRow]) -> list[GameSummary]:
    seats: dict[str, list[SeatResult]] = {g.id: [] for g in games}
    trips: dict[tuple[str, int], list[tuple[str, int, int]]] = {}
    for t in session.scalars(select(SeatRoundTripRow).where(SeatRoundTripRow.game_id.in_(seats))):
        trips.setdefault((t.game_id, t.seat), []).append((t.phase, t.bucket, t.decisions))
    query = select(SeatRow).where(SeatRow.game_id.in_(seats)).order_by(SeatRow.game_id, SeatRow.seat)
    for s in session.scalars(query):
        seats[s.game_id].append(
            SeatResult(
                s.name,
                s.place,
                SeatOutcome(s.outcome),
                s.bot_id,
                s.timeouts,
                s.rejections,
                s.crashes,
                _histograms(trips.get((s.game_id, s.seat), [])),
            )
        )
    return [
        GameSummary(
            id=g.id,
            queue=g.queue,
            rated=g.rated,
            board=g.board,
            rules=g.rules,
            seed=g.seed,
            seed_commitment=g.seed_commitment,
            started_at=g.started_at,
            finished_at=g.finished_at,
            turns=g.turns,
            reason=g.reason,
            seats=seats[g.id],
        )
        for g in games
    ]
