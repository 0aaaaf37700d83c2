"""Who plays whom in a queue: rating-aware, starvation-free table picking and seat rotation (pure).

No clock, no I/O: the matchmaker passes in the waiting bots (with their ratings and when they began to
wait), the time now, and the queue's ``PairingHistory``. docs/matchmaking.md explains the algorithm:

1. **Seed.** Ready bots are tried as the table's seed in order of fewest games among the queue's last
   ``memory`` games, then longest wait, then key.
2. **Opponents near its rating.** The seed accepts opponents whose μ is within ``window(wait)`` of its
   own, a window that widens with the seed's wait; the closest are taken first (then the longest waiting).
3. **Pair cap.** No two bots of a table may have met ``pair_cap`` times among the queue's last ``memory``
   games, unless the seed has waited ``cap_yield_s`` or the queue has no other bots to offer.
4. **Rotated seats.** The table's seat order minimises how often each bot has already played each seat.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from server.records import Skill

DEFAULT_MEMORY = 100


@dataclass(frozen=True, slots=True)
class MatchPolicy:
    """The matchmaking knobs; the defaults are the ladder's."""

    window: float = 5.0
    """Largest μ difference between the seed and an opponent when the seed starts waiting, in μ points."""
    widen_per_s: float = 1.0
    """How fast that window widens while the seed waits, in μ points per second."""
    pair_cap: int = 3
    """Most games two bots may have played together among the queue's last ``memory`` games (0: no cap)."""
    cap_yield_s: float = 60.0
    """A seed that has waited this long (seconds) may break the pair cap rather than wait on."""
    memory: int = DEFAULT_MEMORY
    """Games of the queue remembered for the pair cap, the seed order and seat rotation."""


LADDER = MatchPolicy()


@dataclass(frozen=True, slots=True)
class Waiting:
    """A bot with a free game slot in the queue."""

    key: str
    """The bot's stable identity (``Identity.key``): pair and seat history are kept per key."""
    skill: Skill
    """Its rating in the queue (the default μ/σ for an unrated or unregistered bot)."""
    since: float
    """When it joined the queue or was last seated from it, in seconds on the caller's clock."""


@dataclass
class PairingHistory:
    """The queue's last ``memory`` tables (keys in seat order), and every key's seat counts."""

    memory: int = DEFAULT_MEMORY
    tables: deque[tuple[str, ...]] = field(default_factory=deque)
    seats: dict[str, Counter[int]] = field(default_factory=dict)
    """key -> seat index -> games played in that seat (all games seen, not only the remembered ones)."""
    _pairs: Counter[frozenset[str]] = field(default_factory=Counter)
    _games: Counter[str] = field(default_factory=Counter)

    def record(self, table: Sequence[str]) -> None:
        """A game seated with these keys in seat order."""
        self.tables.append(tuple(table))
        self._count(table, 1)
        for index, key in enumerate(table):
            self.seats.setdefault(key, Counter())[index] += 1
        if len(self.tables) > self.memory:
            self._count(self.tables.popleft(), -1)

    def _count(self, table: Sequence[str], step: int) -> None:
        for key in table:
            self._games[key] += step
        for pair in itertools.combinations(table, 2):
            self._pairs[frozenset(pair)] += step

    def met(self, a: str, b: str) -> int:
        """Games ``a`` and ``b`` played together among the remembered ones."""
        return self._pairs[frozenset((a, b))]

    def recent_games(self, key: str) -> int:
        return self._games[key]


def window(policy: MatchPolicy, waited_s: float) -> float:
    """The μ window of a seed that has waited ``waited_s`` seconds."""
    return policy.window + policy.widen_per_s * max(0.0, waited_s)


def pick_table(
    ready: Sequence[Waiting],
    players: int,
    now: float,
    history: PairingHistory,
    policy: MatchPolicy,
    members: int,
    rng: random.Random,
) -> list[Waiting] | None:
    """The next table of ``players`` bots from ``ready``, in seat order, or None if none can be formed now.

    ``members`` is how many bots belong to the queue (ready or busy): when no more than ``players``, no
    other table could ever be formed, so the pair cap does not make them wait.
    """
    distinct: dict[str, Waiting] = {}
    for waiting in sorted(ready, key=lambda w: w.since):  # one seat per bot, even with two sessions
        distinct.setdefault(waiting.key, waiting)
    ready = list(distinct.values())
    if len(ready) < players:
        return None
    seeds = sorted(ready, key=lambda w: (history.recent_games(w.key), w.since, w.key))
    for seed in seeds:
        table = _table_for(seed, ready, players, now, history, policy, members)
        if table is not None:
            return rotate_seats(table, history, rng)
    return None


def _table_for(
    seed: Waiting,
    ready: Sequence[Waiting],
    players: int,
    now: float,
    history: PairingHistory,
    policy: MatchPolicy,
    members: int,
) -> list[Waiting] | None:
    waited = now - seed.since
    reach = window(policy, waited)
    near = sorted(
        (w for w in ready if w is not seed and abs(w.skill.mu - seed.skill.mu) <= reach),
        key=lambda w: (abs(w.skill.mu - seed.skill.mu), w.since, w.key),
    )
    if len(near) < players - 1:
        return None
    capped = policy.pair_cap > 0 and members > players and waited < policy.cap_yield_s
    table = [seed]
    for candidate in near:
        if not capped or all(history.met(candidate.key, t.key) < policy.pair_cap for t in table):
            table.append(candidate)
            if len(table) == players:
                return table
    if capped:
        return None
    # The cap yields (long wait, or nobody else to play): the table that repeats pairings least.
    table = [seed]
    for _ in range(players - 1):
        rest = [w for w in near if all(w is not t for t in table)]
        table.append(min(rest, key=lambda w: sum(history.met(w.key, t.key) for t in table)))
    return table


def rotate_seats(table: Sequence[Waiting], history: PairingHistory, rng: random.Random) -> list[Waiting]:
    """``table`` in the seat order of ``seat_order``."""
    by_key = {w.key: w for w in table}
    return [by_key[key] for key in seat_order([w.key for w in table], history.seats, rng)]


def seat_order(keys: Sequence[str], seats: Mapping[str, Counter[int]], rng: random.Random) -> list[str]:
    """``keys`` in the seat order whose bots have played their seats least so far (``seats``: key -> seat
    index -> games in it; the order minimising the summed counts); ties are broken at random, so equal
    histories still get a random order. One draw from ``rng`` (the server's is the system's, a system
    call a draw: shuffling 720 orders of six bots cost 719 of them)."""
    counts = [seats.get(key) or Counter() for key in keys]
    used = {
        order: sum(counts[k][seat] for seat, k in enumerate(order))
        for order in itertools.permutations(range(len(keys)))
    }
    least = min(used.values())
    best = rng.choice([order for order, n in used.items() if n == least])
    return [keys[k] for k in best]
