"""Many replicas serve one ladder (``server.cluster``): the replicas' relay addresses and loads, the bots'
sessions and their queue memberships (the shared waiting set), the appointed games between named bots,
the matchmaker's lease and the seatings it hands to host replicas.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-09
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "cluster_replicas",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("relay", sa.String(length=255), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cluster_replicas")),
    )
    op.create_table(
        "cluster_sessions",
        sa.Column("replica", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=32), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=True),
        sa.Column("ranked", sa.Boolean(), nullable=False),
        sa.Column("live_events", sa.Boolean(), nullable=False),
        sa.Column("free", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("replica", "session_id", name=op.f("pk_cluster_sessions")),
    )
    op.create_index(op.f("ix_cluster_sessions_key"), "cluster_sessions", ["key"], unique=False)
    op.create_table(
        "cluster_waiting",
        sa.Column("replica", sa.String(length=64), nullable=False),
        sa.Column("session_id", sa.String(length=32), nullable=False),
        sa.Column("queue", sa.String(length=64), nullable=False),
        sa.Column("games_left", sa.Integer(), nullable=False),
        sa.Column("since", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("replica", "session_id", "queue", name=op.f("pk_cluster_waiting")),
    )
    op.create_table(
        "cluster_lease",
        sa.Column("name", sa.String(length=32), nullable=False),
        sa.Column("holder", sa.String(length=64), nullable=False),
        sa.Column("term", sa.Integer(), nullable=False),
        sa.Column("renewals", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_cluster_lease")),
    )
    op.create_table(
        "cluster_seatings",
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("queue", sa.String(length=64), nullable=False),
        sa.Column("host", sa.String(length=64), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("appointment", sa.String(length=32), nullable=False),
        sa.PrimaryKeyConstraint("game_id", name=op.f("pk_cluster_seatings")),
    )
    op.create_table(
        "cluster_appointments",
        sa.Column("key", sa.String(length=32), nullable=False),
        sa.Column("replica", sa.String(length=64), nullable=False),
        sa.Column("bots", sa.JSON(), nullable=False),
        sa.Column("made_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_cluster_appointments")),
    )
    op.create_index(op.f("ix_cluster_seatings_host"), "cluster_seatings", ["host"], unique=False)


def downgrade() -> None:
    op.drop_table("cluster_appointments")
    op.drop_index(op.f("ix_cluster_seatings_host"), table_name="cluster_seatings")
    op.drop_table("cluster_seatings")
    op.drop_table("cluster_lease")
    op.drop_table("cluster_waiting")
    op.drop_index(op.f("ix_cluster_sessions_key"), table_name="cluster_sessions")
    op.drop_table("cluster_sessions")
    op.drop_table("cluster_replicas")
