"""RISK 2210 A.D. in the dashboard, in Chromium (issue 19: "Dashboard: the live view and replay viewer draw
the 2210 Earth board and the Moon, devastated territories, Space Stations, commanders on the board, energy
and card counts, bids and the year; the standalone replay page too. Tested in Chromium.").

What the page draws is read back from its SVG and tables and compared with the engine's state at the same
point: each territory's owner, MODs, devastation and Space Station, every commander (which, whose, where),
each seat's energy, card counts and bid, and the year.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from chromium import open_page
from games_2210 import random_replay_2210
from live_server import LiveServer, no_timebank, serving
from playwright.async_api import Browser, Page

from engine import preset
from engine.r2210.actions import COMMANDERS, PlaceCommanders
from engine.r2210.cards import DECK_OF
from engine.r2210.replay import Replay2210, replayed, simulate
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from server.cli.main import main
from server.ops.config import QueueConfig, queue_2210

RULES = Rules2210(years=2)
QUEUES = (
    queue_2210(2, no_timebank(30_000), RULES),
    QueueConfig(
        "2210-house", preset("classic"), 2, no_timebank(30_000), house_opponents=("random",), r2210=RULES
    ),
)
COMMANDER_NAMES = ("land", "diplomat", "naval", "space", "nuclear")


@dataclass
class Site:
    url: str
    server: LiveServer
    game_id: str
    """A finished game between two bots, recorded in the database."""


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[Site]:
    database_url = f"sqlite:///{tmp_path / 'dashboard.sqlite3'}"
    async with serving(QUEUES, tmp_path / "replays", database_url=database_url, dashboard=True) as server:
        assert server.dashboard is not None
        bots = [server.bot(), server.bot()]
        for index, bot in enumerate(bots):
            await bot.hello(f"player-{index}")
            await bot.join("2210-2", games=1)
        overs = await asyncio.gather(*(b.play_until_over(random.Random(20 + i)) for i, b in enumerate(bots)))
        yield Site(f"http://127.0.0.1:{server.dashboard.port}/", server, overs[0].game_id)


READ_BOARD = """() => {
  const all = (s) => [...document.querySelectorAll(s)];
  const nodes = all('svg.board .territory').sort((a, b) => a.dataset.id - b.dataset.id);
  const rows = [...document.querySelectorAll('.players-2210 tbody tr')];
  const shown = (s) => all(s).filter((e) => e.getAttribute('visibility') === 'visible');
  const where = (c) => +c.closest('.territory').dataset.id;
  return {
    earth: document.querySelectorAll('svg.board.earth .territory').length,
    moon: document.querySelectorAll('svg.board.moon .territory').length,
    owners: nodes.map((n) => +n.dataset.owner),
    mods: nodes.map((n) => +n.dataset.mods),
    stations: nodes.map((n) => +n.dataset.station),
    devastated: nodes.filter((n) => n.classList.contains('devastated')).map((n) => +n.dataset.id),
    ruins: shown('svg.board .territory .devastation').length,
    shownStations: shown('svg.board .station').length,
    commanders: [...document.querySelectorAll('svg.board .commander')]
      .map((c) => [where(c), +c.dataset.seat, c.dataset.commander]),
    energy: rows.map((r) => r.querySelector('.energy').textContent),
    bids: rows.map((r) => r.querySelector('.bid').textContent),
    cards: rows.map((r) => [...r.querySelectorAll('.deck')].map((d) => +d.textContent)),
    year: document.querySelector('.status-2210 .year').textContent,
  };
}"""
SHOWS = f"""want => {{
  const shown = ({READ_BOARD})();
  return JSON.stringify([shown.owners, shown.mods, shown.stations, shown.energy]) === JSON.stringify(want);
}}"""
"""True once the page draws ``want``: [owners, mods, stations, energy] (the live view draws once a frame)."""


async def drawn(page: Page) -> dict[str, Any]:
    """The board and the seats' table as the page draws them."""
    shown: dict[str, Any] = await page.evaluate(READ_BOARD)
    shown["commanders"].sort()
    return shown


def expected(state: GameState2210) -> dict[str, Any]:
    """What the page must draw of ``state`` (the neutral army's row has no energy, bid or cards)."""
    stations = list(state.station)
    commanders = sorted(
        [t, s, COMMANDER_NAMES[c]]
        for s in range(state.seats)
        for c in COMMANDERS
        if (t := state.commander_at[s * 5 + c]) >= 0
    )
    neutral = ["–"] if state.neutral >= 0 else []
    counts = [[sum(1 for c in hand if DECK_OF[c] == d) for d in COMMANDERS] for hand in state.hands]
    return {
        "earth": 55,
        "moon": 14,
        "owners": list(state.owner),
        "mods": list(state.mods),
        "stations": stations,
        "devastated": [t for t, d in enumerate(state.devastated) if d],
        "ruins": 4,
        "shownStations": sum(1 for s in stations if s >= 0),
        "commanders": commanders,
        "energy": [str(e) for e in state.energy] + neutral,
        "bids": [str(b) if state.bids_revealed and b >= 0 else "–" for b in state.bids] + neutral,
        "cards": counts + ([[]] if neutral else []),
        "year": str(state.year) if state.year else "setup",
    }


def setup_done(replay: Replay2210) -> int:
    """The step after the last seat placed its commanders and station (setup's end)."""
    return 1 + max(i for i, (_, a) in enumerate(replay.actions) if isinstance(a, PlaceCommanders))


def state_at(replay: Replay2210, step: int) -> GameState2210:
    for index, (state, _) in enumerate(replayed(replay)):
        if index == step:
            return state.clone()
    raise AssertionError(f"no step {step}")


async def check_replay_viewer(page: Page, replay: Replay2210) -> None:
    """At the setup's end, at the first bids' reveal and at the last step, the viewer draws the engine's
    board; stepping on changes it as the engine does."""
    await page.wait_for_selector("svg.board.moon")
    reveal = next(
        k + 1
        for k, (_, events) in enumerate(list(replayed(replay))[1:])
        if any(e.kind == "bids_revealed" for e in events)
    )
    for step in (setup_done(replay), reveal, reveal + 1, len(replay.actions)):
        await page.locator(".controls .seek").fill(str(step))
        assert await page.get_attribute("main", "data-step") == str(step)
        assert await drawn(page) == expected(state_at(replay, step)), f"step {step}"
    await page.locator(".controls .seek").fill(str(setup_done(replay)))
    shown, seats = await drawn(page), len(replay.seats)
    assert len(shown["devastated"]) == 4 and shown["shownStations"] == seats, "a station a seat"
    assert len(shown["commanders"]) == 2 * seats, "each seat's Land and Diplomat Commanders"
    final, _ = simulate(replay)
    await page.keyboard.press("End")
    assert (await drawn(page))["owners"] == list(final.owner)


async def test_the_replay_viewer_draws_a_2210_game(site: Site, browser: Browser) -> None:
    """The dashboard's replay viewer of a recorded 2210 game (its replay read from the database and
    computed in the heavy worker): the Earth's 55 territories and the Moon's 14, the devastated ones,
    the Space Stations, the commanders, energy, card counts, bids and the year, step by step."""
    page, errors = await open_page(browser, f"{site.url}#/game/{site.game_id}")
    replay = Replay2210.from_dict(json.loads((site.server.replay_dir / f"{site.game_id}.json").read_text()))
    await check_replay_viewer(page, replay)
    assert "year 2 of 2" in await page.locator(".status-2210").inner_text()
    assert errors == []


async def test_the_standalone_page_draws_a_2210_game(browser: Browser, tmp_path: Path) -> None:
    """``conquest replay render`` of a 2210 replay file writes the same viewer as one page that works
    opened from a file."""
    replay = random_replay_2210(3, 5, years=5)
    source = tmp_path / "game.json"
    source.write_text(replay.to_json())
    output = tmp_path / "game.html"
    assert main(["replay", "render", str(source), "-o", str(output)]) == 0
    page, errors = await open_page(browser, output.as_uri())
    await check_replay_viewer(page, replay)
    assert errors == []


async def test_a_live_2210_game_is_drawn_as_it_is_played(site: Site, browser: Browser) -> None:
    """A raw bot plays a house bot while the browser watches: the live view draws the board the engine
    had when each of the bot's decisions was asked (its public part: owners, MODs, stations, commanders,
    energy, card counts, the year), and at the end the recorded game's final board."""
    bot = site.server.bot()
    await bot.hello("watched")
    await bot.join("2210-house", games=1)
    game_id = (await bot.expect("game_started")).game_started.game_id
    page, errors = await open_page(browser, f"{site.url}#/game/{game_id}")
    await page.wait_for_selector(".badge.live")
    await page.wait_for_selector(".players-2210")
    first = await drawn(page)
    assert (first["earth"], first["moon"], len(first["devastated"]), first["ruins"]) == (55, 14, 4, 4)
    rng = random.Random(4)
    while True:
        request = (await bot.expect("decision_request")).decision_request
        seen = request.r2210.observation
        if seen.year == 2:
            break
        bot.answer_randomly(request, rng)
    energy = [str(e) for e in seen.energy] + ["–"]
    await page.wait_for_function(SHOWS, arg=[list(seen.owners), list(seen.mods), list(seen.stations), energy])
    shown = await drawn(page)
    assert shown["owners"] == list(seen.owners) and shown["mods"] == list(seen.mods)
    assert shown["stations"] == list(seen.stations) and shown["year"] == "2"
    assert shown["cards"][:2] == [list(seen.card_counts[s * 5 : s * 5 + 5]) for s in range(2)]
    assert len(shown["commanders"]) == sum(1 for t in seen.commanders if t >= 0)
    assert shown["shownStations"] == sum(1 for s in seen.stations if s >= 0)
    # docs/dashboard-2210.png comes from here: CONQUEST_TEST_SCREENSHOT_2210=docs/dashboard-2210.png
    shot = os.environ.get("CONQUEST_TEST_SCREENSHOT_2210", str(site.server.replay_dir / "live.png"))
    await page.screenshot(path=shot, full_page=True)
    bot.answer_randomly(request, rng)
    await bot.play_until_over(rng)
    await page.wait_for_selector("main[data-over='1']")
    replay = Replay2210.from_dict(json.loads((site.server.replay_dir / f"{game_id}.json").read_text()))
    final, _ = simulate(replay)
    end = await drawn(page)
    assert end["owners"] == list(final.owner) and end["mods"] == list(final.mods)
    assert end["stations"] == list(final.station)
    assert "game over" in (await page.locator(".events").inner_text()).lower()
    assert errors == []
