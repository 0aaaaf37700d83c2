"""Shared helpers for the engine tests: set up a position by hand and force the dice.

Positions start from ``new_game`` and then overwrite the flat arrays, so every test states the
board it needs in a few lines; ``start_turn`` reaches a turn through the engine's own turn start.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Sequence

from engine import CLASSIC, CardDesign, EndPhase, GameState, Phase, PlayerStatus, Rules, new_game, preset
from engine.dice import DiceV1
from engine.events import Event

T = CLASSIC.territory_id
"""A territory id by name, e.g. ``T("Alaska")``."""

WILDS = (42, 43)


def cards_of(design: CardDesign) -> list[int]:
    """The ids of the territory cards showing ``design``, lowest first."""
    return [c for c in range(CLASSIC.size) if CLASSIC.card_design(c) == design]


INFANTRY, CAVALRY, ARTILLERY = (
    cards_of(d) for d in (CardDesign.INFANTRY, CardDesign.CAVALRY, CardDesign.ARTILLERY)
)


def position(
    owners: Sequence[int],
    armies: Sequence[int] | int = 1,
    *,
    rules: Rules | None = None,
    seats: int = 3,
    hands: Sequence[Sequence[int]] = (),
    phase: Phase = Phase.ATTACK,
    seat: int = 0,
    turn: int = 1,
    eliminated: Sequence[int] = (),
    seed: int = 0,
) -> GameState:
    """A game in ``phase`` on ``seat``'s turn with the given owner and armies of every territory.

    The cards not in ``hands`` form the draw pile (in id order), so the 44 cards stay accounted for.
    Seats listed in ``eliminated`` are out, in that order.
    """
    state, _ = new_game(rules or preset("classic"), seats=seats, seed=seed)
    assert len(owners) == CLASSIC.size
    state.owner = list(owners)
    state.armies = [armies] * CLASSIC.size if isinstance(armies, int) else list(armies)
    state.territory_count = [state.owner.count(o) for o in range(len(state.territory_count))]
    state.setup_left = [0] * len(state.setup_left)
    state.hands = [list(h) for h in hands] + [[] for _ in range(seats - len(hands))]
    held = {c for h in state.hands for c in h}
    state.deck = deque(c for c in range(CLASSIC.card_count) if c not in held)
    for s in eliminated:
        state.status[s] = PlayerStatus.ELIMINATED
    state.eliminated = list(eliminated)
    state.phase = phase
    state.turn = turn
    state.turn_seat = state.to_act = state.first_seat = seat
    return state


def split_board(*counts: int) -> list[int]:
    """Owners for the board with seat 0 holding the first ``counts[0]`` territory ids, seat 1 the next..."""
    owners = [o for o, n in enumerate(counts) for _ in range(n)]
    assert len(owners) == CLASSIC.size, f"counts must add up to {CLASSIC.size}"
    return owners


def start_turn(state: GameState, seat: int) -> list[Event]:
    """Start ``seat``'s turn the way the engine does: the seat before it ends its turn in FORTIFY."""
    before = (seat - 1) % state.seats
    state.phase = Phase.FORTIFY
    state.turn_seat = state.to_act = before
    events = state.apply(EndPhase(), seat=before)
    assert state.turn_seat == seat and state.phase == Phase.REINFORCE
    return events


Roll = tuple[tuple[int, ...], tuple[int, ...]]
"""One roll's faces: (attacker's dice, defender's dice)."""


class ScriptedDice(random.Random):
    """A generator whose next draws are fixed rolls, encoded the way ``engine.combat.roll_dice`` decodes
    them: one draw k per roll, attacker die i in base-6 digit i, defender die j in digit 3 + j (read by
    ``DiceV1.battle`` through ``getrandbits``)."""

    def __init__(self, rolls: Iterable[Roll]) -> None:
        super().__init__(0)
        self.draws = deque(
            sum((f - 1) * 6**i for i, f in enumerate(attacker))
            + sum((f - 1) * 6 ** (3 + j) for j, f in enumerate(defender))
            for attacker, defender in rolls
        )

    def getrandbits(self, k: int, /) -> int:
        if not self.draws:
            raise AssertionError("the engine rolled more often than the test scripted")
        return self.draws.popleft()


def force_dice(state: GameState, *rolls: Roll) -> None:
    """Make the state's next attack rolls show these faces, in order."""
    dice = DiceV1(0)
    dice.rng = ScriptedDice(rolls)
    state.dice = dice
