"""Rating-aware matchmaking (server/play/pairing.py), simulated with a fake clock: issue 4, "a seed bot chosen
by
fewest recent games / longest wait so no bot starves, opponents near its rating with the window widening
as it waits, a cap on repeated pairings, rotated seats"; "matchmaker fairness (no starvation over many
rounds, pair cap respected)"."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from dataclasses import dataclass, field

from server.play.matchmaker import Matchmaker
from server.play.pairing import MatchPolicy, PairingHistory, Waiting, pick_table, seat_order, window
from server.records import Identity, Skill


@dataclass
class SimBot:
    key: str
    mu: float
    capacity: int
    since: float = 0.0
    """When it joined or was last seated (what the matchmaker passes as Waiting.since)."""
    playing: int = 0
    ready_at: float | None = 0.0
    """When it last got a free slot while it had none waiting (None while seated in all its slots)."""
    games: int = 0
    longest_wait: float = 0.0
    """The longest it waited for a game with a free slot, in seconds (open waits included by ``run``)."""


@dataclass
class Simulation:
    bots: list[SimBot]
    players: int
    policy: MatchPolicy
    rng: random.Random
    history: PairingHistory = field(init=False)
    running: list[tuple[float, list[SimBot]]] = field(default_factory=list)
    tables: list[list[str]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.history = PairingHistory(self.policy.memory)

    def run(self, seconds: int) -> None:
        for now in range(seconds):
            for ends, table in [g for g in self.running if g[0] <= now]:
                self.running.remove((ends, table))
                for bot in table:
                    bot.playing -= 1
                    if bot.ready_at is None:
                        bot.ready_at = now
            while True:
                ready = [b for b in self.bots if b.playing < b.capacity]
                waiting = [Waiting(b.key, Skill(b.mu, 8.0), b.since) for b in ready]
                picked = pick_table(
                    waiting, self.players, now, self.history, self.policy, len(self.bots), self.rng
                )
                if picked is None:
                    break
                by_key = {b.key: b for b in ready}
                table = [by_key[w.key] for w in picked]
                self.history.record([b.key for b in table])
                self.tables.append([b.key for b in table])
                for bot in table:
                    assert bot.ready_at is not None
                    bot.longest_wait = max(bot.longest_wait, now - bot.ready_at)
                    bot.since = now
                    bot.games += 1
                    bot.playing += 1
                    bot.ready_at = now if bot.playing < bot.capacity else None
                self.running.append((now + self.rng.randint(20, 120), table))
        for bot in self.bots:  # a wait still open at the end counts too
            if bot.ready_at is not None:
                bot.longest_wait = max(bot.longest_wait, seconds - bot.ready_at)


def population(count: int, rng: random.Random) -> list[SimBot]:
    """Bots spread over 30 μ points (far more than the initial window) with capacities 1 to 4."""
    return [SimBot(f"bot-{i}", 10 + 30 * i / (count - 1), rng.randint(1, 4)) for i in range(count)]


def test_no_bot_starves_over_many_rounds() -> None:
    """Issue 4: "a seed bot chosen by fewest recent games / longest wait so no bot starves" and
    "matchmaker fairness (no starvation over many rounds)": 30 bots of very different ratings and
    capacities, 4-player tables, two simulated hours: every bot's wait for a game stays under the time its
    window needs to cover the whole rating spread (plus a game's length of slack), and every bot plays."""
    rng = random.Random(7)
    policy = MatchPolicy()
    bots = population(30, rng)
    simulation = Simulation(bots, 4, policy, rng)
    simulation.run(7200)
    spread = max(b.mu for b in bots) - min(b.mu for b in bots)
    covered_after = (spread - policy.window) / policy.widen_per_s  # 25 s for these bots
    bound = covered_after + policy.cap_yield_s + 120
    assert max(b.longest_wait for b in bots) <= bound, sorted((b.longest_wait, b.key) for b in bots)[-3:]
    games_per_slot = [b.games / b.capacity for b in bots]
    assert min(games_per_slot) >= 0.5 * max(games_per_slot), games_per_slot


def test_the_extreme_bots_starve_without_the_widening_window() -> None:
    """The same population with a window that never widens (a plain nearest-rating matcher) leaves the
    outliers waiting far longer: the widening is what bounds the wait in the test above."""
    rng = random.Random(7)
    bots = population(30, rng)
    Simulation(bots, 4, MatchPolicy(window=1.0, widen_per_s=0.0, pair_cap=0), rng).run(7200)
    widening = population(30, random.Random(7))
    Simulation(widening, 4, MatchPolicy(window=1.0, pair_cap=0), random.Random(7)).run(7200)
    assert max(b.longest_wait for b in bots) > 4 * max(b.longest_wait for b in widening)


def test_pair_cap_is_respected_while_other_opponents_exist() -> None:
    """Issue 4: "a cap on repeated pairings" / "pair cap respected": 12 bots in a 2-player queue play for
    two simulated hours; in every stretch of ``memory`` consecutive games no pair meets more than
    ``pair_cap`` times."""
    rng = random.Random(3)
    policy = MatchPolicy(pair_cap=2, memory=30, cap_yield_s=math.inf)
    bots = population(12, rng)
    simulation = Simulation(bots, 2, policy, rng)
    simulation.run(7200)
    tables = simulation.tables
    assert len(tables) > 300
    for start in range(len(tables) - policy.memory + 1):
        met = Counter(frozenset(t) for t in tables[start : start + policy.memory])
        assert max(met.values()) <= policy.pair_cap
    assert min(b.games for b in bots) > 0


def test_the_cap_yields_when_the_queue_has_no_one_else() -> None:
    """docs/matchmaking.md: when the queue has no more members than a table has seats, the cap does not
    make them wait (two bots in a 2-player queue keep playing each other)."""
    history = PairingHistory()
    for _ in range(10):
        history.record(["a", "b"])
    ready = [Waiting("a", Skill(25, 8), 0.0), Waiting("b", Skill(25, 8), 0.0)]
    policy = MatchPolicy(pair_cap=3)
    assert pick_table(ready, 2, 0.0, history, policy, members=2, rng=random.Random(1)) is not None
    assert pick_table(ready, 2, 0.0, history, policy, members=3, rng=random.Random(1)) is None
    later = policy.cap_yield_s
    assert pick_table(ready, 2, later, history, policy, members=3, rng=random.Random(1)) is not None


def test_the_rating_window_widens_as_the_seed_waits() -> None:
    """Issue 4: "opponents near its rating with the window widening as it waits": a 25 and a 40 are not
    matched at once; they are once the window (5 + 1 per second) reaches 15 μ points, after 10 s."""
    policy = MatchPolicy(window=5.0, widen_per_s=1.0)
    ready = [Waiting("mid", Skill(25, 8), 0.0), Waiting("high", Skill(40, 8), 0.0)]
    history = PairingHistory()
    assert window(policy, 10.0) == 15.0
    assert pick_table(ready, 2, 9.0, history, policy, 2, random.Random(1)) is None
    table = pick_table(ready, 2, 10.0, history, policy, 2, random.Random(1))
    assert table is not None and {w.key for w in table} == {"mid", "high"}


def test_the_nearest_ratings_are_taken_first() -> None:
    """Opponents "near its rating": the seed (longest waiting) gets the closest μ, not the next in line."""
    ready = [
        Waiting("seed", Skill(25, 8), 0.0),
        Waiting("far", Skill(29, 8), 1.0),
        Waiting("near", Skill(26, 8), 2.0),
    ]
    table = pick_table(ready, 2, 3.0, PairingHistory(), MatchPolicy(), 3, random.Random(1))
    assert table is not None and {w.key for w in table} == {"seed", "near"}


def test_fewest_recent_games_goes_first() -> None:
    """The seed is the bot with fewest recent games, before the one that waited longest."""
    history = PairingHistory()
    history.record(["busy", "other"])
    ready = [
        Waiting("busy", Skill(10, 8), 0.0),
        Waiting("fresh", Skill(40, 8), 5.0),
        Waiting("fresh-mate", Skill(41, 8), 6.0),
        Waiting("busy-mate", Skill(11, 8), 7.0),
    ]
    table = pick_table(ready, 2, 8.0, history, MatchPolicy(), 4, random.Random(1))
    assert table is not None and {w.key for w in table} == {"fresh", "fresh-mate"}


def test_seat_positions_even_out_over_games() -> None:
    """Issue 4: "rotated seats" (docs/matchmaking.md: the order whose bots played their seats least, not
    just random): four bots of a 4-player table, 200 games: each bot sits in each seat 50 times, give or
    take one; and for a 12-bot population at 3-player tables, each bot's seat counts differ by at most 2."""
    history = PairingHistory()
    ready = [Waiting(k, Skill(25, 8), 0.0) for k in "abcd"]
    rng = random.Random(5)
    for _ in range(200):
        table = pick_table(ready, 4, 0.0, history, MatchPolicy(pair_cap=0), 4, rng)
        assert table is not None
        history.record([w.key for w in table])
    for key in "abcd":
        assert all(49 <= history.seats[key][seat] <= 51 for seat in range(4)), history.seats[key]

    keys = [f"bot-{i}" for i in range(12)]
    history = PairingHistory()
    for _ in range(400):
        chosen = rng.sample(keys, 3)
        table = pick_table(
            [Waiting(k, Skill(25, 8), 0.0) for k in chosen], 3, 0.0, history, MatchPolicy(pair_cap=0), 12, rng
        )
        assert table is not None
        history.record([w.key for w in table])
    for key in keys:
        counts = [history.seats[key][seat] for seat in range(3)]
        assert max(counts) - min(counts) <= 2, (key, counts)


def test_random_seat_order_would_not_even_out() -> None:
    """The contrast: shuffled seats drift apart over the same 400 games (so the test above can fail)."""
    rng = random.Random(5)
    keys = [f"bot-{i}" for i in range(12)]
    seats: dict[str, Counter[int]] = {k: Counter() for k in keys}
    for _ in range(400):
        chosen = rng.sample(keys, 3)
        for seat, key in enumerate(chosen):
            seats[key][seat] += 1
    spreads = [max(c[s] for s in range(3)) - min(c[s] for s in range(3)) for c in seats.values()]
    assert max(spreads) > 2


def test_history_forgets_beyond_its_memory() -> None:
    """The pair cap and seed order count only the queue's last ``memory`` games."""
    history = PairingHistory(memory=3)
    for table in itertools.repeat(["a", "b"], 3):
        history.record(table)
    assert history.met("a", "b") == 3
    history.record(["c", "d"])
    assert (history.met("a", "b"), history.recent_games("a"), history.met("c", "d")) == (2, 2, 1)


def test_seat_order_breaks_ties_at_random_and_never_picks_a_worse_order() -> None:
    """docs/matchmaking.md: ties between equally rotated orders are broken at random (equal histories
    still get a random order); an order that repeats a played seat is never chosen over one that doesn't."""
    rng = random.Random(3)
    assert len({tuple(seat_order(list("abcd"), {}, rng)) for _ in range(500)}) == 24
    played = {"a": Counter({0: 1}), "b": Counter({1: 1})}
    for _ in range(100):
        order = seat_order(list("abc"), played, rng)
        assert order[0] != "a" and order[1] != "b"


@dataclass(eq=False)
class _Member:
    """What the matchmaker reads of a session: who it is, its free game slots, whether it is closed."""

    name: str
    closed: bool = False

    @property
    def identity(self) -> Identity:
        return Identity(f"practice:{self.name}", self.name, ranked=False)

    def free_slots(self) -> int:
        return 1


def test_join_queue_games_seats_a_session_in_that_many_games_then_it_leaves() -> None:
    """bot.proto JoinQueue.games: "the server seats the session in at most that many games from the
    join". A limit of 2 is 2 seatings, the second naming it done, and then it waits no more; a session
    without a limit stays. (Issue 32's planted bug: a limit never counted down went unnoticed.)"""
    matchmaker: Matchmaker[_Member] = Matchmaker({"duel": 2}, policy=MatchPolicy(pair_cap=0))
    limited, open_ended, third = _Member("limited"), _Member("open"), _Member("third")
    matchmaker.join("duel", limited, games=2)
    matchmaker.join("duel", open_ended)
    seatings = [matchmaker.next_game("duel"), matchmaker.next_game("duel")]
    assert [s.done for s in seatings if s is not None] == [[], [limited]]
    assert limited not in matchmaker.waiting["duel"] and open_ended in matchmaker.waiting["duel"]
    assert matchmaker.next_game("duel") is None, "one member left: no table"
    matchmaker.join("duel", third)
    last = matchmaker.next_game("duel")
    assert last is not None and sorted(m.name for m in last.sessions) == ["open", "third"]
