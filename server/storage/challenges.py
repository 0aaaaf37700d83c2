"""Challenges: games between named bots, each bot limited to a quota of games per period."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from server.storage.bots import bot_row
from server.storage.database import Database, utc_now
from server.storage.errors import QuotaExceededError
from server.storage.models import ChallengeBotRow, ChallengeRow


class ChallengeStore(Database):
    """Challenges and the quota they count against."""

    def create_challenge(
        self, bots: Sequence[str], queue: str, games: int, *, quota: int, period: timedelta
    ) -> int:
        """Record a challenge of ``games`` games between ``bots`` (names) if every bot has that many games
        left of its ``quota`` in the last ``period``; returns its id.

        Raises:
            NotFoundError (unknown bot), QuotaExceededError (the message says which bot and when it resets).
        """
        now = utc_now()

        def create(session: Session) -> int:
            rows = [bot_row(session, name) for name in bots]
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
