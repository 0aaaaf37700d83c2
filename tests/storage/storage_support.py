"""Real games for storage tests (played by the engine's aggressive policy, short turn cap), and the admin
token conftest.py opens ``store`` with."""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, create_engine

from engine import aggressive_policy, new_game, preset
from engine.actions import Action
from engine.replay import Replay
from server.records import ActionBatch, GameResult, LiveGame, LiveSeat, SeatOutcome, SeatResult
from server.storage import Bot
from server.storage.database import MIGRATIONS, configure_sqlite

ADMIN = "admin-token-for-tests"
QUEUE = "classic-3"
START = datetime(2026, 1, 1, tzinfo=UTC)


@functools.cache
def _played(players: int, seed: int) -> tuple[tuple[Action, ...], tuple[int, ...], str, str, int]:
    rules = preset("classic" if players > 2 else "classic_two_player", turn_cap=60)
    state, _ = new_game(rules, players, seed)
    actions: list[Action] = []
    while not state.is_over():
        action = aggressive_policy(state)
        state.apply_unchecked(action)
        actions.append(action)
    return tuple(actions), tuple(state.places), state.fingerprint(), state.end_reason, state.turn


def play(game_id: str, ranking: list[Bot], seed: int = 1, queue: str = QUEUE) -> tuple[GameResult, Replay]:
    """A real game whose final places put ``ranking[0]`` first, ``ranking[1]`` second, and so on.

    The engine decides the places; the bots are seated so that the wanted bot sits where each place fell.
    """
    actions, places, fingerprint, reason, turns = _played(len(ranking), seed)
    assert len(set(places)) == len(places), "pick a seed whose game has no tied places"
    seated = [ranking[place - 1] for place in places]
    rules = preset("classic" if len(ranking) > 2 else "classic_two_player", turn_cap=60)
    replay = Replay(
        rules,
        seed,
        [b.name for b in seated],
        list(actions),
        game_id=game_id,
        places=list(places),
        fingerprint=fingerprint,
    )
    seats = [
        SeatResult(
            name=bot.name,
            place=place,
            outcome=SeatOutcome.WON if place == 1 else SeatOutcome.ELIMINATED,
            bot_id=bot.id,
        )
        for bot, place in zip(seated, places, strict=True)
    ]
    result = GameResult(
        queue=queue,
        seats=seats,
        seed_commitment=hashlib.sha256(f"{seed}:{game_id}".encode()).hexdigest(),
        started_at=START,
        finished_at=START + timedelta(minutes=5),
        turns=turns,
        reason=reason,
    )
    return result, replay


@contextmanager
def at_revision(
    db_url: str, revision: str, *, down: bool = False, foreign_keys: bool = False
) -> Iterator[Connection]:
    """The database at ``db_url`` upgraded (``down``: downgraded) to ``revision``, and the transaction that
    did it, to write or read rows as that revision has them. ``foreign_keys``: on SQLite the connection is
    the store's own (``configure_sqlite``: foreign keys enforced, the transaction begun with BEGIN)."""
    engine = create_engine(db_url)
    if foreign_keys and engine.dialect.name == "sqlite":
        configure_sqlite(engine)
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    try:
        with engine.begin() as connection:
            config.attributes["connection"] = connection
            (command.downgrade if down else command.upgrade)(config, revision)
            yield connection
    finally:
        engine.dispose()


def live(game_id: str, names: list[str], bot_ids: list[int | None]) -> LiveGame:
    return LiveGame(
        game_id=game_id,
        queue="classic-3",
        rules={"name": "classic"},
        board="classic",
        seed=2**63 + 5,  # above a signed 64-bit integer: kept as text
        dice_version=2,
        seats=tuple(LiveSeat(n, f"bot:{b}", b, True) for n, b in zip(names, bot_ids, strict=True)),
        seed_commitment="c" * 64,
        started_at=START,
        rated=False,
    )


def opening(game_id: str, data: str = '["x"]', names: list[str] | None = None) -> ActionBatch:
    """A game's first batch, carrying its record (three practice seats unless ``names``)."""
    names = names or ["a", "b", "c"]
    count = data.count('"') // 2
    return ActionBatch(game_id, 1, 0, count, data, live(game_id, names, [None] * len(names)))
