"""Per running game: whether its result moves ratings (``live_games.rated``), so that a game taken over
or handed over is recorded as it started: a challenge's or tournament table's game on a rated queue
stays unrated.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Games running across the upgrade keep what a takeover did before: their queue's flag (true for
    # every configured queue).
    op.add_column("live_games", sa.Column("rated", sa.Boolean(), server_default=sa.true(), nullable=False))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite 3.35 or later has it), not a batch table copy (see 0005).
    op.drop_column("live_games", "rated")
