"""A RISK 2210 A.D. game in the database (issue 19: "rated on the ladder")."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from storage_support import ADMIN

from engine.r2210.game import apply_unchecked, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.replay import Replay2210, rules_to_dict
from engine.r2210.rules import Rules2210
from server.records import ROUND_TRIP_BUCKETS, GameResult, SeatOutcome, SeatResult
from server.storage import Store
from server.storage.ratings import RatingChange

START = datetime(2026, 1, 1, tzinfo=UTC)


def _record_2210_game(store: Store, round_trips: dict[str, list[int]] | None = None) -> list[RatingChange]:
    """A 1-year 2210-2 game of random play between ares and zeus, recorded rated; the rating changes."""
    bots = [store.register_bot(n, admin_token=ADMIN).bot for n in ("ares", "zeus")]
    rules = Rules2210(years=1)
    state, _ = new_game_2210(rules, 2, 9)
    replay = Replay2210(rules, 9, [b.name for b in bots], game_id="g2210")
    rng = random.Random(9)
    while not state.is_over():
        seat = state.asked[0]
        action = random_action(legal_actions(state, seat), rng)
        apply_unchecked(state, action, seat)
        replay.actions.append((seat, action))
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    seats = [
        SeatResult(
            name=b.name,
            place=state.places[i],
            outcome=SeatOutcome.WON if state.places[i] == 1 else SeatOutcome.SURVIVED,
            bot_id=b.id,
            round_trips=round_trips or {},
        )
        for i, b in enumerate(bots)
    ]
    result = GameResult(
        queue="2210-2",
        seats=seats,
        seed_commitment="c",
        started_at=START,
        finished_at=START + timedelta(minutes=1),
        turns=state.year,
        reason=state.end_reason,
    )
    return store.record_game(result, replay)


def test_a_rated_2210_game_is_recorded_and_moves_ratings(store: Store) -> None:
    """Issue 19: queues 2210-2 ... 2210-5 are "rated on the ladder": a finished 2210 game between two
    registered bots is stored with its 2210 rules and moves both ratings."""
    rules = Rules2210(years=1)
    assert len(_record_2210_game(store)) == 2
    game = store.game("g2210")
    assert game.rules == rules_to_dict(rules) and game.queue == "2210-2" and game.rated


def test_a_2210_games_decision_times_read_back_in_2210_phase_order(store: Store) -> None:
    """Issue 19: the 2210 phases (bids, markers) are recorded as any game's decision times; reading them
    back (a game, the game list the lobby reads at start) orders them as the 2210 engine does. Before,
    a stored 2210 game's "bid" was looked up among classic phases and the server failed to start."""
    bucket = [1] + [0] * len(ROUND_TRIP_BUCKETS)
    _record_2210_game(store, {"occupy": bucket, "bid": bucket, "setup_claim": bucket, "defend": bucket})
    want = ["setup_claim", "bid", "defend", "occupy"]
    assert list(store.game("g2210").seats[0].round_trips) == want
    assert [list(s.round_trips) for s in store.games(queue="2210-2")[0].seats] == [want, want]
