"""Running games in the database, so that another server can take over a dead one's games: the replicas
and their heartbeats, each live game with its host and fencing epoch, and its actions in batches.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "replicas",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("beats", sa.Integer(), nullable=False),
        sa.Column("beat_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_replicas")),
    )
    op.create_table(
        "live_games",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("queue", sa.String(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("board", sa.String(length=64), nullable=False),
        sa.Column("seed", sa.String(length=20), nullable=False),
        sa.Column("dice_version", sa.Integer(), nullable=False),
        sa.Column("seats", sa.JSON(), nullable=False),
        sa.Column("seed_commitment", sa.String(length=64), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("host", sa.String(length=64), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("actions", sa.Integer(), nullable=False),
        sa.Column("reseeds", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_live_games")),
    )
    op.create_index(op.f("ix_live_games_host"), "live_games", ["host"], unique=False)
    op.create_table(
        "live_actions",
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("first", sa.Integer(), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["live_games.id"],
            name=op.f("fk_live_actions_game_id_live_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "first", name=op.f("pk_live_actions")),
    )


def downgrade() -> None:
    op.drop_table("live_actions")
    op.drop_index(op.f("ix_live_games_host"), table_name="live_games")
    op.drop_table("live_games")
    op.drop_table("replicas")
