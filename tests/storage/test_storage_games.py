"""Finished games: seats, compressed replay and ratings recorded together; read back as recorded."""

from __future__ import annotations

import dataclasses

import pytest
from storage_support import ADMIN, QUEUE, play

from engine.replay import verify
from server.records import SeatOutcome
from server.storage import (
    AlreadyExistsError,
    Bot,
    InvalidInputError,
    NotFoundError,
    Store,
    ratings,
)


def _bots(store: Store, *names: str) -> list[Bot]:
    return [store.register_bot(n, admin_token=ADMIN).bot for n in names]


def test_replay_round_trip_equals_the_original(store: Store) -> None:
    """Issue 4 / architecture: "Replays stored compressed; re-simulation verifies them"."""
    result, replay = play("g1", _bots(store, "alice", "bob", "carol"))
    store.record_game(result, replay)
    loaded = store.replay("g1")
    assert loaded == replay
    assert loaded.to_json() == replay.to_json()
    assert list(verify(loaded).places) == replay.places


def test_game_summary_keeps_what_was_recorded(store: Store) -> None:
    """Issue 4 (Arena API): "list/get games" — queue, rules, seed, commitment, times, seats with outcomes."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [carol, alice, bob])
    seats = [dataclasses.replace(s, timeouts=2, rejections=1) if s.name == "bob" else s for s in result.seats]
    result = dataclasses.replace(result, seats=seats)
    store.record_game(result, replay)
    game = store.game("g1")
    assert (game.queue, game.seed, game.seed_commitment, game.turns, game.reason) == (
        QUEUE,
        replay.seed,
        result.seed_commitment,
        result.turns,
        result.reason,
    )
    assert (game.started_at, game.finished_at, game.rated) == (result.started_at, result.finished_at, True)
    assert game.rules == replay.rules.to_dict()
    assert game.seats == list(seats)
    assert {s.name: s.place for s in game.seats} == {"carol": 1, "alice": 2, "bob": 3}
    assert [g.id for g in store.games(bot="carol")] == ["g1"]
    assert store.games(queue="other") == []


def test_huge_seed_round_trips(store: Store) -> None:
    """bot.proto: GameOver.seed is a uint64 — above PostgreSQL's signed BIGINT range."""
    result, replay = play("g1", _bots(store, "alice", "bob", "carol"))
    replay.seed = 2**64 - 1  # a recorded seed, not replayed here
    store.record_game(result, replay)
    assert store.game("g1").seed == 2**64 - 1
    assert store.replay("g1").seed == 2**64 - 1


def test_a_game_is_recorded_once(store: Store) -> None:
    """Recording the same game again (e.g. a retried shutdown flush) is refused and changes nothing."""
    bots = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", bots)
    store.record_game(result, replay)
    with pytest.raises(AlreadyExistsError, match="game 'g1' is already recorded"):
        store.record_game(result, replay)
    assert [s.games for s in store.leaderboard(QUEUE)] == [1, 1, 1]


def test_result_and_replay_must_agree(store: Store) -> None:
    """House rule: bad input gets a clear error; a result contradicting its replay is never stored."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])
    swapped = [dataclasses.replace(s, place=4 - s.place) for s in result.seats]
    with pytest.raises(InvalidInputError, match=r"result places .* differ from the replay's places"):
        store.record_game(dataclasses.replace(result, seats=swapped), replay)
    renamed = [dataclasses.replace(result.seats[0], name="mallory"), *result.seats[1:]]
    with pytest.raises(InvalidInputError, match=r"differ from the replay's seats"):
        store.record_game(dataclasses.replace(result, seats=renamed), replay)
    with pytest.raises(NotFoundError, match="no game 'g1'"):
        store.game("g1")
    with pytest.raises(NotFoundError, match="no replay for game 'g1'"):
        store.replay("g1")


def test_rated_games_need_distinct_registered_bots(store: Store) -> None:
    """Issue 4: practice mode "may let unregistered bots play unranked" — recorded, but never rated."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])
    practice = [dataclasses.replace(s, bot_id=None) if s.name == "bob" else s for s in result.seats]
    with pytest.raises(InvalidInputError, match="Record practice games with rated=False"):
        store.record_game(dataclasses.replace(result, seats=practice), replay)
    twice = [dataclasses.replace(s, bot_id=alice.id) for s in result.seats]
    with pytest.raises(InvalidInputError, match="needs distinct bots"):
        store.record_game(dataclasses.replace(result, seats=twice), replay)

    assert store.record_game(dataclasses.replace(result, seats=practice, rated=False), replay) == []
    assert store.leaderboard(QUEUE) == []
    assert store.game("g1").rated is False
    assert [s.bot_id for s in store.game("g1").seats] == [s.bot_id for s in practice]


def test_seat_outcomes_count_forfeits_and_timeouts(store: Store) -> None:
    """Issue 4: the leaderboard shows "timeouts, forfeits"."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])
    seats = [
        dataclasses.replace(s, outcome=SeatOutcome.FORFEIT_TIMEOUT, timeouts=3) if s.name == "carol" else s
        for s in result.seats
    ]
    store.record_game(dataclasses.replace(result, seats=seats), replay)
    rows = {s.bot: s for s in store.leaderboard(QUEUE)}
    assert (rows["carol"].timeouts, rows["carol"].forfeits) == (3, 1)
    assert (rows["alice"].timeouts, rows["alice"].forfeits) == (0, 0)


def test_a_failed_write_leaves_nothing_behind(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 4: "Results, ratings and the replay of a game are written in one transaction": when the rating
    step fails after the game, its seats and replay were added, none of them remain."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])

    def broken_rate(*_: object) -> None:
        raise RuntimeError("rating step failed")

    monkeypatch.setattr(ratings, "rate", broken_rate)
    with pytest.raises(RuntimeError, match="rating step failed"):
        store.record_game(result, replay)
    assert store.games() == []
    assert store.leaderboard(QUEUE) == []
    with pytest.raises(NotFoundError):
        store.replay("g1")
    monkeypatch.undo()
    store.record_game(result, replay)
    assert [g.id for g in store.games()] == ["g1"]
