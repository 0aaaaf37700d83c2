"""Before the first turn: the roll for the first player, the deal or the claims, the starting armies, and
Capital Risk's choice of headquarters.

The apply functions here take (state, action, events) like those of ``engine.turns``.
"""

from __future__ import annotations

from engine.actions import ChooseHeadquarters, Claim, Phase, Place
from engine.board import Territory
from engine.dice import Dice
from engine.events import (
    Claimed,
    Dealt,
    Event,
    FirstPlayerRolled,
    HeadquartersChosen,
    HeadquartersRevealed,
    Placed,
)
from engine.rules import SetupMode
from engine.state import UNCLAIMED, GameState
from engine.turns import first_turn

ALLIED_ARMIES_PER_TERRITORY = 2
_NEUTRAL_PILES = SetupMode.NEUTRAL_PILES


def start(state: GameState) -> list[Event]:
    """Roll for the first player, deal the goals, and deal the territories (unless they are claimed)."""
    events: list[Event] = []
    state.first_seat = _roll_for_first(state, events)
    state.to_act = state.first_seat
    if state.goal is not None:
        state.goal.deal(state, events)
    setup = state.rules.setup
    if setup in (SetupMode.CLAIM, SetupMode.ALLIED_CLAIM):
        state.phase = Phase.SETUP_CLAIM
        return events
    owners = deal(state.dice, state.board.size, state.seats, state.first_seat, setup == _NEUTRAL_PILES)
    for t, owner in enumerate(owners):
        _occupy_at_setup(state, t, owner)
    events.append(Dealt(tuple(state.owner)))
    state.phase = Phase.SETUP_PLACE
    if sum(state.setup_left) == 0:
        _start_play(state, events)
    return events


def deal(dice: Dice, territories: int, seats: int, first_seat: int, neutral_piles: bool) -> list[int]:
    """The owner of each territory after a deal: ``territories`` ids shuffled; in a dealt setup the i-th
    goes to seat (first_seat + i) % seats; with neutral piles the first third to seat 0, the second to
    seat 1 and the last to the neutral army (owner ``seats``)."""
    order = list(range(territories))
    dice.shuffle(order)
    owners = [0] * territories
    pile = territories // 3
    for i, t in enumerate(order):
        owners[t] = min(i // pile, seats) if neutral_piles else (first_seat + i) % seats
    return owners


def _roll_for_first(state: GameState, events: list[Event]) -> int:
    rounds, seat = roll_off(state.dice, state.seats)
    events.append(FirstPlayerRolled(rounds, seat))
    return seat


def roll_off(dice: Dice, seats: int) -> tuple[tuple[tuple[int, ...], ...], int]:
    """Everyone rolls one die; the highest starts; a tie for highest rolls again among the tied.

    Returns each round's dice (one per seat, 0 for seats out of the round) and the seat that starts.
    """
    tied = list(range(seats))
    rounds: list[tuple[int, ...]] = []
    while True:
        roll = [0] * seats
        for s in tied:
            roll[s] = dice.die()
        rounds.append(tuple(roll))
        best = max(roll)
        tied = [s for s in tied if roll[s] == best]
        if len(tied) == 1:
            return tuple(rounds), tied[0]


def _occupy_at_setup(state: GameState, t: Territory, owner: int) -> None:
    state.owner[t] = owner
    state.armies[t] = 1
    state.territory_count[owner] += 1
    state.setup_left[owner] -= 1


def _next_setup_placer(state: GameState, after: int) -> int:
    """The next seat in turn order with armies left to place, or -1 when all are placed."""
    for step in range(1, state.seats + 1):
        seat = (after + step) % state.seats
        if state.setup_left[seat] > 0:
            return seat
    return -1


def _start_play(state: GameState, events: list[Event]) -> None:
    """The setup is over: a goal's stage before the first turn (Capital Risk), or the first turn."""
    if state.goal is not None and state.goal.stage(state):
        return
    first_turn(state, events)


def claim(state: GameState, action: Claim, events: list[Event]) -> None:
    t = action.territory
    seat = state.to_act
    _occupy_at_setup(state, t, seat)
    events.append(Claimed(seat, t))
    if sum(state.territory_count) < _territories_to_claim(state):
        state.to_act = (seat + 1) % state.seats
        return
    if state.rules.allied_army:
        _garrison_allied_army(state, events)
    state.phase = Phase.SETUP_PLACE
    nxt = _next_setup_placer(state, seat)
    if nxt < 0:
        _start_play(state, events)
    else:
        state.to_act = nxt


def _territories_to_claim(state: GameState) -> int:
    """All of them; in the Allied Army game a third of the board per player (001: "until each has
    occupied 14 territories")."""
    if state.rules.allied_army:
        return state.seats * (state.board.size // 3)
    return state.board.size


def _garrison_allied_army(state: GameState, events: list[Event]) -> None:
    """001: "Two Allied Armies will be placed on each unoccupied territory"."""
    for t, o in enumerate(state.owner):
        if o == UNCLAIMED:
            _occupy_at_setup(state, t, state.neutral)
            events.append(Claimed(state.neutral, t))
            state.armies[t] += ALLIED_ARMIES_PER_TERRITORY - 1
            events.append(Placed(state.neutral, t, ALLIED_ARMIES_PER_TERRITORY - 1))
    state.setup_left[state.neutral] = 0


def place_starting_armies(state: GameState, p: Place, events: list[Event]) -> None:
    """SETUP_PLACE: one's own starting armies, or (two-player game) the neutral's."""
    seat = state.to_act
    state.armies[p.territory] += p.armies
    target_owner = state.owner[p.territory]
    state.setup_left[target_owner] -= p.armies
    events.append(Placed(target_owner, p.territory, p.armies))
    if state.rules.setup != _NEUTRAL_PILES:
        nxt = _next_setup_placer(state, seat)
    else:
        if target_owner == seat:
            state.setup_step += p.armies
        else:
            state.setup_neutral_done = True
        if state.own_setup_due() or (not state.setup_neutral_done and state.setup_left[state.neutral] > 0):
            return
        state.setup_step = 0
        state.setup_neutral_done = False
        nxt = _next_setup_placer(state, seat)
        if nxt < 0 and state.setup_left[state.neutral] > 0:
            nxt = (seat + 1) % state.seats  # own armies are out; neutral placements still go round
    if nxt < 0:
        _start_play(state, events)
    else:
        state.to_act = nxt


def choose_headquarters(state: GameState, choice: ChooseHeadquarters, events: list[Event]) -> None:
    """000: "After everyone in turn has selected a Headquarters, all players turn their cards face up"."""
    seat = state.to_act
    state.headquarters[seat] = choice.territory
    events.append(HeadquartersChosen(seat, choice.territory))
    nxt = (seat + 1) % state.seats
    if nxt != state.first_seat:
        state.to_act = nxt
        return
    events.append(HeadquartersRevealed(tuple(state.headquarters)))
    first_turn(state, events)
