"""Exact battle odds from the dice rules, by enumeration and dynamic programming (no simulation).

One roll: every face combination of the attacker's and defender's dice is enumerated (at most 6**5),
highest against highest, then second against second, ties to the defender.
A battle: the attacker rolls min(3, armies - 1) dice and the defender min(2, armies) (the ``max`` defence
rule), until the territory falls or the attacker is down to ``stop_at`` armies, exactly as
``Attack(repeat_until=stop_at)`` plays it. Results are Fractions, so they are exact.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product


@cache
def roll_outcomes(attacker_dice: int, defender_dice: int) -> dict[tuple[int, int], Fraction]:
    """Probability of each (attacker losses, defender losses) for one roll of the given dice."""
    if not (1 <= attacker_dice <= 3 and 1 <= defender_dice <= 2):
        raise ValueError(
            f"a roll is 1-3 attacker dice against 1-2 defender dice, not {attacker_dice}v{defender_dice}"
        )
    counts: dict[tuple[int, int], int] = {}
    for faces in product(range(1, 7), repeat=attacker_dice + defender_dice):
        attack = sorted(faces[:attacker_dice], reverse=True)
        defence = sorted(faces[attacker_dice:], reverse=True)
        attacker_losses = defender_losses = 0
        for a, d in zip(attack, defence, strict=False):
            if a > d:
                defender_losses += 1
            else:
                attacker_losses += 1
        key = (attacker_losses, defender_losses)
        counts[key] = counts.get(key, 0) + 1
    total = 6 ** (attacker_dice + defender_dice)
    return {k: Fraction(v, total) for k, v in sorted(counts.items())}


@dataclass(frozen=True, slots=True)
class BattleOdds:
    capture: Fraction
    """Probability that the target falls."""
    attacker_losses: Fraction
    """Expected armies the attacker loses."""
    defender_losses: Fraction
    """Expected armies the defender loses."""


def battle_odds(attackers: int, defenders: int, stop_at: int = 1) -> BattleOdds:
    """Exact odds of rolling on from ``attackers`` armies on the source against ``defenders``.

    Raises:
        ValueError: fewer than 2 attacking armies or 1 defender, or ``stop_at`` not below ``attackers``.
    """
    if attackers < 2 or defenders < 1 or not 1 <= stop_at < attackers:
        raise ValueError(
            f"a battle needs at least 2 attacking armies, 1 defender and 1 <= stop_at < attackers; "
            f"got attackers={attackers}, defenders={defenders}, stop_at={stop_at}"
        )
    # table[a][d] = (capture, attacker losses, defender losses) from a source of a armies vs d defenders.
    zero = Fraction(0)
    table: list[list[tuple[Fraction, Fraction, Fraction]]] = [
        [(zero, zero, zero)] * (defenders + 1) for _ in range(attackers + 1)
    ]
    for a in range(attackers + 1):
        table[a][0] = (Fraction(1), zero, zero)
        if a <= stop_at:
            continue
        for d in range(1, defenders + 1):
            capture = lost_a = lost_d = zero
            for (la, ld), p in roll_outcomes(min(3, a - 1), min(2, d)).items():
                c, xa, xd = table[a - la][d - ld]
                capture += p * c
                lost_a += p * (la + xa)
                lost_d += p * (ld + xd)
            table[a][d] = (capture, lost_a, lost_d)
    return BattleOdds(*table[attackers][defenders])
