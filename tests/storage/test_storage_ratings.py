"""OpenSkill Plackett-Luce ratings per queue from each game's full ranking; leaderboard by μ − 3σ."""

from __future__ import annotations

import pytest
from storage_support import ADMIN, QUEUE, play

from server.records import INITIAL, Skill
from server.storage import NotFoundError, Store
from server.storage.ratings import rate


def test_tied_places_are_ties() -> None:
    """Brief: "from the engine's full ranking (places; tied places are ties)" — two seats sharing second
    place from equal ratings move equally, and between the winner's gain and the loser's loss."""
    first, second_a, second_b, last = rate([INITIAL] * 4, [1, 2, 2, 4])
    assert second_a == pytest.approx(second_b)
    assert first.mu > second_a.mu > last.mu
    assert all(s.sigma < INITIAL.sigma for s in (first, second_a, last))


def test_every_place_of_the_ranking_counts() -> None:
    """Issue 4: ratings "from the engine's full ranking of every game": second of four gains on third."""
    first, second, third, fourth = rate([INITIAL] * 4, [1, 2, 3, 4])
    assert first.mu > second.mu > third.mu > fourth.mu
    assert second.mu > INITIAL.mu > third.mu


def test_rating_movement_and_leaderboard_after_known_results(store: Store) -> None:
    """Issue 4 test list: "leaderboard order and rating movement after known results"; leaderboard
    "ordered by μ−3σ with games played, wins, average place, timeouts, forfeits"."""
    alice, bob, carol = (store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol"))
    changes = store.record_game(*play("g1", [alice, bob, carol]))
    by_bot = {c.bot: c for c in changes}
    assert by_bot["alice"].after.mu > INITIAL.mu  # the winner goes up
    assert by_bot["carol"].after.mu < INITIAL.mu  # last place goes down
    assert all(c.before == INITIAL and c.game_id == "g1" for c in changes)

    store.record_game(*play("g2", [alice, carol, bob], seed=2))
    store.record_game(*play("g3", [bob, alice, carol], seed=3))
    board = store.leaderboard(QUEUE)
    assert [s.bot for s in board] == ["alice", "bob", "carol"]
    assert [s.rank for s in board] == [1, 2, 3]
    scores = [s.skill.conservative for s in board]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] == pytest.approx(board[0].skill.mu - 3 * board[0].skill.sigma)
    alice_row, bob_row, carol_row = board
    assert (alice_row.games, alice_row.wins, alice_row.average_place) == (3, 2, pytest.approx(4 / 3))
    assert (bob_row.games, bob_row.wins, bob_row.average_place) == (3, 1, pytest.approx(6 / 3))
    assert (carol_row.games, carol_row.wins, carol_row.average_place) == (3, 0, pytest.approx(8 / 3))
    assert store.leaderboard("another-queue") == []
    assert store.queues() == [QUEUE]


def test_ratings_are_kept_per_queue(store: Store) -> None:
    """Issue 4: "OpenSkill (Plackett-Luce) ratings per queue"."""
    alice, bob = (store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob"))
    store.record_game(*play("g1", [alice, bob], queue="duel"))
    store.record_game(*play("g2", [bob, alice], queue="duel-fast"))
    assert [s.bot for s in store.leaderboard("duel")] == ["alice", "bob"]
    assert [s.bot for s in store.leaderboard("duel-fast")] == ["bob", "alice"]
    assert store.queues() == ["duel", "duel-fast"]


def test_rating_history_per_bot(store: Store) -> None:
    """Issue 4: "Rating history per bot" — one change per rated game, each starting where the last ended."""
    alice, bob, carol = (store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol"))
    store.record_game(*play("g1", [alice, bob, carol]))
    store.record_game(*play("g2", [carol, bob, alice], seed=2))
    history = store.rating_history("alice", QUEUE)
    assert [(h.game_id, h.place) for h in history] == [("g1", 1), ("g2", 3)]
    assert history[0].before == INITIAL
    assert history[1].before == history[0].after
    assert history[1].after.mu < history[1].before.mu
    assert Skill(*store.leaderboard(QUEUE)[0].skill) != INITIAL
    assert {s.bot: s.skill for s in store.leaderboard(QUEUE)}["alice"] == history[-1].after
    with pytest.raises(NotFoundError, match="no bot named 'dave'"):
        store.rating_history("dave", QUEUE)


def test_revoked_bots_leave_the_leaderboard_but_keep_their_history(store: Store) -> None:
    """Revocation stops a bot from playing; its games and rating history stay on record."""
    alice, bob, carol = (store.register_bot(n, admin_token=ADMIN).bot for n in ("alice", "bob", "carol"))
    store.record_game(*play("g1", [alice, bob, carol]))
    store.revoke_bot("alice", admin_token=ADMIN)
    assert [s.bot for s in store.leaderboard(QUEUE)] == ["bob", "carol"]
    assert [h.game_id for h in store.rating_history("alice", QUEUE)] == ["g1"]
