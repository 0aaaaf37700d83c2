"""Exact battle odds for bots: one roll's outcome by enumerating every face, and the chance of taking a
territory by rolling on, with 6-sided dice (classic) and RISK 2210 A.D.'s 8-sided ones.

The dice rules are the same in both games: the attacker rolls up to 3 dice, the defender up to 2, the
highest dice are compared pair by pair and a tie goes to the defender. In 2210 a commander rolls an
8-sided die in place of a 6-sided one (``Legal2210.d8`` names the attacker's), and the defender rolls
8-sided dice for its commanders, or all of them under a Space Station (docs/rules.md).

    from conquest_sdk.odds import capture_odds
    capture_odds(5, 3)                              # 5 units that may die against 3: about 0.77
    capture_odds(5, 3, attack_d8=1, defend_d8=2)    # a Land Commander attacking a Space Station
"""

from __future__ import annotations

from functools import cache
from itertools import product
from math import prod

TABLE = 128
"""Capture odds are tabulated up to this many units a side; beyond, both sides are scaled down together."""


@cache
def roll_odds(attack: tuple[int, ...], defend: tuple[int, ...]) -> dict[tuple[int, int], float]:
    """P(attacker losses, defender losses) for one roll, by enumerating every face: ``attack`` and
    ``defend`` list each die's sides (6 or 8), e.g. ``roll_odds((8, 6, 6), (6, 6))``."""
    odds: dict[tuple[int, int], float] = {}
    dice = len(attack)
    total = prod(attack + defend)
    for faces in product(*(range(1, sides + 1) for sides in attack + defend)):
        att = sorted(faces[:dice], reverse=True)
        dfn = sorted(faces[dice:], reverse=True)
        lost = [0, 0]
        for a, d in zip(att, dfn, strict=False):
            lost[0 if a <= d else 1] += 1  # ties go to the defender
        key = (lost[0], lost[1])
        odds[key] = odds.get(key, 0.0) + 1 / total
    return odds


def _dice(units: int, most: int, d8: int) -> tuple[int, ...]:
    """The sides of the dice ``units`` units roll: ``most`` dice at most, ``d8`` of them 8-sided."""
    n = min(most, units)
    eights = min(d8, n)
    return (8,) * eights + (6,) * (n - eights)


@cache
def _capture_table(attack_d8: int, defend_d8: int) -> list[list[float]]:
    """[a][d]: P(capture) rolling on with ``a`` units that may die against ``d`` defenders."""
    table = [[1.0] + [0.0] * (TABLE - 1) for _ in range(TABLE)]
    for a in range(1, TABLE):
        for d in range(1, TABLE):
            odds = roll_odds(_dice(a, 3, attack_d8), _dice(d, 2, defend_d8))
            table[a][d] = sum(p * table[a - la][d - ld] for (la, ld), p in odds.items())
    return table


def capture_odds(attackers: int, defenders: int, attack_d8: int = 0, defend_d8: int = 0) -> float:
    """P(capture) rolling the most dice until the target falls or ``attackers`` (the units that may die:
    the source's units less the one that stays) are gone.

    ``attack_d8``: the attacker's 8-sided dice (0..3); ``defend_d8``: the defender's (0..2; 2 under a
    Space Station). Losses are taken as MODs first, so the commanders' 8-sided dice last to the end.
    Beyond ``TABLE`` units both sides are scaled down together, which understates a large stack's edge.
    """
    if defenders <= 0:
        return 1.0
    largest = max(attackers, defenders)
    if largest >= TABLE:
        scale = (TABLE - 1) / largest
        attackers, defenders = int(attackers * scale), max(1, round(defenders * scale))
    return _capture_table(min(3, attack_d8), min(2, defend_d8))[attackers][defenders]
