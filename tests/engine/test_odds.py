"""Exact battle odds (issue 8: "computed exactly from the dice rules ... not by simulation").

Hand-computed values: one roll of 3 vs 2 dice is 2890/7776 (attacker wins both), 2611/7776 (one each),
2275/7776 (defender wins both); 1 vs 1 the attacker wins 15/36 (it must roll strictly higher).
"""

from fractions import Fraction

import pytest

from engine.odds import BattleOdds, BoundedOdds, battle_odds, bounded_battle_odds, float_table, roll_outcomes


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


def test_bounded_odds_are_exact_where_cheap_then_floats_then_an_estimate() -> None:
    """Issue 21: "One unauthenticated GET /api/odds?attackers=10000&defenders=10000 ...: server RSS
    90 → 1,280 MiB in 15 s" — "Each request's cost is bounded (exact odds where they are cheap, a stated
    cap or a cached/closed-form answer beyond)"."""
    assert bounded_battle_odds(20, 20) == BoundedOdds(*_fields(battle_odds(20, 20)), "exact")
    assert bounded_battle_odds(21, 20).method == "table"
    assert bounded_battle_odds(202, 200).method == "estimate"
    largest = bounded_battle_odds(10_000, 10_000)  # the largest the endpoint accepts: O(1)
    assert largest.method == "estimate"
    assert 0.99 < largest.capture <= 1 and 8_000 < largest.attacker_losses < 9_000


def test_lopsided_battles_are_cut_where_the_small_side_cannot_reach() -> None:
    """40 armies to lose against 10,000 (or 10,000 against 40): the table stops at TABLE_CELLS cells; the
    armies past it take no part (the capture is 0 to the last float, the losses those of 40 against
    1,000)."""
    cut = bounded_battle_odds(41, 10_000)
    assert cut.method == "table"
    assert cut.capture < 1e-100 and cut.attacker_losses == pytest.approx(40)
    assert bounded_battle_odds(10_000, 40).capture == pytest.approx(1)


@pytest.mark.parametrize(("attackers", "defenders"), [(20, 21), (30, 14), (14, 30)])
def test_thefloat_table_is_the_exact_table(attackers: int, defenders: int) -> None:
    exact = battle_odds(attackers, defenders)
    floats = bounded_battle_odds(attackers, defenders)
    assert floats.method == "table"
    for got, want in zip(_fields(floats), _fields(exact), strict=True):
        assert got == pytest.approx(float(want), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(
    ("attackers", "defenders", "stop_at"),
    [(202, 200, 1), (200, 202, 1), (300, 134, 1), (135, 300, 1), (1000, 41, 1), (42, 980, 1), (250, 250, 50)],
)
def test_the_estimate_is_close_to_the_table_where_it_starts(
    attackers: int, defenders: int, stop_at: int
) -> None:
    """docs/dashboard.md: beyond the table the capture probability is within 0.01 and the expected losses
    within 3 % of the full table's (checked here where the estimate takes over, its worst place)."""
    table = float_table(attackers, defenders, stop_at)
    estimate = bounded_battle_odds(attackers, defenders, stop_at)
    assert estimate.method == "estimate"
    assert estimate.capture == pytest.approx(table[0], abs=0.01)
    assert estimate.attacker_losses == pytest.approx(table[1], rel=0.03)
    assert estimate.defender_losses == pytest.approx(table[2], rel=0.03)


def _fields(odds: BattleOdds | BoundedOdds) -> tuple[Fraction | float, ...]:
    return (odds.capture, odds.attacker_losses, odds.defender_losses)
