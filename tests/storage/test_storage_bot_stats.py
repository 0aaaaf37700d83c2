"""Per-seat decision round trips and crashes, stored with the game and summed per bot (issue 8, the Bot page:
"decision-latency histogram by phase, timeouts, rejections and crashes")."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from storage_support import ADMIN, QUEUE, play

from server.records import ROUND_TRIP_BUCKETS, GameResult
from server.storage import Bot, NotFoundError, Store, ratings

BUCKETS = len(ROUND_TRIP_BUCKETS) + 1


def counts(**at: int) -> list[int]:
    """A histogram with ``at[f"b{i}"]`` decisions in bucket i, e.g. counts(b0=2, b15=1)."""
    histogram = [0] * BUCKETS
    for key, value in at.items():
        histogram[int(key[1:])] = value
    return histogram


def _bots(store: Store, *names: str) -> list[Bot]:
    return [store.register_bot(n, admin_token=ADMIN).bot for n in names]


def _with(result: GameResult, name: str, **figures: Any) -> GameResult:
    """``result`` with the seat of bot ``name`` given ``figures`` (crashes, round_trips, ...)."""
    seats = [dataclasses.replace(s, **figures) if s.name == name else s for s in result.seats]
    return dataclasses.replace(result, seats=seats)


def test_a_seats_round_trips_and_crashes_are_read_back_as_recorded(store: Store) -> None:
    """Issue 8: "decision-latency histogram by phase, timeouts, rejections and crashes" — stored per seat
    of each game with its result."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])
    trips = {"setup_claim": counts(b3=9, b4=5), "attack": counts(b0=1, b15=2)}
    result = _with(result, "bob", crashes=2, timeouts=1, round_trips=trips)
    store.record_game(result, replay)
    bob_seat = next(s for s in store.game("g1").seats if s.name == "bob")
    assert (bob_seat.crashes, bob_seat.timeouts) == (2, 1)
    assert bob_seat.round_trips == trips
    assert list(bob_seat.round_trips) == ["setup_claim", "attack"], "phases in the engine's order"
    assert all(s.round_trips == {} and s.crashes == 0 for s in store.game("g1").seats if s.name != "bob")


def test_a_bots_figures_are_summed_over_its_games_per_queue(store: Store) -> None:
    """Issue 8: the Bot page's "decision-latency histogram by phase, timeouts, rejections and crashes":
    the store sums every recorded game of the bot, of one queue or of all."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    first, replay1 = play("g1", [alice, bob, carol])
    first = _with(
        first,
        "alice",
        timeouts=1,
        rejections=2,
        crashes=1,
        round_trips={"attack": counts(b2=3), "reinforce": counts(b5=1)},
    )
    store.record_game(first, replay1)
    second, replay2 = play("g2", [bob, alice, carol])
    second = _with(
        second,
        "alice",
        timeouts=2,
        crashes=1,
        round_trips={"attack": counts(b2=1, b7=4), "fortify": counts(b1=2)},
    )
    store.record_game(second, replay2)
    other, replay3 = play("g3", [alice, carol, bob], queue="classic-other")
    store.record_game(_with(other, "alice", crashes=5, round_trips={"attack": counts(b9=6)}), replay3)

    stats = store.bot_stats("alice", QUEUE)
    assert (stats.games, stats.timeouts, stats.rejections, stats.crashes) == (2, 3, 2, 2)
    assert stats.round_trips == {
        "reinforce": counts(b5=1),
        "attack": counts(b2=4, b7=4),
        "fortify": counts(b1=2),
    }
    assert list(stats.round_trips) == ["reinforce", "attack", "fortify"], "phases in the engine's order"
    everywhere = store.bot_stats("alice")
    assert (everywhere.games, everywhere.crashes) == (3, 7)
    assert everywhere.round_trips["attack"] == counts(b2=4, b7=4, b9=6)
    nothing = store.bot_stats("bob", QUEUE)
    assert (nothing.games, nothing.crashes, nothing.round_trips) == (2, 0, {})
    assert store.bot_stats("alice", "no-such-queue").games == 0
    with pytest.raises(NotFoundError, match="no bot named 'zed'"):
        store.bot_stats("zed")


def test_round_trips_are_written_in_the_games_transaction(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The figures are stored "with the game result in the same transaction": a failed rating step leaves
    no round trips behind."""
    alice, bob, carol = _bots(store, "alice", "bob", "carol")
    result, replay = play("g1", [alice, bob, carol])
    result = _with(result, "carol", crashes=1, round_trips={"attack": counts(b4=3)})

    def broken_rate(*_: object) -> None:
        raise RuntimeError("rating step failed")

    monkeypatch.setattr(ratings, "rate", broken_rate)
    with pytest.raises(RuntimeError, match="rating step failed"):
        store.record_game(result, replay)
    stats = store.bot_stats("carol")
    assert (stats.games, stats.crashes, stats.round_trips) == (0, 0, {})
    monkeypatch.undo()
    store.record_game(result, replay)
    assert store.bot_stats("carol").round_trips == {"attack": counts(b4=3)}
