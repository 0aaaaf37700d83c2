"""Per tournament table: the game seated for it and not recorded yet (``playing``), so that a tournament's
director on any replica of a cluster leaves the table alone while its game is played, wherever it is.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # No foreign key: the game is not in ``games`` until it is recorded.
    op.add_column("tournament_tables", sa.Column("playing", sa.String(64), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite 3.35 or later has it), not a batch table copy (see 0005).
    op.drop_column("tournament_tables", "playing")
