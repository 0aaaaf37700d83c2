"""Tournament pairings and standings (pure): round robin, Swiss and single elimination, for tables of any
size. docs/tournaments.md states the rules; ``TournamentDirector`` (server/arena/competitions.py)
stores the rounds and seats the games.

A tournament is its ``Spec``, its ``Entrant``s and the ``Table``s played so far (a one-seat table is a
bye). ``next_round`` gives the next round's tables once every table so far is done (None when the
tournament is over); ``standings`` ranks the entrants from the finished tables.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from server.play.pairing import seat_order

ROUND_ROBIN = "round_robin"
SWISS = "swiss"
SINGLE_ELIMINATION = "single_elimination"
FORMATS = (ROUND_ROBIN, SWISS, SINGLE_ELIMINATION)
MAX_ROUND_ROBIN_GAMES = 200
"""A multi-player round robin plays every group of ``table_size`` entrants once: refused beyond this."""
MAX_SWISS_ROUNDS = 100
"""The most rounds a Swiss tournament may be asked for (CreateTournamentRequest.rounds)."""
_PAIRING_BUDGET = 20_000
"""Swiss tables are searched for a grouping without repeat meetings for at most this many steps."""


class TournamentError(ValueError):
    """A tournament that cannot be run as asked (the message says what would work)."""


@dataclass(frozen=True, slots=True)
class Spec:
    format: str
    """One of FORMATS."""
    table_size: int
    """Seats per table (2 for two-player games)."""
    allowed: tuple[int, ...]
    """Player counts the rules allow: a smaller table is used only if its size is allowed."""
    rounds: int = 0
    """Swiss: rounds to play. Round robin and single elimination: derived (0)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    name: str
    seed: int
    """1 = the best rated at the start."""
    rating: float
    """μ − 3σ in the tournament's queue when it was created (the last tie-break)."""


@dataclass(frozen=True, slots=True)
class Table:
    round: int
    """From 1."""
    seats: tuple[str, ...]
    """Entrant names in seat order; a single seat is a bye."""
    places: tuple[int, ...] | None = None
    """Final places in seat order once played (1 = best), None until then."""

    @property
    def bye(self) -> bool:
        return len(self.seats) == 1

    @property
    def done(self) -> bool:
        return self.bye or self.places is not None


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    score: float
    """Game points (docs/tournaments.md: the share of the table's other players finished ahead of) plus
    bye points."""
    games: int
    """Games played (byes not included)."""
    byes: int
    buchholz: float
    """Sum over its games of the mean final score of its opponents at that table."""
    head_to_head: float
    """Game points against the entrants it is tied with on score and Buchholz."""
    rating: float
    eliminated_in: int
    """Single elimination: the round it was knocked out in (0: still in, or the winner)."""


def validate(spec: Spec, entrants: int) -> None:
    """Raises TournamentError when ``spec`` cannot be run with ``entrants`` entrants."""
    if spec.format not in FORMATS:
        raise TournamentError(f"format {spec.format!r} is not one of: {', '.join(FORMATS)}")
    if spec.table_size not in spec.allowed:
        counts = ", ".join(str(c) for c in spec.allowed)
        raise TournamentError(f"{spec.table_size}-player tables: the rules allow {counts} players")
    if entrants < spec.table_size:
        raise TournamentError(
            f"{entrants} entrants cannot fill a {spec.table_size}-player table: name at least "
            f"{spec.table_size}"
        )
    if spec.format == SWISS and not 1 <= spec.rounds <= MAX_SWISS_ROUNDS:
        raise TournamentError(f"a Swiss tournament plays 1 to {MAX_SWISS_ROUNDS} rounds, not {spec.rounds}")
    if spec.format == ROUND_ROBIN and math.comb(entrants, spec.table_size) > MAX_ROUND_ROBIN_GAMES:
        raise TournamentError(
            f"a round robin of {entrants} entrants at {spec.table_size}-player tables is "
            f"{math.comb(entrants, spec.table_size)} games (at most {MAX_ROUND_ROBIN_GAMES}): use swiss"
        )


def default_rounds(entrants: int) -> int:
    """Swiss rounds when none are asked for: ⌈log2 entrants⌉, at least 1."""
    return max(1, math.ceil(math.log2(entrants)))


def game_points(places: Sequence[int], seat: int) -> float:
    """The share of the other seats ``seat`` finished ahead of (a tie counts half): 1 for a win and 0 for a
    loss at a two-player table; 1, ⅔, ⅓, 0 for places 1-4 at a four-player table."""
    mine = places[seat]
    beaten = sum(1 for p in places if p > mine) + 0.5 * (sum(1 for p in places if p == mine) - 1)
    return beaten / (len(places) - 1)


def bye_points(spec: Spec) -> float:
    """A bye is a win at two-player tables (the chess convention) and an average result (½) at larger ones."""
    return 1.0 if spec.table_size == 2 else 0.5


def table_sizes(players: int, size: int, allowed: Sequence[int]) -> list[int]:
    """The tables of a round for ``players`` entrants: ⌈players / size⌉ tables as equal as possible if
    every size is allowed by the rules, else ⌊players / size⌋ full tables (the rest get byes)."""
    even = _spread(players, math.ceil(players / size))
    if all(s in allowed for s in even):
        return even
    return [size] * (players // size)


def elimination_sizes(players: int, size: int, allowed: Sequence[int]) -> list[int]:
    """The tables of an elimination round: allowed sizes, as equal as possible, such that the survivors
    (one per table, plus the byes) are one champion or can fill a table of the next round; fewest byes
    first, then sizes nearest ``size``, then fewest tables."""
    options = []
    for byes in range(players):
        for count in range(1, (players - byes) // min(allowed) + 1):
            sizes = _spread(players - byes, count)
            survivors = count + byes
            if all(s in allowed for s in sizes) and (survivors == 1 or survivors >= min(allowed)):
                options.append((byes, max(abs(s - size) for s in sizes), count, sizes))
    return min(options)[3]


def _spread(players: int, count: int) -> list[int]:
    """``players`` over ``count`` tables, sizes differing by at most one, larger tables first."""
    return [players // count + (1 if i < players % count else 0) for i in range(count)]


def next_round(
    spec: Spec, entrants: Sequence[Entrant], tables: Sequence[Table], rng: random.Random
) -> list[tuple[str, ...]] | None:
    """The next round's tables (names in seat order; one name = a bye), or None when the tournament is over.

    Raises:
        TournamentError: a table of the current round is not finished yet.
    """
    if any(not t.done for t in tables):
        raise TournamentError("the current round has tables still to play")
    played = max((t.round for t in tables), default=0)
    if spec.format == ROUND_ROBIN:
        schedule = round_robin(sorted(entrants, key=lambda e: e.seed), spec.table_size)
        groups = schedule[played] if played < len(schedule) else None
    elif spec.format == SWISS:
        groups = _swiss(spec, entrants, tables) if played < spec.rounds else None
    else:
        groups = _elimination(spec, entrants, tables)
    if groups is None:
        return None
    seats: dict[str, Counter[int]] = {}
    for table in tables:
        for index, name in enumerate(table.seats):
            if not table.bye:
                seats.setdefault(name, Counter())[index] += 1
    return [tuple(seat_order(g, seats, rng)) if len(g) > 1 else tuple(g) for g in groups]


def round_robin(entrants: Sequence[Entrant], size: int) -> list[list[list[str]]]:
    """Every round of a round robin. Two players: the circle method (N − 1 rounds for an even N, N for an
    odd N with one bye a round). More: every group of ``size`` entrants plays once; groups are taken in
    order into the first round where none of their entrants plays yet."""
    names = [e.name for e in entrants]
    if size == 2:
        circle: list[str | None] = [*names, *([None] if len(names) % 2 else [])]
        rounds = []
        for _ in range(len(circle) - 1):
            half = len(circle) // 2
            pairs = zip(circle[:half], reversed(circle[half:]), strict=True)
            rounds.append([[n for n in pair if n is not None] for pair in pairs])  # one name: a bye
            circle = [circle[0], circle[-1], *circle[1:-1]]
        return rounds
    schedule: list[list[list[str]]] = []
    for group in itertools.combinations(names, size):
        for round_ in schedule:
            if not any(set(group) & set(t) for t in round_):
                round_.append(list(group))
                break
        else:
            schedule.append([list(group)])
    return schedule


def _swiss(spec: Spec, entrants: Sequence[Entrant], tables: Sequence[Table]) -> list[list[str]]:
    """Entrants in standings order, byes to the lowest ranked without one, then tables filled from the top
    with the next-ranked entrants that have not met (a search; repeats only when unavoidable)."""
    order = [s.name for s in standings(spec, entrants, tables)]
    sizes = table_sizes(len(order), spec.table_size, spec.allowed)
    had_bye = {t.seats[0] for t in tables if t.bye}
    lowest_first = sorted(reversed(order), key=lambda name: name in had_bye)  # stable: rank order kept
    byes = lowest_first[: len(order) - sum(sizes)]
    playing = [n for n in order if n not in byes]
    met: Counter[frozenset[str]] = Counter()
    for table in tables:
        for pair in itertools.combinations(table.seats, 2):
            met[frozenset(pair)] += 1
    groups = _group(playing, sizes, met, [_PAIRING_BUDGET]) or _in_order(playing, sizes)
    return [*groups, *([name] for name in byes)]


def _group(
    order: list[str], sizes: list[int], met: Counter[frozenset[str]], budget: list[int]
) -> list[list[str]] | None:
    """Tables of ``sizes`` from ``order`` (best first) in which nobody has met, preferring the top ranked
    together; None if there is none (or the search budget ran out)."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for others in itertools.combinations(rest, sizes[0] - 1):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        table = [first, *others]
        if any(met[frozenset(pair)] for pair in itertools.combinations(table, 2)):
            continue
        below = _group([n for n in rest if n not in others], sizes[1:], met, budget)
        if below is not None:
            return [table, *below]
    return None


def _in_order(order: list[str], sizes: list[int]) -> list[list[str]]:
    tables, start = [], 0
    for size in sizes:
        tables.append(order[start : start + size])
        start += size
    return tables


def _elimination(spec: Spec, entrants: Sequence[Entrant], tables: Sequence[Table]) -> list[list[str]] | None:
    """The survivors by seed: byes to the top seeds, the rest dealt to tables in snake order (the top seeds
    apart); None once one is left."""
    alive = sorted(_survivors(entrants, tables), key=lambda e: e.seed)
    if len(alive) < 2:
        return None
    sizes = elimination_sizes(len(alive), spec.table_size, spec.allowed)
    byes = len(alive) - sum(sizes)
    groups: list[list[str]] = [[] for _ in sizes]
    snake = [*range(len(sizes)), *reversed(range(len(sizes)))]
    slot = 0
    for entrant in alive[byes:]:
        while len(groups[snake[slot % len(snake)]]) >= sizes[snake[slot % len(snake)]]:
            slot += 1
        groups[snake[slot % len(snake)]].append(entrant.name)
        slot += 1
    return [*groups, *([e.name] for e in alive[:byes])]


def _survivors(entrants: Sequence[Entrant], tables: Sequence[Table]) -> list[Entrant]:
    """Entrants still in after the last round: every bye, and the best place of every table (a shared best
    place goes to the better seed)."""
    last = max((t.round for t in tables), default=0)
    if last == 0:
        return list(entrants)
    seed = {e.name: e.seed for e in entrants}
    advancing = {_winner(t, seed) for t in tables if t.round == last}
    return [e for e in entrants if e.name in advancing]


def _winner(table: Table, seed: dict[str, int]) -> str:
    if table.bye:
        return table.seats[0]
    places = table.places
    assert places is not None
    best = min(range(len(table.seats)), key=lambda i: (places[i], seed[table.seats[i]]))
    return table.seats[best]


def standings(spec: Spec, entrants: Sequence[Entrant], tables: Sequence[Table]) -> list[Standing]:
    """Entrants ranked by score, then Buchholz, then head-to-head, then rating at the start, then name;
    in single elimination, first by how far each got (the round it was knocked out in, later is better)."""
    score: dict[str, float] = {e.name: 0.0 for e in entrants}
    games: Counter[str] = Counter()
    byes: Counter[str] = Counter()
    finished = [t for t in tables if t.done]
    for table in finished:
        if table.bye:
            score[table.seats[0]] += bye_points(spec)
            byes[table.seats[0]] += 1
            continue
        assert table.places is not None
        for index, name in enumerate(table.seats):
            score[name] += game_points(table.places, index)
            games[name] += 1
    buchholz: dict[str, float] = {e.name: 0.0 for e in entrants}
    for table in finished:
        if not table.bye:
            for name in table.seats:
                others = [score[o] for o in table.seats if o != name]
                buchholz[name] += sum(others) / len(others)
    knocked_out = _knocked_out(spec, entrants, finished)
    by_name = {e.name: e for e in entrants}

    def level(name: str) -> tuple[float, float, float]:
        out = knocked_out.get(name, 0)
        return (-(out or math.inf), -round(score[name], 9), -round(buchholz[name], 9))

    tied: dict[tuple[float, float, float], list[str]] = {}
    for entrant in entrants:
        tied.setdefault(level(entrant.name), []).append(entrant.name)
    head_to_head: dict[str, float] = {e.name: 0.0 for e in entrants}
    for group in tied.values():
        if len(group) > 1:
            for table in finished:
                if table.places is None:
                    continue
                for index, name in enumerate(table.seats):
                    if name in group:
                        mine = table.places[index]
                        for other, place in zip(table.seats, table.places, strict=True):
                            if other != name and other in group:
                                head_to_head[name] += 1.0 if place > mine else 0.5 if place == mine else 0.0
    order = sorted(entrants, key=lambda e: (level(e.name), -head_to_head[e.name], -e.rating, e.name))
    return [
        Standing(
            rank=i + 1,
            name=e.name,
            score=score[e.name],
            games=games[e.name],
            byes=byes[e.name],
            buchholz=buchholz[e.name],
            head_to_head=head_to_head[e.name],
            rating=by_name[e.name].rating,
            eliminated_in=knocked_out.get(e.name, 0),
        )
        for i, e in enumerate(order)
    ]


def _knocked_out(spec: Spec, entrants: Sequence[Entrant], tables: Sequence[Table]) -> dict[str, int]:
    """Single elimination: entrant -> the round it lost; empty for the other formats."""
    if spec.format != SINGLE_ELIMINATION:
        return {}
    seed = {e.name: e.seed for e in entrants}
    out = {}
    for table in tables:
        if table.done and not table.bye:
            winner = _winner(table, seed)
            for name in table.seats:
                if name != winner:
                    out[name] = table.round
    return out
