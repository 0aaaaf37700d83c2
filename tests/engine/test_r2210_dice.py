"""Every 2210 random choice comes from the game's dice version 2 stream (issue 19: "Draw every random choice
from the documented derivation of the dice issue"; docs/protocol.md, "Randomness", "RISK 2210 A.D. games":
"A 2210 game draws from the same version 2 stream ..., consumed in the order its events occur")."""

from __future__ import annotations

from engine.dice import DiceV2
from engine.r2210.dice import Dice


def test_a_six_sided_battle_is_the_classic_v2_roll() -> None:
    """docs/protocol.md: "k = uniform(7776) (7776 = 6^5), then five dice d[i] = (k div 6^i) mod 6 + 1 ...
    The attacker rolling a dice (1..3) takes d[0..a-1]; the defender rolling b dice (1..2) takes
    d[3..3+b-1]": a 2210 roll without 8-sided dice draws exactly what a classic roll draws."""
    for seed in range(50):
        k = DiceV2(seed).battle()
        d = [(k // 6**i) % 6 + 1 for i in range(5)]
        dice = Dice(seed)
        attacker, defender = dice.battle((6, 6, 6), (6, 6))
        assert attacker == sorted(d[:3], reverse=True) and defender == sorted(d[3:], reverse=True)
        twin = DiceV2(seed)
        twin.battle()
        assert dice.position() == twin.position()


def test_mixed_faces_read_mixed_radix_digits() -> None:
    """docs/protocol.md: "The five slot sizes are s0, s1, s2 = the attacker's faces in that order, padded
    with 6 to three, and s3, s4 = the defender's faces, padded with 6 to two. One draw, k =
    uniform(s0·s1·s2·s3·s4) ..., is read as mixed-radix digits: d[i] = (k div (s0·…·s(i−1))) mod si + 1"."""
    sizes = [8, 6, 6, 8, 6]
    seen_eight = False
    for seed in range(200):
        k = DiceV2(seed).uniform(8 * 6 * 6 * 8 * 6)
        digits, rest = [], k
        for s in sizes:
            digits.append(rest % s + 1)
            rest //= s
        attacker, defender = Dice(seed).battle((8, 6, 6), (8,))
        assert attacker == sorted(digits[:3], reverse=True) and defender == [digits[3]]
        seen_eight = seen_eight or 8 in attacker + defender
    assert seen_eight


def test_dice_shuffles_and_copies_are_the_streams() -> None:
    """docs/protocol.md: "A die of f faces (a d6 or a d8): 1 + uniform(f)"; a deck is "its card ids in
    ascending order ..., shuffled"; a copy continues exactly as the original."""
    dice, stream = Dice(42), DiceV2(42)
    assert [dice.die(8) for _ in range(20)] == [1 + stream.uniform(8) for _ in range(20)]
    deck, expected = list(range(14)), list(range(14))
    dice.shuffle(deck)
    stream.shuffle(expected)
    assert deck == expected
    twin = dice.clone()
    assert [dice.die(6) for _ in range(10)] == [twin.die(6) for _ in range(10)]
