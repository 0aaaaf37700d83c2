"""Tournament pairings and standings (server/arena/tournaments.py): issue 4, "Round robin, Swiss and single
elimination, each for 2-player and multi-player games (state how multi-player tables are formed and
scored), with standings and tie-breaks" and the test list's "Swiss pairings and tie-breaks"."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from server.arena.tournaments import (
    ROUND_ROBIN,
    SINGLE_ELIMINATION,
    SWISS,
    Entrant,
    Spec,
    Table,
    TournamentError,
    game_points,
    next_round,
    standings,
    table_sizes,
    validate,
)

TWO = (2,)
CLASSIC = (3, 4, 5, 6)


def field(count: int) -> list[Entrant]:
    """Entrants e1 (best rated, seed 1) .. eN."""
    return [Entrant(f"e{i}", i, 100.0 - i) for i in range(1, count + 1)]


def play(groups: list[tuple[str, ...]], round_: int, winner_first: bool = True) -> list[Table]:
    """The round played: the better seed (lower number) finishes ahead, unless ``winner_first`` is False."""

    def strength(name: str) -> int:
        return int(name[1:]) if winner_first else -int(name[1:])

    tables = []
    for seats in groups:
        if len(seats) == 1:
            tables.append(Table(round_, seats))
            continue
        ranking = sorted(seats, key=strength)
        tables.append(Table(round_, seats, tuple(ranking.index(n) + 1 for n in seats)))
    return tables


def run(spec: Spec, entrants: list[Entrant], rng: random.Random) -> list[Table]:
    """Play a whole tournament with random places (ties included); returns every table."""
    tables: list[Table] = []
    while (groups := next_round(spec, entrants, tables, rng)) is not None:
        round_ = len({t.round for t in tables}) + 1
        for seats in groups:
            places = None if len(seats) == 1 else tuple(rng.randint(1, len(seats)) for _ in seats)
            tables.append(Table(round_, seats, places))
        assert round_ < 100
    return tables


def test_place_points_are_the_share_of_opponents_beaten() -> None:
    """docs/tournaments.md: a game scores the share of the table's other players finished ahead of (ties
    half): 1/0 at two seats, 1, 2/3, 1/3, 0 at four."""
    assert [game_points((2, 1), s) for s in range(2)] == [0.0, 1.0]
    assert [game_points((1, 1), s) for s in range(2)] == [0.5, 0.5]
    assert [game_points((3, 1, 4, 2), s) for s in range(4)] == [1 / 3, 1.0, 0.0, 2 / 3]
    assert game_points((1, 3, 3), 1) == 0.25


def test_swiss_first_round_pairs_by_rating_and_the_next_round_by_score_without_rematches() -> None:
    """Swiss pairings: round 1 by the rating order (1-2, 3-4, ...), round 2 winners meet winners, nobody
    meets an opponent twice, and the seat order of a table is recorded as given."""
    spec = Spec(SWISS, 2, TWO, rounds=3)
    entrants = field(8)
    first = next_round(spec, entrants, [], random.Random(1))
    assert first is not None
    assert sorted(sorted(t) for t in first) == [["e1", "e2"], ["e3", "e4"], ["e5", "e6"], ["e7", "e8"]]
    tables = play(first, 1)
    second = next_round(spec, entrants, tables, random.Random(1))
    assert second is not None
    assert sorted(sorted(t) for t in second) == [["e1", "e3"], ["e2", "e4"], ["e5", "e7"], ["e6", "e8"]]
    tables += play(second, 2)
    third = next_round(spec, entrants, tables, random.Random(1))
    assert third is not None
    met = {frozenset(t.seats) for t in tables}
    assert not any(frozenset(t) in met for t in third)
    tables += play(third, 3)
    assert next_round(spec, entrants, tables, random.Random(1)) is None
    assert [s.name for s in standings(spec, entrants, tables)][:1] == ["e1"]


def test_swiss_byes_go_to_the_lowest_ranked_once_each() -> None:
    """An odd field: each round one bye, to the lowest-ranked entrant that has not had one; a bye scores 1
    at two-player tables."""
    spec = Spec(SWISS, 2, TWO, rounds=5)
    entrants = field(5)
    tables: list[Table] = []
    for round_ in range(1, 6):
        groups = next_round(spec, entrants, tables, random.Random(round_))
        assert groups is not None
        byes = [g[0] for g in groups if len(g) == 1]
        assert len(byes) == 1
        order = [s.name for s in standings(spec, entrants, tables)]
        had = {t.seats[0] for t in tables if t.bye}
        assert byes[0] == [n for n in order if n not in had][-1]
        tables += play(groups, round_)
    assert Counter(t.seats[0] for t in tables if t.bye) == Counter({e.name: 1 for e in entrants})
    bye_only = next(s for s in standings(spec, entrants, tables) if s.name == "e5")
    assert bye_only.score == 1.0 and bye_only.byes == 1  # e5 lost every game it played


def test_tie_breaks_score_then_buchholz_then_head_to_head_then_rating() -> None:
    """docs/tournaments.md tie-breaks: equal scores are ordered by Buchholz (the sum of the opponents'
    scores), then head-to-head among the still tied, then the rating at the start."""
    spec = Spec(SWISS, 2, TWO, rounds=2)
    entrants = field(4)
    win = (1, 2)
    tables = [
        Table(1, ("e1", "e2"), win),  # e1 beats e2
        Table(1, ("e3", "e4"), win),  # e3 beats e4
        Table(2, ("e1", "e3"), win),  # e1 2 points
        Table(2, ("e4", "e2"), win),  # e4 1, e2 0... e3 1
    ]
    ranked = standings(spec, entrants, tables)
    by = {s.name: s for s in ranked}
    assert [s.name for s in ranked] == ["e1", "e3", "e4", "e2"]
    # e3 and e4 both score 1; e3's opponents (e4 1, e1 2) outscore e4's (e3 1, e2 0): Buchholz 3 > 1
    assert (by["e3"].score, by["e3"].buchholz, by["e4"].score, by["e4"].buchholz) == (1.0, 3.0, 1.0, 1.0)

    # Equal score and Buchholz: head-to-head decides, before the rating.
    entrants = field(6)
    tables = [
        Table(1, ("e1", "e2"), (1, 2)),
        Table(1, ("e3", "e4"), (2, 1)),
        Table(1, ("e5", "e6"), (2, 1)),
        Table(2, ("e2", "e5"), (1, 2)),
        Table(2, ("e4", "e6"), (2, 1)),
        Table(2, ("e1", "e3"), (2, 1)),  # e3 beats the better rated e1
    ]
    ranked = standings(Spec(SWISS, 2, TWO, rounds=2), entrants, tables)
    assert [s.name for s in ranked] == ["e6", "e4", "e3", "e1", "e2", "e5"]
    e3, e1 = ranked[2], ranked[3]
    assert (e3.score, e3.buchholz, e3.head_to_head) == (1.0, 2.0, 1.0)
    assert (e1.score, e1.buchholz, e1.head_to_head) == (1.0, 2.0, 0.0)
    # e2 (1 point, Buchholz 1) is below them on Buchholz though it beat e5; e4 above on Buchholz 3.


def test_multiplayer_tables_are_as_even_as_the_rules_allow() -> None:
    """Multi-player tables: ⌈N/size⌉ tables of (nearly) equal size when the rules allow every size, else
    full tables and byes."""
    assert table_sizes(9, 4, CLASSIC) == [3, 3, 3]
    assert table_sizes(10, 4, CLASSIC) == [4, 3, 3]
    assert table_sizes(9, 4, (4,)) == [4, 4]
    assert table_sizes(5, 4, CLASSIC) == [4]  # 3 + 2: no 2-seat game in classic, so a bye
    assert table_sizes(7, 2, TWO) == [2, 2, 2]


def test_multiplayer_swiss_groups_by_score_and_avoids_repeat_meetings() -> None:
    """Swiss at 4-player tables: the top four by score share a table, and while it is possible nobody
    meets anyone twice."""
    spec = Spec(SWISS, 4, CLASSIC, rounds=2)
    entrants = field(16)
    first = next_round(spec, entrants, [], random.Random(2))
    assert first is not None and sorted(len(g) for g in first) == [4, 4, 4, 4]
    assert {frozenset(g) for g in first} == {
        frozenset(f"e{i}" for i in range(k, k + 4)) for k in (1, 5, 9, 13)
    }
    tables = play(first, 1)
    second = next_round(spec, entrants, tables, random.Random(2))
    assert second is not None
    for group in second:
        for pair in itertools.combinations(group, 2):
            assert not any(set(pair) <= set(t.seats) for t in tables), (pair, group)
    leaders = {s.name for s in standings(spec, entrants, tables) if s.score == 1.0}
    assert leaders == {"e1", "e5", "e9", "e13"} and frozenset(leaders) in {frozenset(g) for g in second}


def test_round_robin_every_pair_or_group_plays_once() -> None:
    """Round robin: two-player by the circle method (5 entrants: 5 rounds, one bye each); four-player
    tables: every group of four entrants plays one game."""
    two = Spec(ROUND_ROBIN, 2, TWO)
    tables = run(two, field(5), random.Random(3))
    games = [frozenset(t.seats) for t in tables if not t.bye]
    assert len({t.round for t in tables}) == 5
    assert sorted(games, key=sorted) == sorted(
        (frozenset(p) for p in itertools.combinations([f"e{i}" for i in range(1, 6)], 2)), key=sorted
    )
    assert Counter(t.seats[0] for t in tables if t.bye) == Counter({f"e{i}": 1 for i in range(1, 6)})
    four = Spec(ROUND_ROBIN, 4, CLASSIC)
    tables = run(four, field(6), random.Random(3))
    assert len(tables) == 15 and len({frozenset(t.seats) for t in tables}) == 15
    assert all(len(set(t.seats)) == 4 for t in tables)
    for round_ in {t.round for t in tables}:  # nobody plays twice in a round
        seated = [n for t in tables if t.round == round_ for n in t.seats]
        assert len(seated) == len(set(seated))


def test_single_elimination_seeds_the_bracket_and_the_winners_advance() -> None:
    """Single elimination: round 1 seeds 1-8, 2-7, 3-6, 4-5 (snake), the table's best place advances, and
    standings order by how far each got."""
    spec = Spec(SINGLE_ELIMINATION, 2, TWO)
    entrants = field(8)
    first = next_round(spec, entrants, [], random.Random(4))
    assert first is not None
    assert sorted(sorted(g) for g in first) == [["e1", "e8"], ["e2", "e7"], ["e3", "e6"], ["e4", "e5"]]
    tables = play(first, 1, winner_first=False)  # upsets: the lower seed wins every game
    second = next_round(spec, entrants, tables, random.Random(4))
    assert second is not None
    assert sorted(sorted(g) for g in second) == [["e5", "e8"], ["e6", "e7"]]
    tables += play(second, 2, winner_first=False)
    third = next_round(spec, entrants, tables, random.Random(4))
    assert third is not None and sorted(third[0]) == ["e7", "e8"]
    tables += play(third, 3, winner_first=False)
    assert next_round(spec, entrants, tables, random.Random(4)) is None
    ranked = standings(spec, entrants, tables)
    assert ranked[0].name == "e8" and ranked[0].eliminated_in == 0
    assert ranked[1].name == "e7" and ranked[1].eliminated_in == 3
    assert {s.name for s in ranked[2:4]} == {"e5", "e6"} and all(s.eliminated_in == 2 for s in ranked[2:4])


def test_multiplayer_single_elimination_top_seeds_get_byes() -> None:
    """Single elimination at 4-player tables: 10 entrants form tables of 4, 3 and 3 (the top seeds apart);
    the winner of each advances and one final table decides."""
    spec = Spec(SINGLE_ELIMINATION, 4, CLASSIC)
    entrants = field(10)
    first = next_round(spec, entrants, [], random.Random(5))
    assert first is not None and sorted(len(g) for g in first) == [3, 3, 4]
    assert all(len({"e1", "e2", "e3"} & set(g)) == 1 for g in first)  # the top seeds are apart
    tables = run(spec, entrants, random.Random(5))
    final = max(t.round for t in tables)
    assert len([t for t in tables if t.round == final]) == 1
    assert standings(spec, entrants, tables)[0].eliminated_in == 0


@pytest.mark.parametrize("fmt", [ROUND_ROBIN, SWISS, SINGLE_ELIMINATION])
@pytest.mark.parametrize(("size", "allowed", "count"), [(2, TWO, 7), (3, CLASSIC, 8), (4, CLASSIC, 9)])
def test_every_format_finishes_with_every_entrant_ranked(
    fmt: str, size: int, allowed: tuple[int, ...], count: int
) -> None:
    """Each format for two-player and multi-player tables runs to its end with random results."""
    spec = Spec(fmt, size, allowed, rounds=3 if fmt == SWISS else 0)
    entrants = field(count)
    validate(spec, count)
    tables = run(spec, entrants, random.Random(count))
    ranked = standings(spec, entrants, tables)
    assert sorted(s.name for s in ranked) == sorted(e.name for e in entrants)
    assert [s.rank for s in ranked] == list(range(1, count + 1))
    for table in tables:
        assert len(table.seats) == 1 or len(table.seats) in allowed


def test_impossible_tournaments_are_refused_with_what_would_work() -> None:
    with pytest.raises(TournamentError, match="at least 4"):
        validate(Spec(SWISS, 4, CLASSIC, rounds=2), 3)
    with pytest.raises(TournamentError, match="use swiss"):
        validate(Spec(ROUND_ROBIN, 4, CLASSIC), 20)
    with pytest.raises(TournamentError, match="the rules allow 2"):
        validate(Spec(SWISS, 4, TWO, rounds=2), 8)
    with pytest.raises(TournamentError, match="still to play"):
        next_round(Spec(SWISS, 2, TWO, rounds=2), field(2), [Table(1, ("e1", "e2"))], random.Random(1))
