"""Finished games: their seats, compressed replays and decision round trips, and per-bot sums over them.

A game is recorded with its rating updates (``server.storage.ratings.update_ratings``) in one transaction.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from engine import Phase
from engine.r2210.actions import Phase as Phase2210
from engine.r2210.replay import Replay2210, any_replay, rules_to_dict
from engine.replay import Replay, ReplayError
from server.records import ROUND_TRIP_BUCKETS, GameResult, SeatOutcome, SeatResult, shown
from server.storage.bots import bot_row
from server.storage.database import Database, unavailable, utc_now
from server.storage.errors import GameRecordedError, InvalidInputError, NotFoundError
from server.storage.live import fence
from server.storage.models import BotRow, GameRow, ReplayRow, SeatRoundTripRow, SeatRow
from server.storage.ratings import RatingChange, update_ratings


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
    dice_version: int
    """How its rolls and shuffles derive from its seed (``engine.dice``'s version)."""


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


class GameStore(Database):
    """Finished games and their replays."""

    def record_game(
        self, result: GameResult, replay: Replay | Replay2210, epoch: int | None = None
    ) -> list[RatingChange]:
        """Write a finished game: its seats, its compressed replay and (if rated) the rating updates, in ONE
        transaction. Returns the rating changes in seat order (empty for an unrated game).

        Ratings are read and written under a lock (SQLite: the write transaction is taken up front;
        PostgreSQL: the rating rows are selected FOR UPDATE), so games finishing at once lose no update.
        The game id is the games table's primary key: a second write of the same game changes nothing and
        raises GameRecordedError, so a caller retrying a write it did not see succeed cannot rate twice.
        ``epoch``: the game was logged live (``server.storage.live``) and its writer held this epoch; in
        the same transaction the game must still be live at it, and its live record goes.

        Raises:
            InvalidInputError (result and replay disagree, or a rated game with a practice or repeated bot),
            GameRecordedError (an AlreadyExistsError: this game id was recorded before), NotFoundError
            (unknown bot id), GameHandedOver (``epoch`` is stale: another server took the game over; nothing
            was written), DatabaseUnavailable (the database is unreachable, locked past its timeout or
            failed the transaction: nothing was written, the same call may succeed later).
        """
        _check_result(result, replay)
        data = replay.to_json().encode()
        rules = rules_to_dict(replay.rules) if isinstance(replay, Replay2210) else replay.rules.to_dict()
        now = utc_now()

        def record(session: Session) -> list[RatingChange]:
            if session.get(GameRow, replay.game_id) is not None:
                raise GameRecordedError(f"game {replay.game_id!r} is already recorded")
            if epoch is not None:
                fence(session, replay.game_id, epoch)
            bots = _seat_bots(session, result)
            session.add(
                GameRow(
                    id=replay.game_id,
                    queue=result.queue,
                    rules=rules,
                    board=replay.board,
                    seed=replay.seed,
                    seed_commitment=result.seed_commitment,
                    rated=result.rated,
                    started_at=result.started_at,
                    finished_at=result.finished_at,
                    turns=result.turns,
                    reason=result.reason,
                    dice_version=replay.dice_version,
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
            changes = update_ratings(session, result, replay.game_id, bots, now) if result.rated else []
            session.flush()
            return changes

        try:  # one attempt: the caller keeps an unwritten result and retries it (server.play.recorder)
            with unavailable(self.dialect, f"did not record game {replay.game_id!r}"):
                return self._write(record, attempts=1)
        except IntegrityError:  # the same game recorded concurrently by another writer
            raise GameRecordedError(f"game {replay.game_id!r} is already recorded") from None

    def game(self, game_id: str) -> GameSummary:
        """Raises: NotFoundError."""

        def find(session: Session) -> GameSummary:
            row = session.get(GameRow, game_id)
            if row is None:
                raise NotFoundError(f"no game {shown(game_id)}; list games to see the recorded ids")
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
                bot_id = bot_row(session, bot).id
                query = query.where(GameRow.id.in_(select(SeatRow.game_id).where(SeatRow.bot_id == bot_id)))
            return _summaries(session, list(session.scalars(query)))

        return self._read(find)

    def replay(self, game_id: str) -> Replay | Replay2210:
        """The game's replay as recorded: a classic game's, or a RISK 2210 A.D. game's (``"game": "2210"``).

        Raises:
            NotFoundError: no such game is recorded.
        """

        def find(session: Session) -> Replay | Replay2210:
            row = session.get(ReplayRow, game_id)
            if row is None:
                raise NotFoundError(
                    f"no replay for game {shown(game_id)}; list games to see the recorded ids"
                )
            return _stored_replay(zlib.decompress(row.data).decode())

        return self._read(find)

    def bot_stats(self, bot: str, queue: str | None = None) -> BotStats:
        """A bot's timeouts, rejections, crashes and decision round trips by phase, summed over its recorded
        games (rated or not) of ``queue``, or of every queue. Raises: NotFoundError."""

        def find(session: Session) -> BotStats:
            row = bot_row(session, bot)
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


def _stored_replay(text: str) -> Replay | Replay2210:
    """A stored replay's JSON as the replay of its kind.

    Raises:
        ReplayError: not a replay (the message names the field).
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as bad:
        raise ReplayError(f"stored replay is not valid JSON: {bad}") from None
    if not isinstance(data, dict):
        raise ReplayError("a stored replay is a JSON object")
    return any_replay(data)


def _check_result(result: GameResult, replay: Replay | Replay2210) -> None:
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


def _histograms(rows: Iterable[tuple[str, int, int]]) -> dict[str, list[int]]:
    """(phase, bucket, decisions) rows as counts per bucket by phase, phases in their engine's order: the
    classic engine's, or the 2210 engine's for a 2210 game (phases such as "bid" that classic lacks)."""
    histograms: dict[str, list[int]] = {}
    for phase, bucket, decisions in rows:
        counts = histograms.setdefault(phase, [0] * (len(ROUND_TRIP_BUCKETS) + 1))
        counts[bucket] += decisions
    names = [p.upper() for p in histograms]
    order: type[Phase] | type[Phase2210] = Phase if all(n in Phase.__members__ for n in names) else Phase2210
    return {p: histograms[p] for p in sorted(histograms, key=lambda p: order[p.upper()])}


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
            dice_version=g.dice_version,
        )
        for g in games
    ]
