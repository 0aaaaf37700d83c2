"""Where a game's randomness comes from: one stream per game, derived from its seed, in two versions.

Every random choice of a game draws from its ``Dice`` in the order the events occur: the roll for the first
player (``die``), the mission deal, the territory deal and the card deck (``shuffle``), and each battle
(``battle``). The derivations, exactly, with test vectors: ``docs/protocol.md``, "Randomness: how every
roll and shuffle is derived".

- Version 2 (``DiceV2``, the default): a counter-mode SHA-256 stream; word i is the big-endian uint32 at
  bytes 4*(i mod 8) of SHA-256(be64(seed) || be64(i div 8)); ``uniform(n)`` rejects words at or above the
  largest multiple of n that fits in 2**32; shuffles are Fisher-Yates from the back. Any language's
  standard library can re-derive it.
- Version 1 (``DiceV1``): CPython's ``random.Random(seed)``, as every game recorded before version 2 was
  played; kept so those replays still verify.
"""

from __future__ import annotations

import hashlib
import random
import struct
from typing import Final

DICE_VERSION: Final = 2
"""The version new games use."""
DICE_VERSIONS: Final = (1, 2)
FIVE_DICE: Final = 6**5
"""A battle draws one number in 0..7775: five base-6 digits, three for the attacker and two for the
defender."""
_SPAN: Final = 1 << 32
_BLOCK = struct.Struct(">QQ")
_WORDS = struct.Struct(">8I")
_SHA256 = hashlib.sha256
_LIMIT_6: Final = _SPAN - _SPAN % 6
_LIMIT_FIVE_DICE: Final = _SPAN - _SPAN % FIVE_DICE


class Dice:
    """The interface both versions answer (and that engine code draws through)."""

    version: int
    """1 or 2: which derivation (recorded in replays and GameStarted)."""

    def battle(self) -> int:
        """A battle's five dice as one number uniform in 0..7775 (die i = k // 6**i % 6 + 1)."""
        raise NotImplementedError

    def die(self) -> int:
        """One die, 1..6 (the roll for the first player)."""
        raise NotImplementedError

    def shuffle(self, items: list[int]) -> None:
        """Shuffle ``items`` in place."""
        raise NotImplementedError

    def copy(self) -> Dice:
        """An independent stream at the same position."""
        raise NotImplementedError

    def position(self) -> str:
        """Where the stream is, as text (equal text: equal future draws; fingerprints include it)."""
        raise NotImplementedError


class DiceV2(Dice):
    """Version 2: the SHA-256 counter stream."""

    def __init__(self, seed: int) -> None:
        self.version = 2
        if not 0 <= seed < 1 << 64:
            raise ValueError(f"a dice version 2 seed is a whole number in 0..2**64-1, not {seed}")
        self.seed = seed
        self.block = 0
        """The next block to hash."""
        self.words: tuple[int, ...] = ()
        self.next = 8
        """Index into ``words`` of the next word (8: hash the next block first)."""

    def word(self) -> int:
        """The next 32-bit word of the stream."""
        if self.next == 8:
            self.words = _WORDS.unpack(_SHA256(_BLOCK.pack(self.seed, self.block)).digest())
            self.block += 1
            self.next = 0
        w: int = self.words[self.next]
        self.next += 1
        return w

    def uniform(self, n: int) -> int:
        """A number uniform in 0..n-1 (1 <= n <= 2**32): words at or above the largest multiple of n that
        fits in 2**32 are dropped, so there is no modulo bias."""
        limit = _SPAN - _SPAN % n
        w = self.word()
        while w >= limit:
            w = self.word()
        return w % n

    def battle(self) -> int:
        w = self.word()
        while w >= _LIMIT_FIVE_DICE:
            w = self.word()
        return w % FIVE_DICE

    def die(self) -> int:
        w = self.word()
        while w >= _LIMIT_6:
            w = self.word()
        return w % 6 + 1

    def shuffle(self, items: list[int]) -> None:
        """Fisher-Yates from the back: for i = len-1 down to 1, swap items[i] with items[uniform(i + 1)]."""
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]

    def copy(self) -> Dice:
        other = DiceV2(self.seed)
        other.block = self.block
        other.words = self.words
        other.next = self.next
        return other

    def position(self) -> str:
        return f"v2:{self.block * 8 + self.next - 8}"


class DiceV1(Dice):
    """Version 1: CPython's Mersenne Twister, drawn exactly as before version 2 existed."""

    def __init__(self, seed: int) -> None:
        self.version = 1
        self.rng = random.Random(seed)

    def battle(self) -> int:
        # 13 bits: 2**13 = 8192 is the smallest power of two holding 6**5 = 7776 outcomes; redrawn above.
        getrandbits = self.rng.getrandbits
        k: int = getrandbits(13)
        while k >= FIVE_DICE:
            k = getrandbits(13)
        return k

    def die(self) -> int:
        return int(self.rng.random() * 6) + 1

    def shuffle(self, items: list[int]) -> None:
        self.rng.shuffle(items)

    def copy(self) -> Dice:
        other = DiceV1(0)
        other.rng.setstate(self.rng.getstate())
        return other

    def position(self) -> str:
        # The digest of the generator's state: what fingerprints recorded before version 2 hold.
        return hashlib.sha256(repr(self.rng.getstate()).encode()).hexdigest()


def make_dice(version: int, seed: int) -> Dice:
    """The stream of dice ``version`` for ``seed``.

    Raises:
        ValueError: an unknown version, or a seed the version does not take.
    """
    if version == 2:
        return DiceV2(seed)
    if version == 1:
        return DiceV1(seed)
    raise ValueError(f"dice version {version!r} does not exist; versions are 1 and 2")
