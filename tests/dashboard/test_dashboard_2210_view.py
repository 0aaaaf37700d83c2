"""The replay viewer's data for a RISK 2210 A.D. game, and where its board is drawn, without a browser
(issue 19: "Dashboard: the live view and replay viewer draw the 2210 Earth board and the Moon, devastated
territories, Space Stations, commanders on the board, energy and card counts, bids and the year; the
standalone replay page too")."""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from games_2210 import random_replay_2210

from engine.classic_map import CLASSIC
from engine.r2210 import board_data
from engine.r2210.board import BOARDS, Kind
from engine.r2210.observe import observe_2210
from engine.r2210.replay import Replay2210, replayed, simulate
from engine.r2210.rules import Rules2210
from server.play.convert_2210 import observation_2210
from server.web.layout_2210 import EARTH_SIZE, LAYOUT_2210, MOON_SIZE
from server.web.replay_2210 import message_json, observation_json
from server.web.replay_view import standalone_page, viewer_data

REPLAY = random_replay_2210(3, 5, years=5)
"""Three random players over five years: stations built, commanders hired, cards played."""


@pytest.fixture(scope="module")
def data() -> dict[str, Any]:
    return viewer_data(REPLAY.to_dict())


def test_every_step_is_the_engine_board_after_its_actions(data: dict[str, Any]) -> None:
    """Step k is the board after k actions, as a spectator's Observation2210 (the live stream's shape), with
    the hands (a finished game hides nothing), the events the action caused and the action itself; the
    last step's owners are the replay's final state's."""
    assert data["game"] == "2210" and len(data["steps"]) == len(REPLAY.actions) + 1
    for step, (state, events) in zip(data["steps"], replayed(REPLAY), strict=True):
        board = {
            k: v for k, v in step.items() if k not in ("action", "seat", "events", "note", "hands", "turn")
        }
        assert board == {
            k: v for k, v in message_json(observation_2210(observe_2210(state, -1))).items() if k != "seat"
        }
        assert step["hands"] == [sorted(h) for h in state.hands]
        assert [(e["type"], e["seat"], e["data"]) for e in step["events"]] == [
            (e.kind, e.seat, e.data) for e in events
        ]
    final, _ = simulate(REPLAY)
    assert data["steps"][-1]["owners"] == list(final.owner)
    assert data["places"] == list(final.places) and data["reason"] == "year_5"
    seat, action = REPLAY.actions[0]
    assert data["steps"][1]["action"] == ["claim", action.territory] and data["steps"][1]["seat"] == seat
    assert len(data["map"]["territories"]) == 69 and data["rules_2210"]["years"] == 5


def test_the_first_steps_show_the_devastation_then_the_stations_and_commanders(data: dict[str, Any]) -> None:
    """The setup: four land territories devastated before anyone claims (step 0), then each seat's Land
    and Diplomat Commanders and its Space Station where its place_commanders put them."""
    first = data["steps"][0]
    devastated = [e["data"]["territory"] for e in first["events"] if e["type"] == "devastated"]
    assert sorted(first["devastated"]) == sorted(devastated) and len(devastated) == 4
    assert all(BOARDS[True, False].kinds[t] == Kind.LAND for t in devastated)
    assert set(first["stations"]) == {-1} and set(first["commanders"]) == {-1}
    placed = [k for k, step in enumerate(data["steps"]) if (step["action"] or [""])[0] == "place_commanders"]
    assert len(placed) == 3
    for k in placed:
        step = data["steps"][k]
        _, land, diplomat, station = step["action"]
        assert step["stations"][station] == step["seat"]
        assert step["commanders"][step["seat"] * 5 : step["seat"] * 5 + 2] == [land, diplomat]
        assert step["devastated"] == first["devastated"], "devastation is for the whole game"


def _energy_change(event: dict[str, Any], seats: int, rules: Rules2210) -> list[int]:
    """What ``event`` does to each seat's energy, for the events that say it alone."""
    change = [0] * seats
    d = event["data"]
    if event["type"] == "bids_revealed":
        return [-max(0, bid) for bid in d["bids"]]
    cost = {"hired": -rules.commander_cost, "station_built": -rules.station_cost}
    change[event["seat"]] = d["energy"] if event["type"] == "turn_started" else cost[event["type"]]
    return change


def test_energy_and_bids_follow_the_events(data: dict[str, Any]) -> None:
    """Every step whose only energy-changing event is a turn's income, a hire, a station built or the bids'
    reveal changes each seat's energy by exactly that; bids show once revealed (-1 before), as the reveal
    says."""
    rules = REPLAY.rules
    checked: Counter[str] = Counter()
    for before, step in zip(data["steps"], data["steps"][1:], strict=False):
        kinds = [e["type"] for e in step["events"]]
        moving = [
            e
            for e in step["events"]
            if e["type"] in ("turn_started", "hired", "station_built", "bids_revealed")
        ]
        others = {"card_played", "cards_bought", "territory_bonus", "card_energy"} & set(kinds)
        if "bid" in kinds and "bids_revealed" not in kinds:
            assert step["bids"] == before["bids"], "a bid is hidden until all are in"
        if len(moving) != 1 or others:
            continue
        change = _energy_change(moving[0], 3, rules)
        assert step["energy"] == [e + c for e, c in zip(before["energy"], change, strict=True)], kinds
        if moving[0]["type"] == "bids_revealed":
            assert step["bids"] == moving[0]["data"]["bids"] and min(step["bids"]) >= 0
        checked[moving[0]["type"]] += 1
    assert checked["bids_revealed"] == 5 and checked["turn_started"] >= 10
    assert checked["hired"] and checked["station_built"], checked


def test_turns_count_on_and_the_charts_follow_each_seat(data: dict[str, Any]) -> None:
    """``turn`` counts the turns begun (the viewer's PageUp/PageDown and turn box seek by it); the charts
    have a point at each turn's start and the end, with every seat's territories, units and energy."""
    turns = [s["turn"] for s in data["steps"]]
    assert turns == sorted(turns) and turns[-1] == 15  # five years of three seats
    assert data["owners"] == 3
    last = data["series"][-1]
    final, _ = simulate(REPLAY)
    assert last["territories"] == [len(final.controlled(s)) for s in range(3)]
    assert last["energy"] == list(final.energy)
    assert last["units"] == [final.units_on_board(s) for s in range(3)]


def test_a_two_player_game_shows_the_neutral_army() -> None:
    """The two-player game's neutral army (owner 2) holds territories from the setup; it is charted."""
    replay = random_replay_2210(2, 6, years=2)
    data = viewer_data(replay.to_dict())
    assert data["owners"] == 3 and 2 in data["steps"][0]["owners"]
    assert data["series"][0]["territories"][2] > 0


def test_the_observation_json_is_the_live_streams() -> None:
    """A step's board is written field by field (five times faster than MessageToDict); it must stay the
    JSON the dashboard's live stream sends, field for field."""
    for state, _ in list(replayed(REPLAY))[::25]:
        observation = observation_2210(observe_2210(state, -1))
        assert observation_json(observation) == message_json(observation)


def test_the_layout_places_every_territory_on_its_board_apart_from_the_others() -> None:
    """Land where its classic equivalent stands; water on the Earth's canvas, lunar on the Moon's; no two
    territories of a canvas closer than 40 units (their circles and names stay apart)."""
    positions = LAYOUT_2210["positions"]
    assert len(positions) == 69 and len(LAYOUT_2210["labels"]) == len(board_data.REGIONS)
    classic = {t.name: [t.x, t.y] for t in CLASSIC.territories}
    boards: dict[bool, list[list[int]]] = {True: [], False: []}
    for row, (x, y) in zip(board_data.TERRITORIES, positions, strict=True):
        lunar = row[2] == "lunar"
        width, height = MOON_SIZE if lunar else EARTH_SIZE
        assert 0 < x < width and 0 < y < height, row[0]
        if row[2] == "land":
            assert [x, y] == classic[row[5]]
        boards[lunar].append([x, y])
    for places in boards.values():
        closest = min(math.dist(a, b) for i, a in enumerate(places) for b in places[i + 1 :])
        assert closest >= 40


def test_the_standalone_page_holds_the_2210_drawing() -> None:
    """``conquest replay render`` of a 2210 replay: one page with the 2210 board's script and data."""
    page = standalone_page(viewer_data(REPLAY.to_dict()))
    assert "const Board2210" in page and '"game":"2210"' in page


def test_a_2210_record_that_is_not_a_replay_says_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="2210 replays use dice_version"):
        viewer_data({**REPLAY.to_dict(), "dice_version": 1})
    assert isinstance(Replay2210.from_dict(REPLAY.to_dict()), Replay2210)
