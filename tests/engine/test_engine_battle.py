"""Attacking: who may attack what, how a roll is decided, and moving into a captured territory."""

from __future__ import annotations

import pytest
from engine_table import T, force_dice, position, split_board

from engine import (
    Attack,
    ChooseDefence,
    GameState,
    IllegalActionError,
    Occupy,
    Phase,
    preset,
)
from engine.events import Captured, Occupied, Rolled

# Seat 0 holds the Americas and Iceland, seat 1 Europe, Africa and the Urals, seat 2 the rest of Asia
# and Australia. Iceland (seat 0) borders Great Britain and Scandinavia (seat 1).
OWNERS = split_board(14, 14, 14)
ICELAND, BRITAIN, GREENLAND = T("Iceland"), T("Great Britain"), T("Greenland")


def battle(attacker_armies: int, defender_armies: int, **rules: str) -> GameState:
    """Seat 0 to attack from Iceland (``attacker_armies``) into Great Britain (``defender_armies``)."""
    armies = [3] * 42
    armies[ICELAND], armies[BRITAIN] = attacker_armies, defender_armies
    return position(OWNERS, armies, rules=preset("classic", **rules))


def rolls(events: list[object]) -> list[Rolled]:
    return [e for e in events if isinstance(e, Rolled)]


# The numbers printed in 004's four example drawings number the dice in each picture (attacker's first,
# 1..n in every example); the faces were in the drawings. Each row gives faces that realise the drawing:
# the same dice on each side, the same pairs compared, the printed result.
PRINTED_EXAMPLES = [
    # name, attacker faces, defender faces, (attacker losses, defender losses) as printed
    ("example 1: 3 dice vs 1, defender loses one", (5, 3, 1), (4,), (0, 1)),
    ("example 2: 3 dice vs 2, one each", (6, 3, 1), (5, 4), (1, 1)),
    ("example 3: 3 dice vs 2, attacker loses two", (3, 2, 1), (5, 4), (2, 0)),
    ("example 4: 1 die vs 2, defender loses one", (5,), (4, 2), (0, 1)),
]


@pytest.mark.parametrize(
    ("attacker", "defender", "losses"),
    [r[1:] for r in PRINTED_EXAMPLES],
    ids=[r[0] for r in PRINTED_EXAMPLES],
)
def test_rulebook_dice_examples(
    attacker: tuple[int, ...], defender: tuple[int, ...], losses: tuple[int, int]
) -> None:
    """004: "Compare the highest die each of you rolled. If yours (the attacker's) is higher, the defender
    loses one unit ... If each of you rolled more than one die, you also compare the two next-highest dice"
    (Examples 1-4, page 7)."""
    state = battle(4, 1 if len(defender) == 1 else 3)
    force_dice(state, (attacker, defender))
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, len(attacker))))
    assert roll.attacker_dice == tuple(sorted(attacker, reverse=True))
    assert roll.defender_dice == tuple(sorted(defender, reverse=True))
    assert (roll.attacker_losses, roll.defender_losses) == losses


# The same numbers read as six-sided faces (see docs/rules.md): only example 3's printed result follows.
AS_FACES = [
    ("example 1 read as faces", (1, 2, 3), (4,), (1, 0)),
    ("examples 2 and 3 read as faces", (1, 2, 3), (4, 5), (2, 0)),
    ("example 4 read as faces", (1,), (2, 3), (1, 0)),
]


@pytest.mark.parametrize(
    ("attacker", "defender", "losses"), [r[1:] for r in AS_FACES], ids=[r[0] for r in AS_FACES]
)
def test_printed_numbers_read_as_faces(
    attacker: tuple[int, ...], defender: tuple[int, ...], losses: tuple[int, int]
) -> None:
    """004: "But if the defender's die is higher, then, you lose one unit from the territory you attacked
    from" — what the classic rule gives for 1,2,3 against 4 / 4,5 and 1 against 2,3."""
    state = battle(4, 1 if len(defender) == 1 else 3)
    force_dice(state, (attacker, defender))
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, len(attacker))))
    assert (roll.attacker_losses, roll.defender_losses) == losses


@pytest.mark.parametrize(
    ("attacker", "defender", "losses"),
    [
        ((6,), (6,), (1, 0)),
        ((5, 5), (5, 5), (2, 0)),
        ((6, 4, 1), (6, 3), (1, 1)),
        ((2, 2, 2), (2, 1), (1, 1)),
    ],
)
def test_ties_go_to_the_defender(
    attacker: tuple[int, ...], defender: tuple[int, ...], losses: tuple[int, int]
) -> None:
    """000: "In case of a tie, the defender always wins.\""""
    state = battle(4, 1 if len(defender) == 1 else 3)
    force_dice(state, (attacker, defender))
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, len(attacker))))
    assert (roll.attacker_losses, roll.defender_losses) == losses


def test_attacker_never_loses_more_than_two_on_a_roll() -> None:
    """000: "The attacker can never lose more than 2 armies on a single roll.\""""
    state = battle(10, 5)
    force_dice(state, ((1, 1, 1), (6, 6)))
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, 3)))
    assert (roll.attacker_losses, roll.defender_losses) == (2, 0)
    assert state.armies[ICELAND] == 8


@pytest.mark.parametrize(("defender_armies", "dice"), [(1, 1), (2, 2), (7, 2)])
def test_defender_rolls_the_most_dice_allowed_by_default(defender_armies: int, dice: int) -> None:
    """000: "The defender will roll either 1 or 2 white dice: To roll 2 dice, he or she must have at
    least 2 armies on the territory under attack." (defender_dice='max', the default, rolls all allowed)"""
    state = battle(4, defender_armies)
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, 3)))
    assert len(roll.defender_dice) == dice
    assert len(roll.attacker_dice) == 3


def test_defender_chooses_dice_in_choose_mode() -> None:
    """004: "Before rolling, first you, as the attacker, then your opponent, as the defender, must announce
    the number of dice you intend to roll" (defender_dice='choose')."""
    state = battle(4, 5, defender_dice="choose")
    assert state.apply(Attack(ICELAND, BRITAIN, 3), seat=0) == []
    assert state.phase == Phase.DEFEND
    assert state.to_act == 1
    assert state.legal_actions().defend_max == 2
    with pytest.raises(IllegalActionError, match="between 1 and 2"):
        state.apply(ChooseDefence(3), seat=1)
    (roll,) = rolls(state.apply(ChooseDefence(1), seat=1))
    assert len(roll.defender_dice) == 1
    assert (state.phase, state.to_act) == (Phase.ATTACK, 0)


def test_a_single_defending_army_is_not_asked_in_choose_mode() -> None:
    """000: "To roll 2 dice, he or she must have at least 2 armies" — one army leaves no choice."""
    state = battle(4, 1, defender_dice="choose")
    (roll,) = rolls(state.apply(Attack(ICELAND, BRITAIN, 3)))
    assert len(roll.defender_dice) == 1


def test_attacker_dice_need_one_more_army_than_dice() -> None:
    """000: "You, the attacker, will roll 1,2 or 3 red dice: You must have at least one more army in your
    territory than the number of dice you roll.\""""
    for armies, most in ((2, 1), (3, 2), (4, 3), (9, 3)):
        state = battle(armies, 3)
        option = next(o for o in state.legal_actions().attacks if (o.source, o.target) == (ICELAND, BRITAIN))
        assert option.max_dice == most
        with pytest.raises(IllegalActionError, match=f"dice must be between 1 and {most}"):
            state.apply(Attack(ICELAND, BRITAIN, most + 1))


def test_attack_needs_two_armies_and_an_adjacent_enemy() -> None:
    """000: "You may only attack a territory that's adjacent (touching) to one of your own ... You must
    always have at least two armies in the territory you're attacking from.\""""
    state = battle(1, 3)
    state.armies[GREENLAND] = 5
    attacks = {(o.source, o.target) for o in state.legal_actions().attacks}
    assert all(state.armies[s] >= 2 for s, _ in attacks)
    assert all(state.owner[s] == 0 != state.owner[t] and t in state.board.neighbours[s] for s, t in attacks)
    assert (ICELAND, BRITAIN) not in attacks
    assert (GREENLAND, ICELAND) not in attacks  # own territory
    with pytest.raises(IllegalActionError, match="no attack from"):
        state.apply(Attack(ICELAND, BRITAIN, 1))
    with pytest.raises(IllegalActionError, match="no attack from"):
        state.apply(Attack(GREENLAND, ICELAND, 1))
    with pytest.raises(IllegalActionError, match="no attack from"):
        state.apply(Attack(GREENLAND, T("Scandinavia"), 1))  # not adjacent
    state.armies[ICELAND] = 2
    assert Attack(ICELAND, BRITAIN, 1) in state.legal_actions()


def test_repeat_until_rolls_on_with_fewer_dice_as_the_source_shrinks() -> None:
    """Issue 2: "Let a bot ask for a single roll or for rolling on until the territory falls or its own
    armies drop to a threshold; each roll is still an event with its dice." Each roll uses
    min(dice, armies - 1) dice (000: "at least one more army in your territory than the number of dice")."""
    state = battle(5, 9)
    force_dice(state, ((1, 1, 1), (6, 6)), ((1, 1), (6, 6)))
    events = rolls(state.apply(Attack(ICELAND, BRITAIN, 3, repeat_until=1)))
    assert [len(r.attacker_dice) for r in events] == [3, 2]
    assert state.armies[ICELAND] == 1
    assert state.phase == Phase.ATTACK


def test_single_roll_and_stopping_at_the_threshold() -> None:
    """Issue 2: "a single roll or ... rolling on until the territory falls or its own armies drop to a
    threshold"."""
    state = battle(9, 9)
    force_dice(state, ((1, 1, 1), (6, 6)))
    assert len(rolls(state.apply(Attack(ICELAND, BRITAIN, 3)))) == 1
    force_dice(state, ((1, 1, 1), (6, 6)), ((1, 1, 1), (6, 6)))
    assert len(rolls(state.apply(Attack(ICELAND, BRITAIN, 3, repeat_until=3)))) == 2
    assert state.armies[ICELAND] == 3


@pytest.mark.parametrize("dice", [1, 2, 3])
def test_move_in_at_least_the_dice_rolled_leaving_one_behind(dice: int) -> None:
    """000: "move in at least as many armies as the number of dice you rolled in your last battle ... you
    must always leave at least one army behind on the territory you attacked from.\""""
    state = battle(10, 1)
    force_dice(state, ((6,) * dice, (1,)))
    events = state.apply(Attack(ICELAND, BRITAIN, dice))
    assert any(isinstance(e, Captured) for e in events)
    legal = state.legal_actions()
    assert (state.phase, legal.occupy_min, legal.occupy_max) == (Phase.OCCUPY, dice, 9)
    with pytest.raises(IllegalActionError, match=f"move in between {dice} and 9"):
        state.apply(Occupy(dice - 1))
    with pytest.raises(IllegalActionError, match=f"move in between {dice} and 9"):
        state.apply(Occupy(10))
    assert state.apply(Occupy(9)) == [Occupied(ICELAND, BRITAIN, 9)]
    assert (state.armies[ICELAND], state.armies[BRITAIN], state.owner[BRITAIN]) == (1, 9, 0)
    assert state.phase == Phase.ATTACK


def test_move_in_is_automatic_when_the_minimum_is_the_maximum() -> None:
    """000: "move in at least as many armies as the number of dice you rolled in your last battle" — with
    4 armies and 3 dice, 3 is both the least and the most, so the engine moves them."""
    state = battle(4, 1)
    force_dice(state, ((6, 6, 6), (1,)))
    events = state.apply(Attack(ICELAND, BRITAIN, 3))
    assert Occupied(ICELAND, BRITAIN, 3) in events
    assert state.phase == Phase.ATTACK
    assert (state.armies[ICELAND], state.armies[BRITAIN]) == (1, 3)


def test_move_in_minimum_counts_the_dice_of_the_last_roll() -> None:
    """000: "the number of dice you rolled in your last battle" — after losses shrink the dice to 2, the
    capturing roll's 2 dice set the minimum (and the most that can move)."""
    state = battle(5, 2)
    force_dice(state, ((1, 1, 1), (6, 6)), ((6, 6), (1, 1)))
    events = state.apply(Attack(ICELAND, BRITAIN, 3, repeat_until=1))
    assert [len(r.attacker_dice) for r in rolls(events)] == [3, 2]
    assert Occupied(ICELAND, BRITAIN, 2) in events
    assert (state.armies[ICELAND], state.armies[BRITAIN]) == (1, 2)
