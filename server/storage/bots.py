"""Registered bots and their tokens: register, rotate, revoke, authenticate."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from server.records import LOOK_ALIKE_ADVICE, NAME_FORM, NAME_PATTERN, NAME_RULE, name_key, shown
from server.storage.database import Database, utc_now
from server.storage.errors import (
    AdminTokenError,
    AlreadyExistsError,
    InvalidInputError,
    NotFoundError,
    RevokedTokenError,
    RotatedTokenError,
    UnknownTokenError,
)
from server.storage.models import BotRow
from server.storage.tokens import hash_token, new_token, token_matches


@dataclass(frozen=True, slots=True)
class Bot:
    id: int
    name: str
    created_at: datetime
    rotated_at: datetime | None
    revoked_at: datetime | None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


@dataclass(frozen=True, slots=True)
class Registration:
    """A bot and its token. The token is shown this once: only its hash is stored."""

    bot: Bot
    token: str


class BotStore(Database):
    """Bots and tokens. Register, rotate and revoke need the admin token from the server config."""

    def __init__(self, engine: Engine, admin_token: str | None) -> None:
        super().__init__(engine)
        self._admin_hash = hash_token(admin_token) if admin_token else None

    def _check_admin(self, admin_token: str) -> None:
        if self._admin_hash is None:
            raise AdminTokenError(
                "admin operations are disabled: the server has no admin token configured; "
                "set one in the server config to register, rotate or revoke bots"
            )
        if not token_matches(admin_token, self._admin_hash):
            raise AdminTokenError(
                "wrong admin token: registering, rotating and revoking bots needs the admin token "
                "from the server config"
            )

    def is_admin(self, token: str) -> bool:
        """``token`` is the configured admin token (compared in constant time)."""
        return self._admin_hash is not None and token_matches(token, self._admin_hash)

    def register_bot(self, name: str, *, admin_token: str) -> Registration:
        """Register a bot; the returned token is shown once.

        Raises:
            AdminTokenError, InvalidInputError (bad name), AlreadyExistsError (the name, or one that differs
            only in case, '.', '_', '-' and look-alike characters (``server.records.name_key``), is taken).
        """
        self._check_admin(admin_token)
        if not NAME_PATTERN.fullmatch(name):  # the names a Hello may carry
            raise InvalidInputError(f"bot name {shown(name)} is not allowed: use {NAME_FORM}")
        token = new_token()

        def register(session: Session) -> Bot:
            holder = session.scalar(select(BotRow.name).where(BotRow.name_key == name_key(name)))
            if holder == name:
                raise AlreadyExistsError(f"a bot named {name!r} is already registered; choose another name")
            if holder is not None:
                raise AlreadyExistsError(
                    f"bot name {name!r} is too like the registered bot {holder!r} ({NAME_RULE}): "
                    f"{LOOK_ALIKE_ADVICE}"
                )
            row = BotRow(
                name=name, name_key=name_key(name), token_hash=hash_token(token), created_at=utc_now()
            )
            session.add(row)
            session.flush()
            return _bot(row)

        try:
            return Registration(self._write(register), token)
        except IntegrityError:  # registered by someone else between our check and insert
            raise AlreadyExistsError(
                f"a bot named {name!r}, or one too like it ({NAME_RULE}), is already registered: "
                f"{LOOK_ALIKE_ADVICE}"
            ) from None

    def rotate_token(self, name: str, *, admin_token: str) -> Registration:
        """Give a bot a new token (shown once); the old one stops working at once.

        Raises:
            AdminTokenError, NotFoundError, RevokedTokenError (a revoked bot stays revoked).
        """
        self._check_admin(admin_token)
        token = new_token()

        def rotate(session: Session) -> Bot:
            row = bot_row(session, name, lock=True)
            if row.revoked_at is not None:
                raise RevokedTokenError(
                    f"bot {name!r} was revoked on {row.revoked_at:%Y-%m-%d %H:%M} UTC and cannot get a new "
                    "token; register a new bot instead"
                )
            row.previous_token_hash = row.token_hash
            row.token_hash = hash_token(token)
            row.rotated_at = utc_now()
            return _bot(row)

        return Registration(self._write(rotate), token)

    def revoke_bot(self, name: str, *, admin_token: str) -> Bot:
        """Revoke a bot: its token is refused from now on; its games and history stay.

        Raises:
            AdminTokenError, NotFoundError.
        """
        self._check_admin(admin_token)

        def revoke(session: Session) -> Bot:
            row = bot_row(session, name, lock=True)
            if row.revoked_at is None:
                row.revoked_at = utc_now()
            return _bot(row)

        return self._write(revoke)

    def authenticate(self, token: str) -> Bot:
        """The bot this token belongs to.

        Raises:
            UnknownTokenError, RotatedTokenError, RevokedTokenError — never quoting the token.
        """
        digest = hash_token(token)

        def find(session: Session) -> Bot:
            row = session.scalar(select(BotRow).where(BotRow.token_hash == digest))
            # The lookup is by hash, so its timing reveals nothing usable; the comparison is constant-time
            # anyway, so no code path compares a secret byte by byte.
            if row is not None and token_matches(token, row.token_hash):
                if row.revoked_at is not None:
                    raise RevokedTokenError(
                        f"bot {row.name!r} was revoked on {row.revoked_at:%Y-%m-%d %H:%M} UTC; its token no "
                        "longer works. Ask the organizer to register the bot again"
                    )
                return _bot(row)
            old = session.scalar(select(BotRow).where(BotRow.previous_token_hash == digest))
            if old is not None:
                rotated = f"{old.rotated_at:%Y-%m-%d %H:%M} UTC" if old.rotated_at else "recently"
                raise RotatedTokenError(
                    f"this token of bot {old.name!r} was replaced on {rotated}; connect with the new token "
                    "the organizer received when rotating it"
                )
            raise UnknownTokenError(
                "unknown bot token: no registered bot has it. Check that the whole token was copied "
                "(43 characters), or ask the organizer to register your bot and give you its token"
            )

        return self._read(find)

    def look_alike(self, name: str) -> Bot | None:
        """The registered bot whose name is ``name`` up to case, '.', '_', '-' and look-alike characters
        (``server.records.name_key``), if any."""
        key = name_key(name)
        return self._read(
            lambda session: next(
                (_bot(r) for r in session.scalars(select(BotRow).where(BotRow.name_key == key))), None
            )
        )

    def bot(self, name: str) -> Bot:
        """Raises: NotFoundError."""
        return self._read(lambda session: _bot(bot_row(session, name)))

    def bots(self) -> list[Bot]:
        return self._read(
            lambda session: [_bot(r) for r in session.scalars(select(BotRow).order_by(BotRow.name))]
        )


def _bot(row: BotRow) -> Bot:
    return Bot(row.id, row.name, row.created_at, row.rotated_at, row.revoked_at)


def bot_row(session: Session, name: str, *, lock: bool = False) -> BotRow:
    query = select(BotRow).where(BotRow.name == name)
    row = session.scalar(query.with_for_update() if lock else query)
    if row is None:
        raise NotFoundError(f"no bot named {shown(name)}; list bots to see the registered names")
    return row
