"""What replicas did for one another, counted in the database so that a count outlives its process: per
registered replica (``replicas``), its process's games handed over, games taken over and relayed decisions
(both directions), written with each heartbeat; and ``cluster_totals``, one row to which a replica's counts
are added as its row leaves the registry.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-20
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTS = ("games_handed_over", "games_taken_over", "relayed_decisions_played", "relayed_decisions_sent")


def _counts() -> list[sa.Column[int]]:
    return [sa.Column(name, sa.BigInteger(), server_default="0", nullable=False) for name in COUNTS]


def upgrade() -> None:
    for column in _counts():
        op.add_column("replicas", column)
    totals = op.create_table(
        "cluster_totals",
        sa.Column("id", sa.Integer(), nullable=False),
        *_counts(),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cluster_totals")),
    )
    op.bulk_insert(totals, [{"id": 1}])  # its one row, which replicas leaving add to


def downgrade() -> None:
    op.drop_table("cluster_totals")
    # Plain DROP COLUMNs (SQLite 3.35 or later has them), not batch table copies (see 0005).
    for name in reversed(COUNTS):
        op.drop_column("replicas", name)
