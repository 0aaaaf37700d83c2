"""Ratings per queue: OpenSkill Plackett-Luce from each game's full ranking (every seat a one-player team,
ties allowed), their history, and the leaderboard by μ − 3σ."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from openskill.models import PlackettLuce
from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from server.records import INITIAL, LEADERBOARD_SIGMAS, GameResult, Skill
from server.storage.bots import bot_row
from server.storage.database import Database
from server.storage.models import BotRow, RatingChangeRow, RatingRow

MODEL = PlackettLuce(mu=INITIAL.mu, sigma=INITIAL.sigma)


def rate(skills: list[Skill], places: list[int]) -> list[Skill]:
    """New skills after one game; ``places[i]`` is seat i's final place (1 = best, equal places tie)."""
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]


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


class RatingStore(Database):
    """Ratings, their history and the leaderboards (rated games update them: ``update_ratings``)."""

    def skill(self, bot_id: int, queue: str) -> Skill:
        """The bot's rating in the queue; the initial μ/σ if it has played no rated game there."""

        def find(session: Session) -> Skill:
            row = session.get(RatingRow, (bot_id, queue))
            return Skill(row.mu, row.sigma) if row is not None else INITIAL

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

    def rating_history(self, bot: str, queue: str) -> list[RatingChange]:
        """A bot's rating changes in a queue, oldest first. Raises: NotFoundError."""

        def find(session: Session) -> list[RatingChange]:
            row = bot_row(session, bot)
            query = (
                select(RatingChangeRow)
                .where(RatingChangeRow.bot_id == row.id, RatingChangeRow.queue == queue)
                .order_by(RatingChangeRow.id)
            )
            return [_change(c, row.name) for c in session.scalars(query)]

        return self._read(find)

    def queues(self) -> list[str]:
        """Queues with at least one rating."""
        return self._read(
            lambda session: list(
                session.scalars(select(RatingRow.queue).distinct().order_by(RatingRow.queue))
            )
        )


def update_ratings(
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
    after = rate(before, [s.place for s in result.seats])
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
