"""Bots: name_key, the name compared ignoring case and '.', '_' and '-', unique (no `Alice` beside `alice`).

Bots registered before this revision under look-alike names are kept (grandfathered): the oldest keeps the
key, each later one gets ``<key>#<id>``, so none is renamed and every new look-alike is still refused.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

import re
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _name_key(name: str) -> str:
    """``server.records.name_key`` as of this revision (a revision does not change with the code)."""
    return re.sub(r"[_.\-]", "", name).casefold()


def upgrade() -> None:
    op.add_column("bots", sa.Column("name_key", sa.String(length=48), nullable=True))
    bots = sa.table("bots", sa.column("id", sa.Integer()), sa.column("name", sa.String()))
    keys = sa.table("bots", sa.column("id", sa.Integer()), sa.column("name_key", sa.String()))
    connection = op.get_bind()
    taken: set[str] = set()
    for bot_id, name in connection.execute(sa.select(bots.c.id, bots.c.name).order_by(bots.c.id)).all():
        key = _name_key(name)
        if key in taken:
            key = f"{key}#{bot_id}"
        taken.add(key)
        connection.execute(sa.update(keys).where(keys.c.id == bot_id).values(name_key=key))
    with op.batch_alter_table("bots") as batch:
        batch.alter_column("name_key", existing_type=sa.String(length=48), nullable=False)
        batch.create_unique_constraint(op.f("uq_bots_name_key"), ["name_key"])


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.drop_constraint(op.f("uq_bots_name_key"), "bots", type_="unique")
        op.drop_column("bots", "name_key")
        return
    # SQLite keeps the constraint in the table's definition, so the table is built again without it; and
    # not the batch way (copy, drop the old table, rename the copy): with foreign keys on, the drop
    # orphans every game seat, rating and entry of a bot, and no rename makes up for it at commit. Here
    # the bots are set aside, the table is dropped and made again as revision 0003 had it, and the bots
    # put back: each row put back resolves the references its drop left open, so the commit goes through.
    op.execute("PRAGMA defer_foreign_keys = ON")  # the references are checked at commit (this one only)
    columns = "id, name, token_hash, previous_token_hash, created_at, rotated_at, revoked_at"
    op.execute(f"CREATE TABLE _bots_0003 AS SELECT {columns} FROM bots")
    op.drop_table("bots")
    op.create_table(
        "bots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("previous_token_hash", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("rotated_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bots")),
        sa.UniqueConstraint("name", name=op.f("uq_bots_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_bots_token_hash")),
    )
    op.create_index(op.f("ix_bots_previous_token_hash"), "bots", ["previous_token_hash"])
    op.execute(f"INSERT INTO bots ({columns}) SELECT {columns} FROM _bots_0003")
    op.drop_table("_bots_0003")
