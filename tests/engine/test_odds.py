"""Exact battle odds (issue 8: "computed exactly from the dice rules ... not by simulation").

Hand-computed values: one roll of 3 vs 2 dice is 2890/7776 (attacker wins both), 2611/7776 (one each),
2275/7776 (defender wins both); 1 vs 1 the attacker wins 15/36 (it must roll strictly higher).
"""

from fractions import Fraction

import pytest

from engine.odds import battle_odds, roll_outcomes


def test_three_against_two_dice() -> None:
    assert roll_outcomes(3, 2) == {
        (0, 2): Fraction(2890, 7776),
        (1, 1): Fraction(2611, 7776),
        (2, 0): Fraction(2275, 7776),
    }


@pytest.mark.parametrize(
    ("attacker", "defender", "attacker_wins"),
    [
        (1, 1, Fraction(15, 36)),
        (2, 1, Fraction(125, 216)),
        (3, 1, Fraction(855, 1296)),
        (1, 2, Fraction(55, 216)),
    ],
)
def test_single_comparison_rolls(attacker: int, defender: int, attacker_wins: Fraction) -> None:
    """ "In case of a tie, the defender always wins." (000) — one comparison: one side loses one army."""
    assert roll_outcomes(attacker, defender) == {(0, 1): attacker_wins, (1, 0): 1 - attacker_wins}


def test_two_against_two_dice() -> None:
    assert roll_outcomes(2, 2) == {
        (0, 2): Fraction(295, 1296),
        (1, 1): Fraction(420, 1296),
        (2, 0): Fraction(581, 1296),
    }


def test_battle_three_armies_against_one() -> None:
    """3 armies roll 2 dice; after a loss the 2 left roll 1 die; the attack stops at 1 army."""
    first = Fraction(125, 216)
    expected = first + (1 - first) * Fraction(15, 36)
    odds = battle_odds(3, 1)
    assert odds.capture == expected
    # Defender loses its one army exactly when captured; attacker loses 1 per lost roll.
    assert odds.defender_losses == expected
    assert odds.attacker_losses == (1 - first) * 1 + (1 - first) * (1 - Fraction(15, 36)) * 1


def test_stop_at_threshold_limits_the_battle() -> None:
    assert battle_odds(10, 5, stop_at=9).capture < battle_odds(10, 5, stop_at=1).capture
    assert battle_odds(2, 1).capture == Fraction(15, 36)


def test_odds_are_probabilities_and_grow_with_attackers() -> None:
    previous = Fraction(0)
    for attackers in range(2, 15):
        odds = battle_odds(attackers, 5)
        assert 0 <= odds.capture <= 1
        assert odds.capture > previous
        previous = odds.capture


def test_bad_battle_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="at least 2 attacking armies"):
        battle_odds(1, 3)
