"""Running games in the database (issue 20): logged in batches, claimed by exactly one server when their
host is presumed dead, and fenced: the old host's actions and result are refused once the epoch moved."""

from __future__ import annotations

import threading

import pytest
from storage_support import ADMIN, START, play

from server.records import GameHandedOver, LiveGame, LiveSeat
from server.storage import Store
from server.storage.errors import GameRecordedError


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
    )


def test_actions_logged_in_batches_come_back_in_order_to_the_claimer(store: Store) -> None:
    """ "Persist each game's actions as they happen (batched, so the database is not hit once per
    decision)": two batches are two rows; the claim returns them in order, the game as it was kept, its
    epoch one up and the fresh seed kept at the action count."""
    store.open_live_game(live("g1", ["a", "b", "c"], [None, None, None]), "host-1")
    store.append_actions("g1", 1, 0, 2, '["x","y"]')
    store.append_actions("g1", 1, 2, 1, '["z"]')
    assert store.live_games() == [("g1", "host-1", 1, 3)]
    claimed = store.claim_game("g1", 1, 3, "host-2", 77, "commit")
    assert claimed is not None
    game, batches = claimed
    assert batches == ['["x","y"]', '["z"]']
    assert (game.epoch, game.seed, game.reseeds, game.actions) == (2, 2**63 + 5, ((3, 77, "commit"),), 3)
    assert game.seats[0] == LiveSeat("a", "bot:None", None, True)
    assert store.live_games() == [("g1", "host-2", 2, 3)]


def test_the_old_host_is_fenced_once_the_game_is_claimed(store: Store) -> None:
    """ "a replica whose game was taken over must not record anything for it (its writes carry the epoch
    and are refused when stale)": actions and the result at the old epoch raise GameHandedOver and write
    nothing; the new host's result is recorded, and its live record goes with it."""
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    result, replay = play("g2", bots)
    store.open_live_game(live("g2", [b.name for b in bots], [b.id for b in bots]), "old")
    store.append_actions("g2", 1, 0, 1, '["x"]')
    assert store.claim_game("g2", 1, 1, "new", 5, "c") is not None
    with pytest.raises(GameHandedOver, match="taken over by replica 'new' \\(epoch 2\\)"):
        store.append_actions("g2", 1, 1, 1, '["y"]')
    with pytest.raises(GameHandedOver):
        store.record_game(result, replay, epoch=1)
    assert store.games() == []
    assert len(store.leaderboard("classic-3")) == 0
    store.record_game(result, replay, epoch=2)
    assert [g.id for g in store.games()] == ["g2"]
    assert store.live_games() == []
    with pytest.raises(GameRecordedError):  # "results recorded exactly once": a retry changes nothing
        store.record_game(result, replay, epoch=2)
    rated = {s.bot: s.games for s in store.leaderboard("classic-3")}
    assert rated == {"alice": 1, "bob": 1, "carol": 1}


def test_exactly_one_of_many_claimers_wins(store: Store) -> None:
    """ "claims each game by bumping its epoch (an UPDATE ... WHERE epoch = old, so exactly one claimer
    wins)": eight threads claim at once; one gets the game."""
    store.open_live_game(live("g3", ["a", "b", "c"], [None, None, None]), "dead")
    wins: list[str] = []
    barrier = threading.Barrier(8)

    def claim(name: str) -> None:
        barrier.wait()
        try:
            if store.claim_game("g3", 1, 0, name, 1, "c") is not None:
                wins.append(name)
        except Exception as lost:  # a lock race the database reports: the claim did not happen
            assert "lock" in str(lost).lower() or "serializ" in str(lost).lower(), lost

    threads = [threading.Thread(target=claim, args=(f"r{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(wins) == 1
    assert store.live_games() == [("g3", wins[0], 2, 0)]


def test_a_claim_loses_to_actions_logged_since_it_looked(store: Store) -> None:
    """The fresh seed must start where the logged actions end: a claim that saw fewer actions than are
    logged now changes nothing (its host was alive after all)."""
    store.open_live_game(live("g4", ["a", "b", "c"], [None, None, None]), "slow")
    store.append_actions("g4", 1, 0, 2, '["x","y"]')
    assert store.claim_game("g4", 1, 1, "eager", 3, "c") is None
    assert store.live_games() == [("g4", "slow", 1, 2)]


def test_the_replica_registry_counts_heartbeats(store: Store) -> None:
    store.beat("r1")
    store.beat("r1")
    store.beat("r2")
    assert store.replica_beats() == {"r1": 2, "r2": 1}
    store.leave("r1")
    assert store.replica_beats() == {"r2": 1}
