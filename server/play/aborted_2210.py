"""A RISK 2210 A.D. game live at a crash, rebuilt from its ``.live`` record (``server.play.recorder``):
replayed to its last whole batch of actions, then finished with default actions (as a shutdown ends it),
unrated with the reason ``aborted``."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from engine.r2210.game import apply, apply_unchecked
from engine.r2210.legal import legal_for
from engine.r2210.policies import default_action
from engine.r2210.replay import Replay2210, decode_action, rules_from_dict
from server.play.replays import GameRecord
from server.play.results import aborted_result
from server.play.runner_2210 import outcome_2210


def aborted_record_2210(header: dict[str, Any], batches: list[str], finished_at: datetime) -> GameRecord:
    """The game whose ``.live`` header and action lines (JSON arrays) are given.

    Raises:
        ValueError, KeyError, TypeError, ReplayError: not a readable 2210 record.
    """
    seats = [str(s) for s in header["seats"]]
    replay = Replay2210(
        rules_from_dict(header["rules"]), int(header["seed"]), seats, game_id=str(header["game_id"])
    )
    state, _ = replay.start()
    for line in batches:
        try:
            batch = [decode_action(a) for a in json.loads(line)]
        except (json.JSONDecodeError, ValueError, TypeError):
            break  # the batch the crash cut short
        for seat, action in batch:
            if state.is_over():
                break
            apply(state, action, seat)  # checked: a record that does not replay fails here, not in verify
            replay.actions.append((seat, action))
    while not state.is_over():
        seat = state.asked[0]
        action = default_action(legal_for(state, seat))
        apply_unchecked(state, action, seat)
        replay.actions.append((seat, action))
    replay.places = list(state.places)
    replay.fingerprint = state.fingerprint()
    outcomes = [outcome_2210(state, i, None) for i in range(len(seats))]
    result = aborted_result(header, state.places, outcomes, state.year, finished_at)
    return GameRecord(replay, result)
