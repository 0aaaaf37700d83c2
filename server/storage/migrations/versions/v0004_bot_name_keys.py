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
    with op.batch_alter_table("bots") as batch:
        batch.drop_constraint(op.f("uq_bots_name_key"), type_="unique")
        batch.drop_column("name_key")
