"""Every random choice of a 2210 game, drawn from one stream: the interface the rest of 2210 calls.

The stream is dice version 2, ``engine.dice.DiceV2``; ``docs/protocol.md`` ("Randomness: how every roll
and shuffle is derived", "RISK 2210 A.D. games") specifies every draw a 2210 game makes, in order, with
test vectors. This class adds the draws 2210 needs: a die of any size is ``1 + uniform(faces)``, and a
battle roll of 6- and 8-sided dice is ONE ``uniform`` of the product of its five slots' faces (slots 0-2
attacker, 3-4 defender, 6 for an unused slot) read as mixed-radix digits. Nothing else in 2210 draws.
"""

from __future__ import annotations

from typing import Protocol, cast

from engine.dice import DiceV2

SLOTS = 5
"""A battle roll's slots: three attacker dice, then two defender dice."""


class DiceStream(Protocol):
    """What a game draws through: ``Dice``, or a test's stand-in (a compiled state checks an attribute's
    class, so the state holds its dice by this interface)."""

    def clone(self) -> DiceStream: ...

    def position(self) -> str: ...

    def uniform(self, n: int) -> int: ...

    def die(self, faces: int) -> int: ...

    def shuffle(self, items: list[int]) -> None: ...

    def battle(self, attacker: tuple[int, ...], defender: tuple[int, ...]) -> tuple[list[int], list[int]]: ...


class Dice:
    """A game's version 2 stream and the draws 2210 makes from it."""

    __slots__ = ("stream",)

    def __init__(self, seed: int, stream: DiceV2 | None = None) -> None:
        self.stream = DiceV2(seed % (1 << 64)) if stream is None else stream

    def clone(self) -> Dice:
        return Dice(0, cast(DiceV2, self.stream.copy()))

    def position(self) -> str:
        """Where the stream is (equal text: equal future draws; snapshots record it)."""
        return self.stream.position()

    def uniform(self, n: int) -> int:
        """A whole number in [0, n) without modulo bias (1 <= n <= 2^32)."""
        return self.stream.uniform(n)

    def die(self, faces: int) -> int:
        """One die of ``faces`` sides (a d6 roll-off, a d8), 1..faces."""
        return 1 + self.stream.uniform(faces)

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates from the back, in place."""
        self.stream.shuffle(items)

    def battle(self, attacker: tuple[int, ...], defender: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """One roll: the faces of each attacker die (1-3) and defender die (1-2), 6 or 8 each.

        Returns each side's dice, highest first.
        """
        sizes = [*attacker, *([6] * (3 - len(attacker))), *defender, *([6] * (2 - len(defender)))]
        total = 1
        for s in sizes:
            total *= s
        k = self.stream.uniform(total)
        values = []
        for s in sizes:
            values.append(k % s + 1)
            k //= s
        a = sorted(values[: len(attacker)], reverse=True)
        d = sorted(values[3 : 3 + len(defender)], reverse=True)
        return a, d
