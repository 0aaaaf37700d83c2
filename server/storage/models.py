"""The tables: bots, games and their seats (with their decision round trips), replays, ratings per
(bot, queue) and rating history.

Schema changes go through a new Alembic revision in ``migrations/versions`` (see docs/storage.md);
these classes and the latest revision must describe the same schema (a test compares them).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Dialect,
    Float,
    ForeignKey,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    TypeDecorator,
    true,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

# Named constraints so migrations can alter them on every database (SQLite batch mode needs names).
NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Seed(TypeDecorator[int]):
    """A seed is an unsigned 64-bit integer, too big for a signed BIGINT: it is kept as decimal text."""

    impl = String(20)
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        return None if value is None else str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class UtcDateTime(TypeDecorator[datetime]):
    """Timestamps are stored and returned as aware UTC datetimes (SQLite would drop the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"timestamp {value.isoformat()} has no time zone; pass an aware UTC datetime")
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class BotRow(Base):
    __tablename__ = "bots"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(40), unique=True)
    name_key: Mapped[str] = mapped_column(String(48), unique=True)
    """``server.records.name_key(name)``: no two bots share it, so no name looks like another (``Alice`` or
    ``a1ice`` beside ``alice``). Look-alikes registered before revision 0004 (case and punctuation) or 0011
    (look-alike characters) keep their names: the first keeps the key, each later one ``<key>#<id>``."""
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    """Hex SHA-256 of the current token; the token itself is never stored."""
    previous_token_hash: Mapped[str | None] = mapped_column(String(64), index=True)
    """The token replaced by the last rotation, kept only to tell its user that it was rotated."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    rotated_at: Mapped[datetime | None] = mapped_column(UtcDateTime())
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    queue: Mapped[str] = mapped_column(String(64), index=True)
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    """``engine.Rules.to_dict()``."""
    board: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Seed())
    seed_commitment: Mapped[str] = mapped_column(String(64))
    rated: Mapped[bool] = mapped_column(Boolean)
    """Rated games move ratings; challenges and practice games are recorded unrated."""
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)
    turns: Mapped[int] = mapped_column(Integer)
    reason: Mapped[str] = mapped_column(String(32))
    """How the game ended: the engine's termination ("conquest", "turn_cap") or the server's ("shutdown")."""
    dice_version: Mapped[int] = mapped_column(Integer, server_default="1")
    """How its rolls and shuffles derive from its seed (``engine.dice``'s version, as its replay says)."""


class SeatRow(Base):
    __tablename__ = "game_seats"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int | None] = mapped_column(ForeignKey("bots.id"), index=True)
    """Null for an unregistered (practice) player."""
    name: Mapped[str] = mapped_column(String(40))
    place: Mapped[int] = mapped_column(Integer)
    outcome: Mapped[str] = mapped_column(String(32))
    timeouts: Mapped[int] = mapped_column(Integer)
    rejections: Mapped[int] = mapped_column(Integer)
    crashes: Mapped[int] = mapped_column(Integer, server_default="0")
    """Times the bot's stream dropped while it held the seat in the running game."""


class SeatRoundTripRow(Base):
    """How many of a seat's answered decisions in one phase took a round trip in one latency bucket."""

    __tablename__ = "seat_round_trips"
    __table_args__ = (
        ForeignKeyConstraint(
            ["game_id", "seat"], ["game_seats.game_id", "game_seats.seat"], ondelete="CASCADE"
        ),
    )

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    phase: Mapped[str] = mapped_column(String(32), primary_key=True)
    """The engine's Phase name in lower case, e.g. ``attack``."""
    bucket: Mapped[int] = mapped_column(Integer, primary_key=True)
    """Index into ``server.records.ROUND_TRIP_BUCKETS``; one past its end for above the last bound."""
    decisions: Mapped[int] = mapped_column(Integer)


class ReplayRow(Base):
    __tablename__ = "replays"

    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)
    """zlib-compressed ``engine.replay.Replay.to_json()``."""
    size: Mapped[int] = mapped_column(Integer)
    """Length of the uncompressed JSON, in bytes."""


class RatingRow(Base):
    __tablename__ = "ratings"

    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    queue: Mapped[str] = mapped_column(String(64), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    place_sum: Mapped[int] = mapped_column(Integer)
    timeouts: Mapped[int] = mapped_column(Integer)
    forfeits: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime())


class RatingChangeRow(Base):
    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_bot_queue", "bot_id", "queue", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"))
    queue: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    place: Mapped[int] = mapped_column(Integer)
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(UtcDateTime())


class ChallengeRow(Base):
    """An unrated match between named bots; its games count against each bot's challenge quota."""

    __tablename__ = "challenges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    queue: Mapped[str] = mapped_column(String(64))
    """The queue whose rules and time control the games use (``challenge-<preset>`` for a bare preset)."""
    games: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime(), index=True)


class ChallengeBotRow(Base):
    __tablename__ = "challenge_bots"

    challenge_id: Mapped[int] = mapped_column(
        ForeignKey("challenges.id", ondelete="CASCADE"), primary_key=True
    )
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)


class TournamentRow(Base):
    __tablename__ = "tournaments"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    format: Mapped[str] = mapped_column(String(32))
    """``round_robin``, ``swiss`` or ``single_elimination``."""
    table_size: Mapped[int] = mapped_column(Integer)
    rounds: Mapped[int] = mapped_column(Integer)
    """Swiss: rounds to play; 0 for the formats whose length follows from the entrants."""
    queue: Mapped[str] = mapped_column(String(64))
    """The name its games are recorded under (``tournament-<name>``)."""
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    """``engine.Rules.to_dict()``."""
    time_control: Mapped[dict[str, Any]] = mapped_column(JSON)
    """``server.ops.config.TimeControl`` fields, in milliseconds (max_strikes a count)."""
    created_at: Mapped[datetime] = mapped_column(UtcDateTime())
    finished_at: Mapped[datetime | None] = mapped_column(UtcDateTime())


class EntrantRow(Base):
    __tablename__ = "tournament_entrants"

    tournament_id: Mapped[int] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), primary_key=True
    )
    bot_id: Mapped[int] = mapped_column(ForeignKey("bots.id"), primary_key=True)
    seed: Mapped[int] = mapped_column(Integer)
    """1 = the best rated when the tournament was created."""
    rating: Mapped[float] = mapped_column(Float)
    """μ − 3σ in the rated queue of the same rules and players at creation (default rating if none)."""


class TournamentTableRow(Base):
    """One table of a round: the bots in seat order (one bot: a bye) and, once played, its game."""

    __tablename__ = "tournament_tables"
    __table_args__ = (Index("ix_tournament_tables_round", "tournament_id", "round", "number", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"))
    round: Mapped[int] = mapped_column(Integer)
    number: Mapped[int] = mapped_column(Integer)
    bot_ids: Mapped[list[int]] = mapped_column(JSON)
    game_id: Mapped[str | None] = mapped_column(ForeignKey("games.id"))
    """The recorded game that counts for this table; null for a bye or until it is played."""
    playing: Mapped[str | None] = mapped_column(String(64))
    """The game last seated for this table (set as it starts, on whichever replica): it counts once
    recorded, unless cut short by a stop; while it is not recorded the table is being played."""


class ClusterCountColumns:
    """``server.records.ClusterCounts`` as columns, one per field, of the same names."""

    games_handed_over: Mapped[int] = mapped_column(BigInteger, server_default="0")
    games_taken_over: Mapped[int] = mapped_column(BigInteger, server_default="0")
    relayed_decisions_played: Mapped[int] = mapped_column(BigInteger, server_default="0")
    relayed_decisions_sent: Mapped[int] = mapped_column(BigInteger, server_default="0")


class ReplicaRow(ClusterCountColumns, Base):
    """A server process taking part in takeover (``server.takeover``): it beats while it runs, writing its
    process's ``ClusterCounts`` (absolute values) with each beat; they are added to ``cluster_totals`` as
    its row goes (revision 0010)."""

    __tablename__ = "replicas"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    beats: Mapped[int] = mapped_column(Integer)
    """Heartbeats so far: another server that sees it stand still for ``replica_timeout_ms`` of its own
    clock presumes the replica dead (no two machines' clocks are compared)."""
    beat_at: Mapped[datetime] = mapped_column(UtcDateTime())
    """The replica's own clock at its last beat (for people reading the table)."""


class ClusterTotalsRow(ClusterCountColumns, Base):
    """The one row (``id`` 1) of the counts of the replicas that left the registry, since the database
    was created: with the counts of those still in ``replicas``, the cluster's totals (revision 0010)."""

    __tablename__ = "cluster_totals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)


class LiveGameRow(Base):
    """A running game: what rebuilds it, its host and the epoch its writes must carry."""

    __tablename__ = "live_games"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    queue: Mapped[str] = mapped_column(String(64))
    rules: Mapped[dict[str, Any]] = mapped_column(JSON)
    board: Mapped[str] = mapped_column(String(64))
    seed: Mapped[int] = mapped_column(Seed())
    dice_version: Mapped[int] = mapped_column(Integer)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """Per seat: {"name", "key", "bot_id", "ranked", "house"} (``server.records.LiveSeat``)."""
    seed_commitment: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[datetime] = mapped_column(UtcDateTime())
    rated: Mapped[bool] = mapped_column(Boolean, server_default=true())
    """Its result moves ratings (false for a challenge's or tournament table's game on a rated queue)."""
    host: Mapped[str] = mapped_column(String(64), index=True)
    """The replica id of the server playing it."""
    epoch: Mapped[int] = mapped_column(Integer)
    """1 at the start, one more at each takeover: a write carrying an older epoch is refused."""
    actions: Mapped[int] = mapped_column(Integer)
    """Actions logged in ``live_actions``."""
    reseeds: Mapped[list[list[Any]]] = mapped_column(JSON)
    """Each takeover's [at, seed as decimal text, commitment] (``engine.replay.Reseed``)."""


class LiveActionsRow(Base):
    """One batch of a running game's actions: ``engine.codec`` encodings as a JSON array."""

    __tablename__ = "live_actions"

    game_id: Mapped[str] = mapped_column(ForeignKey("live_games.id", ondelete="CASCADE"), primary_key=True)
    first: Mapped[int] = mapped_column(Integer, primary_key=True)
    """Index of the batch's first action in the game."""
    data: Mapped[str] = mapped_column(Text)


class ClusterReplicaRow(Base):
    """A replica in cluster mode (``server.cluster``): where its relay listens and its load."""

    __tablename__ = "cluster_replicas"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    relay: Mapped[str] = mapped_column(String(255))
    """``advertise_host:relay_port``: where the other replicas reach its relay (TCP)."""
    games: Mapped[int] = mapped_column(Integer)
    """Games it hosts, as of its last heartbeat."""


class ClusterSessionRow(Base):
    """A bot's open session on some replica, and its free game slots (relative updates only)."""

    __tablename__ = "cluster_sessions"

    replica: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    key: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(40))
    bot_id: Mapped[int | None] = mapped_column(Integer)
    ranked: Mapped[bool] = mapped_column(Boolean)
    live_events: Mapped[bool] = mapped_column(Boolean)
    free: Mapped[int] = mapped_column(Integer)
    changes: Mapped[int] = mapped_column(Integer, server_default="0")
    """The number of the last of its replica's own free-slot changes applied (they are numbered 1, 2, ...
    in order): a change tried again after a commit whose answer was lost is not applied twice."""


class ClusterWaitingRow(Base):
    """A session's membership of a queue: the shared waiting set the matchmaker pairs."""

    __tablename__ = "cluster_waiting"

    replica: Mapped[str] = mapped_column(String(64), primary_key=True)
    session_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    queue: Mapped[str] = mapped_column(String(64), primary_key=True)
    games_left: Mapped[int] = mapped_column(Integer)
    """Games it may still be seated in from this queue; 0: no limit."""
    since: Mapped[float] = mapped_column(Float)
    """When it joined or was last seated from the queue, in Unix seconds."""


class ClusterLeaseRow(Base):
    """A lease one replica holds at a time (``matchmaker``): its holder, term and renewals."""

    __tablename__ = "cluster_lease"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64))
    term: Mapped[int] = mapped_column(Integer)
    """One more at each change of holder: a renewal or a seating carries the term its holder won."""
    renewals: Mapped[int] = mapped_column(Integer)
    """Renewals so far: the others presume the holder gone when this stands still (their own clocks)."""


class ClusterAppointmentRow(Base):
    """A game between named bots waiting for their free slots on any replica (``SharedAppointment``)."""

    __tablename__ = "cluster_appointments"

    key: Mapped[str] = mapped_column(String(32), primary_key=True)
    replica: Mapped[str] = mapped_column(String(64))
    """The replica that made it (its Arena keeps the appointment) and will host its game."""
    bots: Mapped[list[str]] = mapped_column(JSON)
    """Bot names in seat order."""
    made_at: Mapped[float] = mapped_column(Float)
    """When it was made, in Unix seconds: the oldest is seated first."""


class ClusterSeatingRow(Base):
    """A game the matchmaker seated, waiting for its host replica to start it."""

    __tablename__ = "cluster_seatings"

    game_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    queue: Mapped[str] = mapped_column(String(64))
    host: Mapped[str] = mapped_column(String(64), index=True)
    seats: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    """Each bot seat in seat order: replica, session_id, key, name, bot_id, ranked, live_events, done."""
    appointment: Mapped[str] = mapped_column(String(32))
    """The appointment it plays ("": a queue's game)."""
