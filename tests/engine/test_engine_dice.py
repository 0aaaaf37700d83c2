"""The dice versions: version 2 is exactly the derivation docs/protocol.md specifies, version 1 still
re-derives every game recorded before it, and a replay names the version it was played with."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import random
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import PRESETS, RulesConfigError, aggressive_policy, new_game, preset, random_policy
from engine.combat import roll_dice
from engine.dice import DICE_VERSION, DiceV2, make_dice
from engine.events import Dealt, Drew, Event, FirstPlayerRolled, MissionDealt, Rolled, Traded
from engine.goals import mission_deck
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
