"""What the boards mark and label, in Chromium (issue 32, item 10): the seat whose move it is, in every
phase of a classic game, and the RISK 2210 A.D. board's names, none drawn over another.

No server: the pages are ``conquest replay render``'s standalone replay pages of games played by the engine
alone, opened from a file.
"""

from __future__ import annotations

import random
from pathlib import Path

from chromium import open_page
from games_2210 import random_replay_2210
from playwright.async_api import Browser, Page

from engine import preset, random_legal_action
from engine.actions import Claim
from engine.r2210 import board_data
from engine.replay import Replay
from server.cli.main import main
from server.web.layout_2210 import LAYOUT_2210


def claimed_game() -> Replay:
    """Three random players of the classic rules (claimed territories) up to turn 6."""
    replay = Replay(preset("classic", turn_cap=6), 11, ["ann", "bob", "cat"], game_id="claims")
    state, _ = replay.start()
    rng = random.Random(5)
    while not state.is_over():
        action = random_legal_action(state.legal_actions(), rng)
        replay.actions.append(action)
        state.apply(action)
    return replay


def render(replay_json: str, tmp_path: Path) -> str:
    """``conquest replay render`` of a replay file's text; the page's file URL."""
    source = tmp_path / "game.json"
    source.write_text(replay_json)
    output = tmp_path / "game.html"
    assert main(["replay", "render", str(source), "-o", str(output)]) == 0
    return output.as_uri()


async def marked_seats(page: Page) -> list[int]:
    """The seats (rows of the seats table, in seat order) marked ◀ as moving."""
    marked: list[int] = await page.eval_on_selector_all(
        ".seats tbody tr", "rows => rows.flatMap((r, seat) => (r.textContent.includes('◀') ? [seat] : []))"
    )
    return marked


async def test_the_turn_marker_follows_the_seat_that_claims(browser: Browser, tmp_path: Path) -> None:
    """Issue 32: "the replay viewer's turn marker stays on seat 0 during the claim". At every step up to
    the third turn the seats table marks one seat: at step 0 the first to claim; at a claim or a starting
    army's placement the seat that made it (the engine's turn_seat is 0 until the first turn); from the
    first turn on the seat whose turn it is."""
    replay = claimed_game()
    page, errors = await open_page(browser, render(replay.to_json(), tmp_path))
    await page.wait_for_selector("svg.board")
    state, _ = replay.start()
    expected, claims, first_turn = [state.to_act], [], 0
    for step, action in enumerate(replay.actions, start=1):
        acting = state.to_act
        state.apply(action)
        expected.append(state.turn_seat if state.turn > 0 else acting)
        claims += [step] if isinstance(action, Claim) else []
        first_turn = first_turn or (step if state.turn == 1 else 0)
        if state.turn >= 3:
            break
    assert len(claims) == 42 and {expected[k] for k in claims} == {0, 1, 2}
    assert first_turn > claims[-1] + 1, "the starting armies are placed between the claims and the first turn"
    for step, seat in enumerate(expected):
        await page.locator(".controls .seek").fill(str(step))
        assert await marked_seats(page) == [seat], f"step {step}"
        if step in claims:
            action = await page.locator(".step-body .action").inner_text()
            assert action.startswith(f"{replay.seats[seat]}: claim"), f"step {step}: {action}"
    assert errors == []


async def test_the_live_view_follows_the_setup_moves(browser: Browser, tmp_path: Path) -> None:
    """Issue 32 (the live view shares the replay's events): its "turn of" follows the seat of each setup
    move (a placement on the neutral army's territory is its placer's), then the seat whose turn it is."""
    page, errors = await open_page(browser, render(claimed_game().to_json(), tmp_path))
    await page.wait_for_selector("svg.board")
    seen = await page.evaluate(
        """() => {
          const view = { owners: [-1, -1, -1], armies: [0, 0, 0], hand_sizes: [0, 0], turn: 0, turn_seat: 0,
            seats: 2 };
          const seats = [];
          for (const ev of [
            { type: "first_player_rolled", seat: 1, rounds: [] },
            { type: "claimed", seat: 1, territory: 0 },
            { type: "claimed", seat: 0, territory: 1 },
            { type: "claimed", seat: 2, territory: 2 },
            { type: "placed", seat: 1, territory: 0, armies: 1 },
            { type: "placed", seat: 2, territory: 2, armies: 1 },
            { type: "turn_started", seat: 0, turn: 1, territory_armies: 3, continent_armies: 0 },
            { type: "placed", seat: 0, territory: 1, armies: 3 },
          ]) {
            Board.apply(view, ev, 2);
            seats.push(view.turn_seat);
          }
          return seats;
        }"""
    )
    assert seen == [1, 1, 0, 0, 1, 1, 0, 0]
    assert errors == []


LABEL_OVERLAPS = """() => {
  const found = [];
  const cross = (a, b) => Math.min(a.right, b.right) > Math.max(a.left, b.left)
    && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top);
  const named = (g) => g.querySelector("title").textContent.replace(/ \\(.*/, "");
  for (const svg of document.querySelectorAll("svg.board.earth, svg.board.moon")) {
    const texts = [...svg.querySelectorAll("text.name, text.continent-name, text.board-title")];
    const labels = texts.map((text) => {
      const own = text.closest(".territory");
      const region = text.classList.contains("continent-name");
      return { text: own ? named(own) : text.textContent, own, region, box: text.getBoundingClientRect() };
    });
    const territories = [...svg.querySelectorAll(".territory")].map((g) => {
      const site = g.querySelector(".landing-site");
      const disc = (site || g.querySelector("circle")).getBoundingClientRect();
      const [x, y, r] = [(disc.left + disc.right) / 2, (disc.top + disc.bottom) / 2, disc.width / 2];
      const unit = r / (site ? 20 : 15); // screen pixels per board unit
      const zone = (x0, y0, x1, y1) => ({ left: x + x0 * unit, top: y + y0 * unit, right: x + x1 * unit,
        bottom: y + y1 * unit });
      // where a commander and a Space Station of the territory are drawn (board2210.js)
      return { g, x, y, r, name: named(g), zones: [zone(-8, -35, 8, -24), zone(6.7, -23.3, 22.3, -7.7)] };
    });
    labels.forEach((a, i) => labels.slice(i + 1).forEach((b) => {
      if (cross(a.box, b.box)) found.push(`${a.text} / ${b.text}`);
    }));
    for (const { text, own, region, box } of labels) {
      for (const t of territories) {
        if (t.g === own) continue;
        const nx = Math.min(Math.max(t.x, box.left), box.right);
        const ny = Math.min(Math.max(t.y, box.top), box.bottom);
        if (Math.hypot(nx - t.x, ny - t.y) < t.r) found.push(`${text} / ${t.name}'s circle`);
        if (region && t.zones.some((z) => cross(z, box))) found.push(`${text} / ${t.name}'s badges`);
      }
    }
  }
  return found;
}"""
"""Labels drawn over one another: names of territories and regions and the Moon's title overlapping, a
label over another territory's circle, or a region's name where a territory's commander or Space Station
is drawn."""


async def test_no_two_labels_of_the_2210_board_overlap(browser: Browser, tmp_path: Path) -> None:
    """Issue 32: "2210 board labels overlap ('Canad…/Republique du Quebec', 'North Atlantic +2')". On the
    Earth and the Moon no two names' boxes (territories', regions', the Moon's title) intersect, no name
    lies on another territory's circle, and no region's name where a territory's commander or Space
    Station goes; the long names written on two lines still read as the map's names."""
    page, errors = await open_page(browser, render(random_replay_2210(3, 5).to_json(), tmp_path))
    await page.wait_for_selector("svg.board.moon")
    await page.keyboard.press("End")  # commanders and stations on the board
    assert await page.evaluate(LABEL_OVERLAPS) == []
    shown = await page.eval_on_selector_all(
        "svg.board .territory text.name",
        "names => names.map((n) => [...n.children].map((t) => t.textContent))",
    )
    assert [" ".join(lines) for lines in shown] == [row[1] for row in board_data.TERRITORIES]
    assert shown == LAYOUT_2210["names"] and any(len(lines) == 2 for lines in shown)
    regions = await page.eval_on_selector_all("svg.board .continent-name", "names => names.length")
    assert regions == len(board_data.REGIONS)
    assert errors == []
