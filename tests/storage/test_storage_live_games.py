"""Running games in the database (issue 20): logged in batches with each heartbeat, claimed by exactly one
server when their host is presumed dead, and fenced: the old host's actions and result are refused once
the epoch moved."""

from __future__ import annotations

import dataclasses
import threading

import pytest
from storage_support import ADMIN, live, opening, play

from server.records import ActionBatch, ClusterCounts, GameHandedOver, LiveSeat
from server.storage import Store
from server.storage.errors import GameRecordedError


def test_actions_logged_in_batches_come_back_in_order_to_the_claimer(store: Store) -> None:
    """ "Persist each game's actions as they happen (batched, so the database is not hit once per
    decision)": the game is opened with its first batch; two batches are two rows; the claim returns them
    in order, the game as it was kept, its epoch one up and the fresh seed kept at the action count; and
    (issue 20's review: "a challenge game must stay unrated ... through a takeover") whether it is rated."""
    store.beat("host-1", [opening("g1", '["x","y"]')])
    store.beat("host-1", [ActionBatch("g1", 1, 2, 1, '["z"]')])
    assert store.live_games() == [("g1", "host-1", 1, 3)]
    claimed = store.claim_game("g1", 1, 3, "host-2", 77, "commit")
    assert claimed is not None
    game, batches = claimed
    assert batches == ['["x","y"]', '["z"]']
    assert (game.epoch, game.seed, game.reseeds, game.actions) == (2, 2**63 + 5, ((3, 77, "commit"),), 3)
    assert game.seats[0] == LiveSeat("a", "bot:None", None, True)
    assert not game.rated, "kept as it started (unrated)"
    assert store.live_games() == [("g1", "host-2", 2, 3)]
    store.beat(
        "host-1",
        [dataclasses.replace(opening("g9"), game=dataclasses.replace(live("g9", ["a"], [None]), rated=True))],
    )
    rated = store.claim_game("g9", 1, 1, "host-2", 78, "commit")
    assert rated is not None and rated[0].rated


def test_starting_games_are_opened_with_no_action_in_one_transaction_without_a_heartbeat(
    store: Store,
) -> None:
    """ "a game's record (its header: rules, seed, seats, host, epoch, rated) is in the database before the
    game sends its first request, so that a game killed at any moment after its start is taken over":
    ``open_games`` opens two games in one transaction, 0 actions logged, no batch row and no heartbeat
    (the host is not registered by it); the same record sent again (a commit not seen) changes nothing;
    the game's first batch is logged from action 0; a game claimed at 0 actions comes back with no
    batches and the fresh seed at action 0; an opening refused names the game taken over."""
    assert store.open_games("host", [opening("s1", "[]"), opening("s2", "[]")]) == {}
    assert sorted(store.live_games()) == [("s1", "host", 1, 0), ("s2", "host", 1, 0)]
    assert store.beat("other", []).beats == {"other": 1}, "opening a game is no heartbeat"
    assert store.open_games("host", [opening("s1", "[]")]) == {}
    assert store.beat("host", [ActionBatch("s1", 1, 0, 2, '["x","y"]')]).refused == {}
    claimed = store.claim_game("s2", 1, 0, "other", 9, "c")
    assert claimed is not None
    game, batches = claimed
    assert (game.epoch, game.reseeds, game.actions, batches) == (2, ((0, 9, "c"),), 0, [])
    assert sorted(store.live_games()) == [("s1", "host", 1, 2), ("s2", "other", 2, 0)]
    refused = store.open_games("host", [opening("s2", "[]")])
    assert list(refused) == ["s2"] and "taken over by replica 'other'" in refused["s2"]


def test_a_draining_replica_releases_its_games_in_its_last_beat(store: Store) -> None:
    """ "flush its action log, release each game in the database so another replica claims it without
    waiting for the heartbeat timeout ... and stop playing them (it must not write for them again:
    fencing)": the leaving beat logs the last batch, releases each game of the replica (no host, epoch
    one up) and only its, and takes the replica out of the registry; its later writes are refused; another
    replica claims the game with the epoch it reads, and a fresh seed from the last logged action."""
    store.beat("leaving", [opening("g6", '["x","y"]'), opening("g7")])
    store.beat("staying", [opening("g8")])
    heartbeat = store.beat("leaving", [ActionBatch("g6", 1, 2, 1, '["z"]')], leaving=True)
    assert heartbeat.released == ("g6", "g7")
    assert sorted(heartbeat.beats) == ["staying"]
    assert sorted(store.live_games()) == [("g6", "", 2, 3), ("g7", "", 2, 1), ("g8", "staying", 1, 1)]
    refused = store.beat("leaving", [ActionBatch("g6", 1, 3, 1, '["w"]')]).refused
    assert list(refused) == ["g6"], "the drained replica writes nothing more for a game it released"
    claimed = store.claim_game("g6", 2, 3, "staying", 9, "c")
    assert claimed is not None
    game, batches = claimed
    assert (game.epoch, game.reseeds, batches) == (3, ((3, 9, "c"),), ['["x","y"]', '["z"]'])


def test_a_draining_replica_releases_a_game_with_no_action_yet_by_its_record_alone(store: Store) -> None:
    """ "a draining replica hands its games to the others instead of ending them", a game that has played no
    action yet too: in the leaving beat its record goes alone (a batch of 0 actions), opening it with none
    logged and no batch row, and it is released with the others; another replica claims it at 0 actions
    with a fresh seed from action 0, gets no batches, and logs the game's actions from action 0 on."""
    store.beat("leaving", [opening("g10", '["x"]')])
    heartbeat = store.beat("leaving", [opening("g11", "[]")], leaving=True)
    assert heartbeat.released == ("g10", "g11")
    assert sorted(store.live_games()) == [("g10", "", 2, 1), ("g11", "", 2, 0)]
    claimed = store.claim_game("g11", 2, 0, "staying", 9, "c")
    assert claimed is not None
    game, batches = claimed
    assert (game.epoch, game.reseeds, game.actions, batches) == (3, ((0, 9, "c"),), 0, [])
    assert store.beat("staying", [ActionBatch("g11", 3, 0, 2, '["y","z"]')]).refused == {}
    assert ("g11", "staying", 3, 2) in store.live_games()


def test_the_old_host_is_fenced_once_the_game_is_claimed(store: Store) -> None:
    """ "a replica whose game was taken over must not record anything for it (its writes carry the epoch
    and are refused when stale)": actions and the result at the old epoch are refused and write nothing;
    the new host's result is recorded, and its live record goes with it."""
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    result, replay = play("g2", bots)
    first = ActionBatch("g2", 1, 0, 1, '["x"]', live("g2", [b.name for b in bots], [b.id for b in bots]))
    store.beat("old", [first])
    assert store.claim_game("g2", 1, 1, "new", 5, "c") is not None
    refused = store.beat("old", [ActionBatch("g2", 1, 1, 1, '["y"]')]).refused
    assert list(refused) == ["g2"]
    assert "taken over by replica 'new' (epoch 2)" in refused["g2"]
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


def test_batches_of_several_games_in_one_heartbeat_are_each_fenced_by_their_own_epoch(store: Store) -> None:
    """ "write all running games' due batches in ONE transaction per interval": one heartbeat carries
    three games' batches; the one another server took over is refused without losing the others', which
    are written, and a game opened in the same heartbeat is kept too."""
    store.beat("host", [opening("a"), opening("b")])
    assert store.claim_game("b", 1, 1, "thief", 9, "c") is not None
    heartbeat = store.beat(
        "host",
        [ActionBatch("a", 1, 1, 1, '["a2"]'), ActionBatch("b", 1, 1, 1, '["b2"]'), opening("c", '["c1"]')],
    )
    assert list(heartbeat.refused) == ["b"]
    assert sorted(store.live_games()) == [("a", "host", 1, 2), ("b", "thief", 2, 1), ("c", "host", 1, 1)]
    claimed = store.claim_game("a", 1, 2, "other", 1, "c")
    assert claimed is not None and claimed[1] == ['["x"]', '["a2"]']


def test_a_batch_whose_commit_was_not_seen_is_not_written_twice(store: Store) -> None:
    """ "A batch the database does not take is sent again with the next one": when the database did
    take it (only its answer was lost), sending it again with the next batch writes the next one only."""
    store.beat("host", [opening("g5", '["x","y"]')])
    again = store.beat("host", [opening("g5", '["x","y"]'), ActionBatch("g5", 1, 2, 1, '["z"]')])
    assert again.refused == {}
    claimed = store.claim_game("g5", 1, 3, "other", 1, "c")
    assert claimed is not None and claimed[1] == ['["x","y"]', '["z"]']


def test_a_game_that_ends_before_its_first_batch_is_recorded_once_without_a_live_record(store: Store) -> None:
    """ "a game that ends before its first batch never touches the live tables, and its result
    transaction has nothing to fence beyond a missing row": its result is recorded whether it carries no
    epoch or the epoch of a first batch whose transaction did not commit, and only once."""
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol")]
    for game_id, epoch in (("short", None), ("unsent", 1)):
        result, replay = play(game_id, bots)
        store.record_game(result, replay, epoch=epoch)
        with pytest.raises(GameRecordedError):
            store.record_game(result, replay, epoch=epoch)
    assert sorted(g.id for g in store.games()) == ["short", "unsent"]
    assert store.live_games() == []
    assert {s.bot: s.games for s in store.leaderboard("classic-3")} == {"alice": 2, "bob": 2, "carol": 2}


def test_exactly_one_of_many_claimers_wins(store: Store) -> None:
    """ "claims each game by bumping its epoch (an UPDATE ... WHERE epoch = old, so exactly one claimer
    wins)": eight threads claim at once; one gets the game."""
    store.beat("dead", [opening("g3")])
    wins: list[str] = []
    barrier = threading.Barrier(8)

    def claim(name: str) -> None:
        barrier.wait()
        try:
            if store.claim_game("g3", 1, 1, name, 1, "c") is not None:
                wins.append(name)
        except Exception as lost:  # a lock race the database reports: the claim did not happen
            assert "lock" in str(lost).lower() or "serializ" in str(lost).lower(), lost

    threads = [threading.Thread(target=claim, args=(f"r{i}",)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(wins) == 1
    assert store.live_games() == [("g3", wins[0], 2, 1)]


def test_a_claim_loses_to_actions_logged_since_it_looked(store: Store) -> None:
    """The fresh seed must start where the logged actions end: a claim that saw fewer actions than are
    logged now changes nothing (its host was alive after all)."""
    store.beat("slow", [opening("g4", '["x","y"]')])
    assert store.claim_game("g4", 1, 1, "eager", 3, "c") is None
    assert store.live_games() == [("g4", "slow", 1, 2)]


def test_a_heartbeat_counts_and_sees_the_other_replicas_and_their_games(store: Store) -> None:
    """ "fold the heartbeat into that same transaction": each beat counts one and reads back every
    registered replica's count and the other replicas' running games (not the beating one's own)."""
    store.beat("r1", [opening("mine")])
    store.beat("r2", [opening("theirs")])
    heartbeat = store.beat("r1", [])
    assert heartbeat.beats == {"r1": 2, "r2": 1}
    assert heartbeat.games == [("theirs", "r2", 1, 1)]
    store.leave("r1", ClusterCounts())
    assert store.beat("r2", []).beats == {"r2": 2}
