"""The dice versions: version 2 is exactly the derivation docs/protocol.md specifies, version 1 still
re-derives every game recorded before it, and a replay names the version it was played with."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
from collections import Counter, deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, RulesConfigError, aggressive_policy, new_game, preset, random_policy
from engine.combat import roll_dice
from engine.dice import DICE_VERSION, DiceV2, make_dice
from engine.events import Dealt, Drew, Event, FirstPlayerRolled, MissionDealt, Rolled, Traded
from engine.goals import mission_deck
from engine.r2210.game import apply as apply_2210
from engine.r2210.game import legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.replay import Replay, ReplayError, verify
from engine.setup import deal, roll_off
from engine.turns import shuffled_deck

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).with_name("fixtures")
_SCRIPT = ROOT / "sample_bots" / "fixtures" / "make_dice_vectors.py"
_spec = importlib.util.spec_from_file_location("make_dice_vectors", _SCRIPT)
assert _spec is not None and _spec.loader is not None
make_dice_vectors = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_dice_vectors)
sys.modules["make_dice_vectors"] = make_dice_vectors  # the 2210 script imports its layout helpers

GAMES = [(name, rules.player_counts()[-1]) for name, rules in sorted(PRESETS.items())]
"""Every preset, at its largest table."""


def reference_words(seed: int) -> Iterator[int]:
    """docs/protocol.md's stream, written from the doc alone: block j = SHA-256(be64(seed) || be64(j)),
    its hex digest cut into eight 8-digit big-endian words."""
    block = 0
    while True:
        digest = hashlib.sha256(seed.to_bytes(8, "big") + block.to_bytes(8, "big")).hexdigest()
        for w in range(8):
            yield int(digest[8 * w : 8 * w + 8], 16)
        block += 1


def reference_uniform(words: Iterator[int], n: int) -> int:
    """docs/protocol.md's uniform(n): redraw while the word is at or above 2**32 - (2**32 mod n)."""
    limit = 2**32 - 2**32 % n
    while True:
        x = next(words)
        if x < limit:
            return x % n


def test_the_stream_is_sha256_of_seed_and_block_counter() -> None:
    """Issue 23: "Specify the derivation of every random choice ... from a construction with reference
    implementations in every language (a counter-based hash ...)". 100 words (13 blocks) per seed."""
    for seed in (0, 1, 2**63 - 1, 2**64 - 1):
        dice, reference = DiceV2(seed), reference_words(seed)
        assert [dice.word() for _ in range(100)] == [next(reference) for _ in range(100)]


@pytest.mark.parametrize("n", [1, 2, 6, 7, 42, 7776, 2**31 + 1, 3 * 2**30, 2**32])
def test_uniform_rejects_exactly_the_words_above_the_last_multiple(n: int) -> None:
    """docs/protocol.md: "uniform(n) ... discard x and draw the next word" (no modulo bias). For n just
    above 2**31 about half the words are rejected, so a wrong limit shows at once."""
    for seed in (3, 2**63 + 5):
        dice, reference = DiceV2(seed), reference_words(seed)
        assert [dice.uniform(n) for _ in range(200)] == [reference_uniform(reference, n) for _ in range(200)]


def test_battles_roll_offs_shuffles_and_deals_follow_the_spec() -> None:
    """docs/protocol.md: a battle is one uniform(7776) read as five base-6 digits (attacker 0..a-1,
    defender 3..3+b-1), the roll-off draws 1 + uniform(6) per seat still in, shuffles are Fisher-Yates
    from the back, a dealt setup gives order[i] to seat (first_seat + i) mod seats."""
    seed = 2**63 + 12345
    words = reference_words(seed)
    dice = DiceV2(seed)
    for attacker, defender in [(3, 2), (1, 1), (2, 1), (3, 1), (1, 2)]:
        k = reference_uniform(words, 7776)
        faces = [k // 6**i % 6 + 1 for i in range(5)]
        expected = (
            tuple(sorted(faces[:attacker], reverse=True)),
            tuple(sorted(faces[3 : 3 + defender], reverse=True)),
        )
        assert roll_dice(dice, attacker, defender) == expected
    assert [dice.die() for _ in range(30)] == [1 + reference_uniform(words, 6) for _ in range(30)]
    items, expected_items = list(range(44)), list(range(44))
    dice.shuffle(items)
    for i in range(43, 0, -1):
        j = reference_uniform(words, i + 1)
        expected_items[i], expected_items[j] = expected_items[j], expected_items[i]
    assert items == expected_items


def test_committed_vectors_are_what_the_engine_derives() -> None:
    """Issue 23: "Test vectors in the docs: seeds with their first rolls, roll-off, shuffled decks, so a
    port can be checked without a server". The kits test against sample_bots/fixtures/dice_vectors.json:
    it must be what the engine produces now (regenerate with make_dice_vectors.py)."""
    assert make_dice_vectors.OUT.read_text() == make_dice_vectors.vectors(), "dice_vectors.json is stale"
    cases = json.loads(make_dice_vectors.OUT.read_text())["cases"]
    assert len(cases) == 3 and any(int(case["seed"]) > 2**63 for case in cases)


def test_protocol_doc_shows_the_same_vectors() -> None:
    """docs/protocol.md's test vectors are the generated ones, character for character."""
    assert make_dice_vectors.markdown() in (ROOT / "docs" / "protocol.md").read_text()


def test_a_game_draws_roll_off_then_deal_then_deck_then_battles_from_one_stream() -> None:
    """docs/protocol.md: "The order in a game is therefore always: roll-off, missions (if any), deal (if
    any), deck shuffle, then one roll per rolled event". Re-derived here from the seed with the spec's
    pieces, for a Secret Mission game (it has all of them)."""
    rules, seats, seed = preset("secret_mission", turn_cap=30), 4, 2**63 + 99
    state, events = new_game(rules, seats, seed)
    while not state.is_over():
        events += state.apply(aggressive_policy(state))
    stream = DiceV2(seed)
    rounds, first = roll_off(stream, seats)
    assert [e for e in events if isinstance(e, FirstPlayerRolled)] == [FirstPlayerRolled(rounds, first)]
    missions = mission_deck(rules, seats)
    stream.shuffle(missions)
    assert [e.mission for e in events if isinstance(e, MissionDealt)] == missions[:seats]
    owners = deal(stream, 42, seats, first, neutral_piles=False)
    assert [e for e in events if isinstance(e, Dealt)] == [Dealt(tuple(owners))]
    deck = shuffled_deck(stream, 44, frozenset())
    rolls = [e for e in events if isinstance(e, Rolled)]
    assert rolls
    for e in rolls:
        assert (e.attacker_dice, e.defender_dice) == roll_dice(
            stream, len(e.attacker_dice), len(e.defender_dice)
        )
    assert state.dice.position() == stream.position()
    check_draws_against_deck(events, deck)


def check_draws_against_deck(events: list[Event], deck: list[int]) -> None:
    """Each Drew takes the deck's front; traded cards go to the back in the Traded event's order."""
    pile = deque(deck)
    for e in events:
        if isinstance(e, Drew):
            assert e.card == pile.popleft()
        elif isinstance(e, Traded):
            pile.extend(e.cards)


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("v1-*.json")), ids=lambda p: p.stem)
def test_replays_recorded_before_version_2_still_verify(path: Path) -> None:
    """Issue 23: "version it in the replay so every existing replay still verifies". These files were
    written by the engine before dice version 2 existed (no dice_version field), one per preset, with
    seeds above 2**62."""
    replay = Replay.from_json(path.read_text())
    assert replay.dice_version == 1
    state = verify(replay)
    assert list(state.places) == replay.places
    other = Replay.from_dict({**replay.to_dict(), "dice_version": 2})
    with pytest.raises(ReplayError):
        verify(other)  # the same actions under the other version's dice do not replay


def test_a_replay_naming_an_unknown_dice_version_is_refused() -> None:
    replay = Replay.from_json((FIXTURES / "v1-classic.json").read_text())
    with pytest.raises(ReplayError, match="dice_version 3 is not one of 1, 2"):
        Replay.from_dict({**replay.to_dict(), "dice_version": 3})


def test_new_games_use_version_2_and_the_seed_must_fit_64_bits() -> None:
    state, _ = new_game(preset("classic"), 3, 2**64 - 1)
    assert state.dice.version == DICE_VERSION == 2
    assert state.clone().dice.position() == state.dice.position()
    for seed in (-1, 2**64):
        with pytest.raises(RulesConfigError, match=r"0\.\.2\*\*64-1"):
            new_game(preset("classic"), 3, seed)
    with pytest.raises(RulesConfigError, match="versions are 1, 2"):
        new_game(preset("classic"), 3, 1, dice_version=0)
    with pytest.raises(ValueError, match="versions are 1 and 2"):
        make_dice(9, 1)


@settings(max_examples=14, deadline=None)
@given(
    st.sampled_from(GAMES),
    st.integers(min_value=0, max_value=2**64 - 1),
    st.sampled_from([1, 2]),
)
def test_a_game_re_derives_identically_from_its_replay(
    game: tuple[str, int], seed: int, version: int
) -> None:
    """Issue 23's property: a game (version 2, and version 1 still) re-derives identically from its
    replay's JSON: same places, same final fingerprint."""
    name, seats = game
    state, _ = new_game(preset(name, turn_cap=20), seats, seed, dice_version=version)
    policy = random_policy(random.Random(seed))
    actions = []
    while not state.is_over():
        action = policy(state)
        actions.append(action)
        state.apply(action, seat=state.to_act)
    replay = Replay(
        state.rules,
        seed,
        [f"b{i}" for i in range(seats)],
        actions,
        places=list(state.places),
        fingerprint=state.fingerprint(),
        dice_version=version,
    )
    again = Replay.from_json(replay.to_json())
    assert again.dice_version == version
    assert verify(again).fingerprint() == state.fingerprint()


# ---------------------------------------------------------------------- RISK 2210 A.D.

_SCRIPT_2210 = ROOT / "sample_bots" / "fixtures" / "make_dice_vectors_2210.py"
_spec_2210 = importlib.util.spec_from_file_location("make_dice_vectors_2210", _SCRIPT_2210)
assert _spec_2210 is not None and _spec_2210.loader is not None
make_dice_vectors_2210 = importlib.util.module_from_spec(_spec_2210)
_spec_2210.loader.exec_module(make_dice_vectors_2210)

SPECIFY_EVERY_DRAW = (
    "Specify the derivation of every random choice (rolls, roll-offs, deck and mission shuffles, deals, and "
    "the 2210 decks and d8s when RISK 2210 A.D. lands) in docs/protocol.md"
)
VECTORS_IN_THE_DOCS = (
    "Test vectors in the docs: seeds with their first rolls, roll-off, shuffled decks, so a port can be "
    "checked without a server."
)
LANDS, WATERS, LUNARS = list(range(42)), list(range(42, 55)), list(range(55, 69))
"""docs/protocol.md's territory decks, ascending (land 0..41, water 42..54, lunar 55..68)."""
COMMAND_DECKS = [list(range(20 * d, 20 * d + 20)) for d in range(5)]
"""docs/protocol.md: Land 0..19, Diplomat 20..39, Naval 40..59, Space 60..79, Nuclear 80..99."""


class Reference2210:
    """docs/protocol.md's 2210 draws, written from the doc alone on ``reference_words``."""

    def __init__(self, seed: int) -> None:
        self.words = reference_words(seed)
        self.used = 0

    def word(self) -> int:
        self.used += 1
        return next(self.words)

    def uniform(self, n: int) -> int:
        limit = 2**32 - 2**32 % n
        while True:
            x = self.word()
            if x < limit:
                return x % n

    def die(self, faces: int) -> int:
        return 1 + self.uniform(faces)

    def shuffle(self, items: list[int]) -> list[int]:
        for i in range(len(items) - 1, 0, -1):
            j = self.uniform(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def battle(self, attacker: list[int], defender: list[int]) -> tuple[list[int], list[int]]:
        """ "The five slot sizes are s0, s1, s2 = the attacker's faces ..., padded with 6 to three, and
        s3, s4 = the defender's faces, padded with 6 to two"; one uniform of their product, mixed radix."""
        sizes = attacker + [6] * (3 - len(attacker)) + defender + [6] * (2 - len(defender))
        k = self.uniform(sizes[0] * sizes[1] * sizes[2] * sizes[3] * sizes[4])
        d, place = [], 1
        for s in sizes:
            d.append(k // place % s + 1)
            place *= s
        return sorted(d[: len(attacker)], reverse=True), sorted(d[3 : 3 + len(defender)], reverse=True)

    def roll_off(self, seats: list[int], only_first: bool) -> tuple[list[int], list[list[int]]]:
        """ "In a round, each seat still in, in the list's order, rolls 1 + uniform(6) ... a value rolled by
        several is settled first, by rounds among just those seats (recursively, completely)"."""
        rounds: list[list[int]] = []

        def order(group: list[int], top: bool) -> list[int]:
            if len(group) == 1:
                return group
            rolled = {s: self.die(6) for s in group}
            rounds.append([rolled.get(s, 0) for s in seats])
            out: list[int] = []
            for value in sorted(set(rolled.values()), reverse=True):
                tied = [s for s in group if rolled[s] == value]
                settle = not (only_first and out)
                out += order(tied, top) if settle else tied
            return out

        return order(list(seats), True), rounds

    def setup(self, seats: int) -> dict[str, Any]:
        """docs/protocol.md's start of a game, steps 1-5, in the vectors' shape."""
        land, water, lunar = (self.shuffle(list(ids)) for ids in (LANDS, WATERS, LUNARS))
        command = [self.shuffle(list(ids)) for ids in COMMAND_DECKS]
        devastated, land = land[:4], land[4:]
        out: dict[str, Any] = {"devastated": devastated}
        if seats == 2:
            out["neutral"] = {"land": land[:16], "water": water[:6], "lunar": lunar[:6]}
            land, water, lunar = (self.shuffle(sorted(deck)) for deck in (land, water, lunar))
        order, rounds = self.roll_off(list(range(seats)), only_first=True)
        out.update(land=land, water=water, lunar=lunar, command=command, rolls=rounds, first_seat=order[0])
        out["words_used"] = self.used
        return out


def test_committed_2210_vectors_are_what_the_engine_derives() -> None:
    """Issue 23: "Specify the derivation of every random choice (rolls, roll-offs, deck and mission
    shuffles, deals, and the 2210 decks and d8s when RISK 2210 A.D. lands) in docs/protocol.md" and "Test
    vectors in the docs: seeds with their first rolls, roll-off, shuffled decks, so a port can be checked
    without a server." sample_bots/fixtures/dice_vectors_2210.json must be what the engine produces now
    (regenerate with make_dice_vectors_2210.py)."""
    out = make_dice_vectors_2210.OUT
    assert out.read_text() == make_dice_vectors_2210.vectors(), "dice_vectors_2210.json is stale"
    data = json.loads(out.read_text())
    assert data["version"] == 2 and data["game"] == "2210"
    assert any(int(case["seed"]) > 2**63 for case in data["cases"])


def test_protocol_doc_shows_the_same_2210_vectors() -> None:
    """Issue 23: "Test vectors in the docs: seeds with their first rolls, roll-off, shuffled decks, so a
    port can be checked without a server." docs/protocol.md's 2210 vectors are the generated ones,
    character for character, under the 2210 section."""
    doc = (ROOT / "docs" / "protocol.md").read_text()
    section = doc[doc.index("### RISK 2210 A.D. games") : doc.index("## Error codes")]
    assert make_dice_vectors_2210.markdown() in section
    assert "dice_vectors_2210.json" in section


def test_the_2210_vectors_follow_the_doc() -> None:
    """Issue 23: "Specify the derivation of every random choice (... the 2210 decks and d8s ...) in
    docs/protocol.md". A port written from the doc's 2210 section alone (``Reference2210``) re-derives
    every committed 2210 vector: d8s, mixed battles, both roll-offs, the 4- and 2-player starts."""
    cases = json.loads(make_dice_vectors_2210.OUT.read_text())["cases"]
    for case in cases:
        seed = int(case["seed"])
        d8 = Reference2210(seed)
        assert [d8.die(8) for _ in range(10)] == case["d8"]
        for key in ("battle_a866_d86", "battle_a88_d8"):
            roll = case[key]
            a, d = Reference2210(seed).battle(roll["attacker_faces"], roll["defender_faces"])
            assert (a, d) == (roll["attacker"], roll["defender"]), key
        order, rounds = Reference2210(seed).roll_off([0, 1, 2, 3], only_first=True)
        assert {"rolls": rounds, "seat": order[0]} == case["rolloff_first_4"]
        order, rounds = Reference2210(seed).roll_off([0, 1, 2, 3], only_first=False)
        assert {"rolls": rounds, "order": order} == case["rolloff_order_4"]
        four = Reference2210(seed).setup(4)
        assert {**four, "land": four["devastated"] + four["land"]} == case["setup_4"]
        two = Reference2210(seed).setup(2)
        del two["devastated"], two["command"]
        assert two == case["setup_2"]


@pytest.mark.parametrize("seats", [2, 4, 5])
def test_a_2210_game_draws_only_what_the_doc_lists_in_its_order(seats: int) -> None:
    """Issue 23: "Specify the derivation of every random choice (rolls, roll-offs, deck and mission
    shuffles, deals, and the 2210 decks and d8s when RISK 2210 A.D. lands) in docs/protocol.md". Random
    games re-derived from the seed by the doc's 2210 list alone: the start (decks, devastation, neutrals,
    roll-off), each bid tie, each battle, each card's die; cards and territory cards come off the decks'
    tops; and at the end the engine's stream has drawn exactly the words the reference drew (no draw the
    doc does not list)."""
    seen: Counter[str] = Counter()
    for game in range(40):
        seed = 2**63 + 1000 * seats + game
        state, events = new_game_2210(Rules2210(), seats, seed)
        rng = random.Random(game)
        while not state.is_over():
            seat = state.asked[0]
            events += apply_2210(state, random_action(legal_actions(state, seat), rng), seat)
        reference = Reference2210(seed)
        start = reference.setup(seats)
        assert [e.data["territory"] for e in events if e.kind == "devastated"] == start["devastated"]
        if seats == 2:
            neutral = start["neutral"]
            placed = [e.data["territory"] for e in events if e.kind == "neutral_placed"]
            assert placed == neutral["land"] + neutral["water"] + neutral["lunar"]
        (first,) = [e for e in events if e.kind == "first_player_rolled"]
        assert (first.data["rolls"], first.seat) == (start["rolls"], start["first_seat"])
        decks = {"land": start["land"], "water": start["water"], "lunar": start["lunar"]}
        command = start["command"]
        for i, e in enumerate(events):
            seen[e.kind] += 1
            if e.kind == "bid_tie_rolled":
                assert reference.roll_off(e.data["seats"], only_first=False)[1] == e.data["rolls"]
            elif e.kind == "rolled":
                faces = (e.data["attacker_faces"], e.data["defender_faces"])
                seen["rolled_d8"] += 8 in faces[0] + faces[1]
                a, d = reference.battle(*faces)
                assert (a, d) == (e.data["attacker_dice"], e.data["defender_dice"])
            elif e.kind == "card_rolled":
                seen[f"card_rolled_d{e.data['faces']}"] += 1
                assert reference.die(e.data["faces"]) == e.data["roll"]
            elif e.kind == "cards_drawn":
                counts = events[i - 1].data["counts"]  # its cards_bought
                tops = [command[d].pop(0) for d, n in enumerate(counts) for _ in range(n)]
                assert e.data["cards"] == tops
            elif e.kind == "territory_card_drawn":
                t = e.data["territory"]
                deck = decks["land" if t < 42 else "water" if t < 55 else "lunar"]
                assert deck.pop(0) == t
        assert state.dice.position() == f"v2:{reference.used}"
    covered = (
        "rolled_d8",
        "bid_tie_rolled",
        "cards_drawn",
        "territory_card_drawn",
        "card_rolled_d6",
        "card_rolled_d8",
    )
    assert all(seen[kind] for kind in covered), seen
