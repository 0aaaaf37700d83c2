"""Every random choice of a 2210 game, drawn from one stream: the interface the rest of 2210 calls.

The stream is dice version 2 (``/work/notes/DICE_SPEC.md``, the dice branch's ``docs/protocol.md``):
word i is bytes 4*(i mod 8).. of SHA-256(be64(seed) || be64(i div 8)), consumed in order; ``uniform(n)``
rejects words at or above the largest multiple of n; ``shuffle`` is Fisher-Yates from the back; a roll of
several dice is ONE ``uniform`` of the product of its five slots' faces (slots 0-2 attacker, 3-4 defender,
6 for an unused slot) read as mixed-radix digits. When the dice branch lands, this class becomes a thin
name for its stream; nothing else in 2210 draws.
"""

from __future__ import annotations

import hashlib

_WORD = 1 << 32
SLOTS = 5
"""A battle roll's slots: three attacker dice, then two defender dice."""


class Dice:
    """A seeded stream of 32-bit words and the draws 2210 makes from it."""

    __slots__ = ("_block", "cursor", "seed")

    def __init__(self, seed: int, cursor: int = 0) -> None:
        self.seed = seed % (1 << 64)
        self.cursor = cursor
        """Words consumed so far (a state's snapshot records it)."""
        self._block = (-1, b"")

    def clone(self) -> Dice:
        return Dice(self.seed, self.cursor)

    def word(self) -> int:
        index, block = self._block
        j = self.cursor >> 3
        if index != j:
            block = hashlib.sha256(self.seed.to_bytes(8, "big") + j.to_bytes(8, "big")).digest()
            self._block = (j, block)
        offset = 4 * (self.cursor & 7)
        self.cursor += 1
        return int.from_bytes(block[offset : offset + 4], "big")

    def uniform(self, n: int) -> int:
        """A whole number in [0, n) without modulo bias (1 <= n <= 2^32)."""
        limit = _WORD - (_WORD % n)
        while True:
            x = self.word()
            if x < limit:
                return x % n

    def die(self, faces: int) -> int:
        """One die of ``faces`` sides (a d6 roll-off, a d8), 1..faces."""
        return 1 + self.uniform(faces)

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates from the back, in place."""
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]

    def battle(self, attacker: tuple[int, ...], defender: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """One roll: the faces of each attacker die (1-3) and defender die (1-2), 6 or 8 each.

        Returns each side's dice, highest first.
        """
        sizes = [*attacker, *([6] * (3 - len(attacker))), *defender, *([6] * (2 - len(defender)))]
        total = 1
        for s in sizes:
            total *= s
        k = self.uniform(total)
        values = []
        for s in sizes:
            values.append(k % s + 1)
            k //= s
        a = sorted(values[: len(attacker)], reverse=True)
        d = sorted(values[3 : 3 + len(defender)], reverse=True)
        return a, d
