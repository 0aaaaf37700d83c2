"""The 2210 fixtures' draws re-derive by walking their events as docs/protocol.md's table says.

Issue 23: "Each starter kit ... ships a replay verifier (re-derive every roll and shuffle from the revealed
seed and compare with the events), run in `make interop` on replays of every ruleset". The kits port the
table "Checking a 2210 game's draws"; this walk is that table in Python, written from the docs and using
only ``uniform`` and ``shuffle`` of the version 2 stream, so a wrong line in the docs fails here before a
kit copies it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.dice import DiceV2

FIXTURES = Path(__file__).parents[2] / "sample_bots" / "fixtures"
GAMES = ("replay_2210_two_player", "replay_2210_three_player", "replay_2210_five_player")
LAND, WATER, LUNAR = range(0, 42), range(42, 55), range(55, 69)
COMMAND_DECK_SIZE = 20
NEUTRALS = (16, 6, 6)
"""Two-player neutral territories per deck (land, water, lunar)."""


def roll_off(stream: DiceV2, seats: list[int], only_first: bool) -> tuple[list[int], list[list[int]]]:
    """The docs' roll-off: rounds in the order rolled, one value per entry of ``seats``."""
    rounds: list[list[int]] = []

    def rank(group: list[int]) -> list[int]:
        if len(group) == 1:
            return group
        dice = {s: 1 + stream.uniform(6) for s in group}
        rounds.append([dice.get(s, 0) for s in seats])
        out: list[int] = []
        for value in sorted(set(dice.values()), reverse=True):
            tied = [s for s in group if dice[s] == value]
            out.extend(tied if only_first and out else rank(tied))
        return out

    return rank(list(seats)), rounds


def battle(stream: DiceV2, attacker: list[int], defender: list[int]) -> tuple[list[int], list[int]]:
    sizes = [*attacker, *[6] * (3 - len(attacker)), *defender, *[6] * (2 - len(defender))]
    total = 1
    for size in sizes:
        total *= size
    k = stream.uniform(total)
    digits = []
    for size in sizes:
        digits.append(k % size + 1)
        k //= size
    return (
        sorted(digits[: len(attacker)], reverse=True),
        sorted(digits[3 : 3 + len(defender)], reverse=True),
    )


def territory_deck(decks: list[list[int]], territory: int) -> list[int]:
    return decks[0 if territory in LAND else 1 if territory in WATER else 2]


def walk(replay: dict[str, Any], events: list[dict[str, Any]]) -> dict[str, int]:
    """Check every draw of the game against the events; how many events of each checked kind."""
    stream = DiceV2(replay["seed"])
    decks = [list(LAND), list(WATER), list(LUNAR)]
    for deck in decks:
        stream.shuffle(deck)
    command = [list(range(d * COMMAND_DECK_SIZE, (d + 1) * COMMAND_DECK_SIZE)) for d in range(5)]
    for deck in command:
        stream.shuffle(deck)
    seats = len(replay["seats"])
    neutral_left = sum(NEUTRALS) if seats == 2 else 0
    neutral_order = decks[0][4:20] + decks[1][:6] + decks[2][:6]
    checked: dict[str, int] = {}
    for event in sorted(events, key=lambda e: int(e["sequence"])):
        kind, data = event["kind"], json.loads(event["dataJson"])
        where = f"event {event['sequence']} {kind} {data}"
        if kind == "devastated":
            assert data["territory"] == decks[0].pop(0), where
        elif kind == "neutral_placed":
            assert data["territory"] == neutral_order[sum(NEUTRALS) - neutral_left], where
            neutral_left -= 1
            if neutral_left == 0:
                for deck in decks:
                    deck.sort()
                    stream.shuffle(deck)
        elif kind == "first_player_rolled":
            order, rounds = roll_off(stream, list(range(seats)), only_first=True)
            assert (data["rolls"], event["seat"]) == (rounds, order[0]), where
        elif kind == "bid_tie_rolled":
            _, rounds = roll_off(stream, data["seats"], only_first=False)
            assert data["rolls"] == rounds, where
        elif kind == "rolled":
            dice = battle(stream, data["attacker_faces"], data["defender_faces"])
            assert (data["attacker_dice"], data["defender_dice"]) == dice, where
        elif kind == "card_rolled":
            assert data["roll"] == 1 + stream.uniform(data["faces"]), where
        elif kind == "cards_drawn":
            for card in data["cards"]:
                assert card == command[card // COMMAND_DECK_SIZE].pop(0), where
        elif kind == "territory_card_drawn":
            assert data["territory"] == territory_deck(decks, data["territory"]).pop(0), where
        else:
            continue
        checked[kind] = checked.get(kind, 0) + 1
    return checked


def load(name: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    replay = json.loads((FIXTURES / f"{name}.json").read_text())
    lines = (FIXTURES / f"{name}.events.jsonl").read_text().splitlines()
    return replay, [json.loads(line) for line in lines]


@pytest.mark.parametrize("name", GAMES)
def test_every_draw_of_a_2210_fixture_re_derives_from_the_docs(name):
    replay, events = load(name)
    assert replay["game"] == "2210" and replay["dice_version"] == 2
    checked = walk(replay, events)
    assert checked["devastated"] == 4 and checked["first_player_rolled"] == 1
    assert checked["rolled"] > 50 and checked["bid_tie_rolled"] and checked["cards_drawn"]
    assert checked.get("neutral_placed", 0) == (28 if len(replay["seats"]) == 2 else 0)


def test_the_fixtures_cover_every_kind_of_2210_draw():
    """A kit tested on these games meets each row of the docs' table at least once."""
    kinds: set[str] = set()
    for name in GAMES:
        kinds |= set(walk(*load(name)))
    assert kinds == {
        "devastated",
        "neutral_placed",
        "first_player_rolled",
        "bid_tie_rolled",
        "rolled",
        "card_rolled",
        "cards_drawn",
        "territory_card_drawn",
    }


def test_a_changed_battle_roll_is_caught_at_its_event():
    replay, events = load("replay_2210_three_player")
    rolled = next(e for e in events if e["kind"] == "rolled")
    data = json.loads(rolled["dataJson"])
    data["attacker_dice"][0] = data["attacker_dice"][0] % 6 + 1
    rolled["dataJson"] = json.dumps(data)
    with pytest.raises(AssertionError, match=f"event {rolled['sequence']} rolled"):
        walk(replay, events)
