"""The reasons a game can end with, as the proto comments and docs/protocol.md list them, are the ones the
server's code can give (``server.records.END_REASONS``), so the two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

from engine.state import Termination
from server.records import ABORTED, ALL_FORFEITED, END_REASONS, GAME_OVER_REASONS, SHUTDOWN

ROOT = Path(__file__).resolve().parents[2]
QUOTED = re.compile(r'"(\w+)"')


def _field_comment(proto: str, message: str, field: str) -> str:
    """The comment lines just above ``field`` in ``message`` of ``proto/conquest/v1/<proto>``."""
    text = (ROOT / "proto" / "conquest" / "v1" / proto).read_text()
    body = text[text.index(f"message {message} {{") :]
    lines = body[: body.index(f"  {field};")].splitlines()
    comment = []
    for line in reversed(lines):
        if not line.strip().startswith("//"):
            break
        comment.insert(0, line.strip().removeprefix("//"))
    return " ".join(comment)


def test_the_reasons_are_the_engine_s_ways_to_end_and_the_server_s_ways_to_cut_a_game_short():
    """Every reason the code can record: the engine's ``Termination`` values, what the runner cuts a game
    short with (``SHUTDOWN``, ``ALL_FORFEITED``), and what the recorder ends a crashed game with
    (``ABORTED``): the runner and the recorder use these constants, no literal of their own."""
    assert set(GAME_OVER_REASONS) == {t.value for t in Termination} | {SHUTDOWN, ALL_FORFEITED}
    assert set(END_REASONS) == set(GAME_OVER_REASONS) | {ABORTED}


def test_game_summary_reason_lists_every_reason_the_server_can_return():
    """Issue 23: "`GameSummary.reason` in `arena.proto` lists conquest, turn_cap, server_shutdown,
    all_forfeited; `ListGames` also returns `headquarters` and `mission`"."""
    listed = QUOTED.findall(_field_comment("arena.proto", "GameSummary", "string reason = 11"))
    assert sorted(listed) == sorted(END_REASONS)


def test_game_over_reason_lists_every_reason_a_game_over_can_carry():
    """bot.proto's GameOver.reason: every reason but ``aborted`` (a crashed game's bots are never told)."""
    listed = QUOTED.findall(_field_comment("bot.proto", "GameOver", "string reason = 4"))
    assert sorted(listed) == sorted(GAME_OVER_REASONS)


def test_the_protocol_guide_lists_every_reason():
    """docs/protocol.md, "Game over": "`reason` is ..." and "One more reason appears in the records"."""
    guide = (ROOT / "docs" / "protocol.md").read_text()
    section = guide[guide.index("## Game over") :]
    section = section[: section.index("\n## ", 1)]
    listed = re.search(r"`reason` is (.*?)\. ", section, re.S)
    assert listed is not None
    assert sorted(re.findall(r"`(\w+)`", listed.group(1))) == sorted(GAME_OVER_REASONS)
    more = re.search(r"One more reason appears in the records but never in a `GameOver`: `(\w+)`", section)
    assert more is not None and more.group(1) == ABORTED
