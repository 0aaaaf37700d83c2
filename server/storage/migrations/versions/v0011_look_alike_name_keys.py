"""Bots: name keys computed again, look-alike characters now taken as one (issue 33, item 7: `a1ice` and
`vvilliam` were registered beside `alice` and `william`).

``server.records.name_key`` now also maps the characters that Unicode's confusables data (UTS #39) and the
project's table say look alike: 1, I, i and l; 0, O and o; rn and m; vv and w. Every bot's key is written
again in that form. As revision 0004 did, bots registered before this revision under names that now look
alike are kept (grandfathered): the oldest keeps the key, each later one gets ``<key>#<id>``, so none is
renamed and every new look-alike is still refused; each such pair is logged for the organiser to review.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-07
"""

import logging
import re
from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PUNCTUATION = re.compile(r"[_.\-]")
_LOOK_ALIKES = str.maketrans({"1": "l", "i": "l", "0": "o", "m": "rn", "w": "vv"})


def _name_key(name: str) -> str:
    """``server.records.name_key`` as of this revision (a revision does not change with the code)."""
    key = _PUNCTUATION.sub("", name).casefold().translate(_LOOK_ALIKES)
    return key.replace("rn", "m").replace("vv", "w")


def _name_key_0004(name: str) -> str:
    """The key of revision 0004: the name case-folded without '.', '_' and '-'."""
    return _PUNCTUATION.sub("", name).casefold()


def _write_keys(key_of: Callable[[str], str]) -> list[tuple[str, str]]:
    """Every bot's name key by ``key_of``, the oldest of those sharing one keeping it; the (kept, later)
    names of each bot so set apart."""
    bots = sa.table(
        "bots",
        sa.column("id", sa.Integer()),
        sa.column("name", sa.String()),
        sa.column("name_key", sa.String()),
    )
    connection = op.get_bind()
    rows = connection.execute(sa.select(bots.c.id, bots.c.name).order_by(bots.c.id)).all()
    # First a placeholder that no key can equal (a name holds no '#', and a set-apart key ends in its id),
    # so that no row's new key meets the old key another row still holds: the constraint stays unique.
    connection.execute(sa.update(bots).values(name_key=sa.cast(bots.c.id, sa.String()) + "#"))
    holders: dict[str, str] = {}
    keys: list[dict[str, object]] = []
    apart: list[tuple[str, str]] = []
    for bot_id, name in rows:
        key = key_of(name)
        if key in holders:
            apart.append((holders[key], name))
            key = f"{key}#{bot_id}"
        else:
            holders[key] = name
        keys.append({"bot_id": bot_id, "key": key})
    if keys:
        update = (
            sa.update(bots).where(bots.c.id == sa.bindparam("bot_id")).values(name_key=sa.bindparam("key"))
        )
        connection.execute(update, keys)
    return apart


def upgrade() -> None:
    for kept, later in _write_keys(_name_key):
        logging.getLogger(__name__).warning(
            "bots %r and %r were registered under names that look alike (revision 0011 compares look-alike "
            "characters as one); both are kept, and no further look-alike can be registered",
            kept,
            later,
        )


def downgrade() -> None:
    _write_keys(_name_key_0004)
