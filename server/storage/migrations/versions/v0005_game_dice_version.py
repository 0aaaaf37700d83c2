"""Per game: how its rolls and shuffles derive from its seed (``engine.dice``'s version), so that a listed
game says which derivation a verifier must use.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

import json
import zlib
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Every recorded game has its replay beside it (same transaction), and the replay says its version
    # ("dice_version"; a replay without it is version 1): the games recorded before are filled from there.
    op.add_column("games", sa.Column("dice_version", sa.Integer(), nullable=False, server_default="1"))
    connection = op.get_bind()
    later = [
        {"id": game_id, "version": version}
        for game_id, data in connection.execute(sa.text("SELECT game_id, data FROM replays"))
        if (version := json.loads(zlib.decompress(data)).get("dice_version", 1)) != 1
    ]
    if later:
        connection.execute(sa.text("UPDATE games SET dice_version = :version WHERE id = :id"), later)


def downgrade() -> None:
    # A plain DROP COLUMN (SQLite 3.35 or later has it), not a batch table copy: with SQLite's foreign keys
    # on, dropping the old games table to swap the copy in would cascade to every game's seats and replay.
    op.drop_column("games", "dice_version")
