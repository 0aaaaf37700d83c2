"""Per running game: whether its result moves ratings (``live_games.rated``), so that a game taken over
or handed over is recorded as it started: a challenge's or tournament table's game on a rated queue
stays unrated. Per cluster session: the number of its replica's last free-slot change applied
(``cluster_sessions.changes``), so that a change tried again after a lost commit answer counts once.

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
    # A game running across the upgrade is taken over as before: rated as its (configured) queue is.
    op.add_column("live_games", sa.Column("rated", sa.Boolean(), server_default=sa.true(), nullable=False))
    op.add_column("cluster_sessions", sa.Column("changes", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    # Plain DROP COLUMNs (SQLite 3.35 or later has them), not batch table copies (see 0005).
    op.drop_column("cluster_sessions", "changes")
    op.drop_column("live_games", "rated")
