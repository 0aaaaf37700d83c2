"""The engine's view of a decision turned into the encoding's inputs (``conquest_sdk.encoding``).

The SDK builds the same inputs from a DecisionRequest (``conquest_sdk.policy``); the two are pinned equal
decision by decision by ``tests/train/test_train_wire_parity.py``.
"""

from __future__ import annotations

from conquest_sdk.encoding import Choices, Decoded, Layout, View, view
from engine import MISSIONS, Action, Board, LegalActions, Objective, Observation, Rules
from engine.actions import ACTION_KINDS
from engine.rules import FortifyMode


def layout_for(rules: Rules, seats: int, board: Board) -> Layout:
    """The encoding of a game of ``rules`` for ``seats`` players on ``board``."""
    return Layout(
        board.neighbours,
        board.card_count,
        seats,
        len(MISSIONS) if rules.objective == Objective.MISSIONS else 0,
        rules.fortify == FortifyMode.CONNECTED,
    )


def view_of(obs: Observation) -> View:
    """``obs`` in the wire's numbers (what ``server.play.wire`` sends for it)."""
    pending = obs.pending_attack or obs.pending_occupy or (-1, -1, 0)
    return view(obs.seat, obs, int(obs.phase) + 1, [int(s) + 1 for s in obs.statuses], pending)


def choices_of(legal: LegalActions) -> Choices:
    """``legal`` with the free moves one per (source, target) pair, as the wire lists them."""
    return Choices(
        legal.claim,
        legal.headquarters,
        legal.place_territories,
        legal.place_min,
        legal.place_max,
        legal.trades,
        legal.attacks,
        legal.defend_max,
        legal.occupy_min,
        legal.occupy_max,
        [(f.source, t, f.max_armies) for f in legal.fortify for t in f.targets],
        legal.can_end,
        legal.army >= 0,
    )


def engine_action(decoded: Decoded) -> Action:
    """The engine's action for a decoded index."""
    kind, fields = decoded
    action: Action = ACTION_KINDS[kind](*fields)
    return action
