"""Exact battle odds from the dice rules, by enumeration and dynamic programming (no simulation).

One roll: every face combination of the attacker's and defender's dice is enumerated (at most 6**5),
highest against highest, then second against second, ties to the defender.
A battle: the attacker rolls min(3, armies - 1) dice and the defender min(2, armies) (the ``max`` defence
rule), until the territory falls or the attacker is down to ``stop_at`` armies, exactly as
``Attack(repeat_until=stop_at)`` plays it. Results are Fractions, so they are exact.

A battle's table has one cell per (attacking, defending) armies, and Fractions grow with it: 80 against 80
takes seconds and hundreds of MiB. ``bounded_battle_odds`` keeps every answer cheap: exact Fractions up to
``EXACT_CELLS`` cells, the same table in floats up to ``TABLE_CELLS``, and beyond that a closed-form
estimate (a normal approximation of the 3-against-2 dice walk; within 0.01 of the capture probability
from 100 against 100 up, see tests/engine/test_odds.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import product


def roll_losses(attack: list[int], defence: list[int]) -> tuple[int, int]:
    """(attacker losses, defender losses) of one roll, each side's dice highest first: highest against
    highest, then second against second, ties to the defender (also RISK 2210 A.D.'s 6- and 8-sided dice)."""
    attacker_losses = defender_losses = 0
    for a, d in zip(attack, defence, strict=False):
        if a > d:
            defender_losses += 1
        else:
            attacker_losses += 1
    return attacker_losses, defender_losses


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
        key = roll_losses(attack, defence)
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
    battle_odds_check(attackers, defenders, stop_at)
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


EXACT_CELLS = 400
"""Largest ``attackers * defenders`` whose battle odds are exact Fractions (20 against 20: a few ms)."""
TABLE_CELLS = 40_000
"""Most cells of a battle's table in floats (200 against 200: about 10 ms compiled)."""
LOPSIDED = 40
"""A battle where one side has at most this many armies to lose is cut to TABLE_CELLS cells: the other
side's armies past TABLE_CELLS // LOPSIDED = 1,000 (25 times as many) take no part in it."""


@dataclass(frozen=True, slots=True)
class BoundedOdds:
    capture: float | Fraction
    """Probability that the target falls (a Fraction when ``method`` is "exact")."""
    attacker_losses: float | Fraction
    """Expected armies the attacker loses."""
    defender_losses: float | Fraction
    """Expected armies the defender loses."""
    method: str
    """"exact" (Fractions), "table" (the same dynamic programme in floats) or "estimate" (closed form)."""


def bounded_battle_odds(attackers: int, defenders: int, stop_at: int = 1) -> BoundedOdds:
    """The odds of ``battle_odds`` at a bounded cost (module docstring): exact up to ``EXACT_CELLS``
    cells of its table, floats up to ``TABLE_CELLS`` (a lopsided battle cut to that many), a closed-form
    estimate beyond.

    Raises:
        ValueError: as ``battle_odds``.
    """
    battle_odds_check(attackers, defenders, stop_at)
    losable = attackers - stop_at  # the armies the attacker may lose before it stops
    if attackers * defenders <= EXACT_CELLS:
        exact = battle_odds(attackers, defenders, stop_at)
        return BoundedOdds(exact.capture, exact.attacker_losses, exact.defender_losses, "exact")
    if losable * defenders > TABLE_CELLS and min(losable, defenders) > LOPSIDED:
        return BoundedOdds(*_estimate(losable, defenders), "estimate")
    if losable <= LOPSIDED:  # the defenders past TABLE_CELLS // losable are never reached
        defenders = min(defenders, TABLE_CELLS // losable)
    else:  # the attacker's armies past TABLE_CELLS // defenders are never rolled
        losable = min(losable, TABLE_CELLS // defenders)
    return BoundedOdds(*float_table(stop_at + losable, defenders, stop_at), "table")


def battle_odds_check(attackers: int, defenders: int, stop_at: int) -> None:
    """Raises ValueError unless a battle from ``attackers`` against ``defenders`` to ``stop_at`` can be."""
    if attackers < 2 or defenders < 1 or not 1 <= stop_at < attackers:
        raise ValueError(
            f"a battle needs at least 2 attacking armies, 1 defender and 1 <= stop_at < attackers; "
            f"got attackers={attackers}, defenders={defenders}, stop_at={stop_at}"
        )


def float_table(attackers: int, defenders: int, stop_at: int) -> tuple[float, float, float]:
    """``battle_odds``'s table in floats (about 10**-15 from the exact value): capture, attacker losses,
    defender losses. Its cost grows as ``attackers * defenders``: bounded_battle_odds bounds it."""
    rolls = {
        (a, d): [(la, ld, float(p)) for (la, ld), p in roll_outcomes(a, d).items()]
        for a in (1, 2, 3)
        for d in (1, 2)
    }
    table = [[(1.0, 0.0, 0.0)] + [(0.0, 0.0, 0.0)] * defenders for _ in range(attackers + 1)]
    for a in range(stop_at + 1, attackers + 1):
        row = table[a]
        for d in range(1, defenders + 1):
            capture = lost_a = lost_d = 0.0
            for la, ld, p in rolls[min(3, a - 1), min(2, d)]:
                c, xa, xd = table[a - la][d - ld]
                capture += p * c
                lost_a += p * (la + xa)
                lost_d += p * (ld + xd)
            row[d] = (capture, lost_a, lost_d)
    return table[attackers][defenders]


def _estimate(losable: int, defenders: int) -> tuple[float, float, float]:
    """A large battle as the walk of 3 dice against 2: every roll takes 2 armies, D of them defenders'
    (0, 1 or 2 with the roll's odds), the rest the attacker's. Both sides' losses only grow, so after
    K = (defenders + losable - 1) / 2 rolls exactly one side has reached its limit: the territory falls
    when the defenders lost in K rolls, a sum taken as normal, reach ``defenders``. min(D_K, defenders)
    and min(2K - D_K, losable) bound each side's losses from above; Wald's identity (each roll takes
    E[D] of the defender's and 2 - E[D] of the attacker's) turns the tighter bound into both."""
    outcomes = roll_outcomes(3, 2)
    p1, p2 = float(outcomes[(1, 1)]), float(outcomes[(0, 2)])
    mean = p1 + 2 * p2
    deviation = math.sqrt(p1 + 4 * p2 - mean * mean)
    rolls = (defenders + losable - 1) / 2
    centre, spread = rolls * mean, deviation * math.sqrt(rolls)
    capture = 0.5 * math.erfc((defenders - 0.5 - centre) / spread / math.sqrt(2))
    most_d = _expected_min(centre, spread, defenders)
    most_a = _expected_min(2 * rolls - centre, spread, losable)
    expected_rolls = min(most_d / mean, most_a / (2 - mean))
    return capture, expected_rolls * (2 - mean), expected_rolls * mean


def _expected_min(centre: float, spread: float, cap: float) -> float:
    """E[min(X, cap)] for X normal with mean ``centre`` and standard deviation ``spread``."""
    z = (cap - centre) / spread
    below = 0.5 * math.erfc(-z / math.sqrt(2))
    return cap - (cap - centre) * below - spread * math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
