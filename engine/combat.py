"""Attacks: the dice, captures, eliminations and the move-in that follows a capture.

The apply functions here take (state, action, events) like those of ``engine.turns``.
"""

from __future__ import annotations

from engine.actions import Attack, ChooseDefence, Occupy, Phase, PlayerStatus
from engine.board import Territory
from engine.dice import Dice
from engine.events import Captured, CardsTaken, Eliminated, Event, Occupied, Rolled
from engine.rules import DefenderDice
from engine.state import GameState, Termination
from engine.turns import finish, opponent


def _sorted_dice(count: int, encoded: int) -> tuple[int, ...]:
    """The first ``count`` base-6 digits of ``encoded`` as die faces 1..6, highest first."""
    return tuple(sorted((encoded // 6**i % 6 + 1 for i in range(count)), reverse=True))


_ATTACKER_DICE = [[_sorted_dice(n, v) for v in range(6**3)] for n in range(4)]
"""[dice][digits 0..2 of the draw]: the attacker's faces, highest first."""
_DEFENDER_DICE = [[_sorted_dice(n, v) for v in range(6**2)] for n in range(3)]
"""[dice][digits 3..4 of the draw]: the defender's faces, highest first."""


def roll_dice(dice: Dice, attacker: int, defender: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """One roll of ``attacker`` (1..3) and ``defender`` (1..2) dice, each sorted highest first.

    The roll takes one number k uniform in 0..7775 (= 6**5 - 1) from the game's dice (``Dice.battle``).
    Written in base 6 as five digits, die i = (k // 6**i) % 6 + 1 for i = 0..4: dice 0, 1, 2 are the
    attacker's, dice 3, 4 the defender's; an attacker rolling fewer than 3 dice takes dice 0..attacker-1,
    a defender rolling 1 takes die 3, and the other digits are discarded. As k is uniform over all 6**5
    outcomes, the five dice are independent and each uniform on 1..6 (docs/protocol.md, "Randomness").
    """
    k = dice.battle()
    return _ATTACKER_DICE[attacker][k % 216], _DEFENDER_DICE[defender][k // 216]


# Members looked up once: enum member access is slow on Python 3.11 (see ``engine.turns``).
_REINFORCE, _DEFEND, _OCCUPY = Phase.REINFORCE, Phase.DEFEND, Phase.OCCUPY
_ALIVE = PlayerStatus.ALIVE
_CHOOSE_DEFENCE = DefenderDice.CHOOSE


def attack(state: GameState, action: Attack, events: list[Event]) -> None:
    state.pending_attack = action
    state.attacker = state.to_act
    _roll_on(state, None, events)


def defend(state: GameState, choice: ChooseDefence, events: list[Event]) -> None:
    _roll_on(state, choice.dice, events)


def _roll_on(state: GameState, defence_dice: int | None, events: list[Event]) -> None:
    """Roll the pending attack until it stops: one roll, a capture, the threshold, or a defence choice."""
    action = state.pending_attack
    assert action is not None
    src, dst = action.source, action.target
    armies = state.armies
    dice = state.dice
    choose = state.rules.defender_dice == _CHOOSE_DEFENCE
    while True:
        if choose and defence_dice is None and armies[dst] > 1:
            state.phase = _DEFEND
            defender = state.owner[dst]
            state.to_act = defender if defender != state.neutral else opponent(state)
            return
        a = action.dice if action.dice < armies[src] else armies[src] - 1
        d = defence_dice or (2 if armies[dst] > 1 else 1)
        defence_dice = None
        att, dfn = roll_dice(dice, a, d)
        # Highest against highest, then second against second; ties go to the defender.
        att_loss = def_loss = 0
        if att[0] > dfn[0]:
            def_loss = 1
        else:
            att_loss = 1
        if a > 1 and d > 1:
            if att[1] > dfn[1]:
                def_loss += 1
            else:
                att_loss += 1
        armies[src] -= att_loss
        armies[dst] -= def_loss
        events.append(Rolled(src, dst, att, dfn, att_loss, def_loss))
        if not armies[dst]:
            state.pending_attack = None
            _capture(state, src, dst, a, events)
            return
        if not action.repeat_until or armies[src] <= action.repeat_until:
            break
    state.pending_attack = None
    state.phase = state.attack_phase
    state.to_act = state.attacker


def _capture(state: GameState, src: Territory, dst: Territory, dice: int, events: list[Event]) -> None:
    seat = state.owner[src]  # the Allied Army's, when its commander attacks
    loser = state.owner[dst]
    state.owner[dst] = seat
    state.territory_count[loser] -= 1
    state.territory_count[seat] += 1
    if seat == state.turn_seat:
        state.captured_this_turn = True
    state.to_act = state.attacker
    events.append(Captured(seat, src, dst, loser))
    eliminated = False
    if not state.territory_count[loser] and loser != state.neutral:
        eliminated = True
        state.status[loser] = PlayerStatus.ELIMINATED
        state.eliminated.append(loser)
        state.eliminated_by[loser] = seat
        # 001: "Allied forces do not pick up RISK cards": an Allied capture leaves them with the loser.
        taken: list[int] = []
        if seat != state.neutral:
            taken = state.hands[loser]
            state.hands[loser] = []
            state.hands[seat].extend(taken)
        events.append(Eliminated(loser, seat, len(taken)))
        if taken:
            events.append(CardsTaken(seat, tuple(taken)))
    most = state.armies[src] - 1
    if dice >= most or (eliminated and _alive_count(state) == 1):
        _move_in(state, src, dst, min(dice, most), eliminated, events)
    else:
        state.pending_occupy = (src, dst, dice, eliminated)
        state.phase = _OCCUPY


def _alive_count(state: GameState) -> int:
    return state.status.count(_ALIVE)


def occupy(state: GameState, action: Occupy, events: list[Event]) -> None:
    assert state.pending_occupy is not None
    src, dst, _, eliminated = state.pending_occupy
    state.pending_occupy = None
    _move_in(state, src, dst, action.armies, eliminated, events)


def _move_in(
    state: GameState, src: Territory, dst: Territory, count: int, eliminated: bool, events: list[Event]
) -> None:
    state.armies[src] -= count
    state.armies[dst] += count
    events.append(Occupied(src, dst, count))
    if eliminated and _alive_count(state) == 1:
        finish(state, Termination.CONQUEST, events)
        return
    seat = state.turn_seat
    if eliminated and state.owner[dst] == seat and len(state.hands[seat]) >= state.rules.elimination_trade_at:
        state.phase = _REINFORCE
        state.elimination_trade = True
        state.placed_this_turn = False  # 001's extra trades are allowed until the first placement
        state.reinforcements = 0
    else:
        state.phase = state.attack_phase
