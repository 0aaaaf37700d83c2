"""Each recorded game keeps its dice version, so the Arena's game list can say which derivation a verifier
must use (the brief: "The Arena `GameSummary` should carry `dice_version` ... so a verifier can tell which
derivation a listed game used")."""

from __future__ import annotations

import dataclasses
import json
import zlib

from sqlalchemy import insert, text
from storage_support import ADMIN, START, at_revision, play

from engine.dice import DICE_VERSION
from server.storage import Bot, Store
from server.storage.models import GameRow, ReplayRow

TABLES = ("games", "game_seats", "replays")


def test_a_recorded_game_lists_the_dice_version_its_replay_has(store: Store) -> None:
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    result, replay = play("new", bots)
    store.record_game(result, replay)
    result, replay = play("old", bots, seed=2)
    store.record_game(dataclasses.replace(result, rated=False), dataclasses.replace(replay, dice_version=1))
    assert {g.id: g.dice_version for g in store.games()} == {"new": DICE_VERSION, "old": 1}
    assert DICE_VERSION == 2


def test_games_recorded_before_revision_0005_get_the_version_their_replay_records(db_url: str) -> None:
    """A database of revision 0004 holds each game's replay beside it: the upgrade reads the version there
    (a replay written before version 2 has no "dice_version": 1)."""
    seats = [Bot(number, name, START, None, None) for number, name in enumerate(("alice", "bob"), 1)]
    games = {"v2": play("v2", seats, seed=1), "v1": play("v1", seats, seed=2)}
    with at_revision(db_url, "0004") as connection:
        for game_id, (result, replay) in games.items():
            connection.execute(
                insert(GameRow.__table__),  # at 0004: no dice_version column, none inserted
                {
                    "id": game_id,
                    "queue": result.queue,
                    "rules": replay.rules.to_dict(),
                    "board": replay.board,
                    "seed": replay.seed,
                    "seed_commitment": result.seed_commitment,
                    "rated": False,
                    "started_at": result.started_at,
                    "finished_at": result.finished_at,
                    "turns": result.turns,
                    "reason": result.reason,
                },
            )
            data = json.loads(replay.to_json())
            if game_id == "v1":
                del data["dice_version"]
            encoded = json.dumps(data).encode()
            connection.execute(
                insert(ReplayRow.__table__),
                {"game_id": game_id, "data": zlib.compress(encoded), "size": len(encoded)},
            )
    with Store.open(db_url, admin_token=ADMIN) as store:
        assert {g.id: g.dice_version for g in store.games()} == {"v2": 2, "v1": 1}


def test_going_back_to_revision_0004_keeps_every_game_whole(db_url: str) -> None:
    """The downgrade drops the column alone: every game keeps its seats and replay, even on SQLite with
    foreign keys on (as the store opens it), where copying the games table would cascade to both."""
    with Store.open(db_url, admin_token=ADMIN) as store:
        bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob")]
        store.record_game(*play("g1", bots))
    with at_revision(db_url, "0004", down=True, foreign_keys=True) as connection:
        counts = [connection.execute(text(f"SELECT count(*) FROM {t}")).scalar() for t in TABLES]
    assert dict(zip(TABLES, counts, strict=True)) == {"games": 1, "game_seats": 2, "replays": 1}
