"""A RISK 2210 A.D. game in the database (issue 19: "rated on the ladder")."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from storage_support import ADMIN

from engine.r2210.game import apply_unchecked, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.replay import Replay2210, rules_to_dict
from engine.r2210.rules import Rules2210
from server.records import GameResult, SeatOutcome, SeatResult
from server.storage import Store

START = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_rated_2210_game_is_recorded_and_moves_ratings(store: Store) -> None:
    """Issue 19: queues 2210-2 ... 2210-5 are "rated on the ladder": a finished 2210 game between two
    registered bots is stored with its 2210 rules and moves both ratings."""
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
    changes = store.record_game(result, replay)
    assert len(changes) == 2
    game = store.game("g2210")
    assert game.rules == rules_to_dict(rules) and game.queue == "2210-2" and game.rated
