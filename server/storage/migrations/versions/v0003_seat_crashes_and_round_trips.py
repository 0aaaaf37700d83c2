"""Per seat of each game: crashes (stream drops while seated) and decision round trips by phase.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # The games recorded before this revision count no crashes: nobody counted them.
    op.add_column("game_seats", sa.Column("crashes", sa.Integer(), nullable=False, server_default="0"))
    op.create_table(
        "seat_round_trips",
        sa.Column("game_id", sa.String(length=64), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=32), nullable=False),
        sa.Column("bucket", sa.Integer(), nullable=False),
        sa.Column("decisions", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id", "seat"],
            ["game_seats.game_id", "game_seats.seat"],
            name=op.f("fk_seat_round_trips_game_id_game_seats"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("game_id", "seat", "phase", "bucket", name=op.f("pk_seat_round_trips")),
    )


def downgrade() -> None:
    op.drop_table("seat_round_trips")
    with op.batch_alter_table("game_seats") as batch:
        batch.drop_column("crashes")
