"""Every 2210 random choice comes from the game's dice version 2 stream (issue 19: "Draw every random choice
from the documented derivation of the dice issue"; docs/protocol.md, "Randomness": "every new random choice
draws from the same stream at the moment its event happens, with uniform(n) and shuffle")."""

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
    """docs/protocol.md: "a roll of several dice draws ONE uniform(product of the faces of its five slots)
    (slots 0-2 attacker, 3-4 defender, each slot's size = the faces of the die rolled in it, 6 for an unused
    slot) and reads mixed-radix digits: d[i] = (k div (s_0*...*s_{i-1})) mod s_i + 1"."""
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
    """docs/protocol.md: a die is "1 + uniform(faces)"; "A new deck is shuffled with shuffle from ascending
    card ids"; a copy continues exactly as the original."""
    dice, stream = Dice(42), DiceV2(42)
    assert [dice.die(8) for _ in range(20)] == [1 + stream.uniform(8) for _ in range(20)]
    deck, expected = list(range(14)), list(range(14))
    dice.shuffle(deck)
    stream.shuffle(expected)
    assert deck == expected
    twin = dice.clone()
    assert [dice.die(6) for _ in range(10)] == [twin.die(6) for _ in range(10)]
