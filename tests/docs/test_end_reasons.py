"""The reasons a game can end with, as the proto comments and docs/protocol.md list them, are the ones the
server's code can give (``server.records.END_REASONS``), so the two cannot drift apart: the classic engine's
(``Termination``), RISK 2210 A.D.'s (``END_REASONS_2210``) and the server's own."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.rules import Rules2210
from engine.r2210.state import CONQUEST, END_REASONS_2210, YEAR_5
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
    engines = {t.value for t in Termination} | set(END_REASONS_2210)
    assert set(GAME_OVER_REASONS) == engines | {SHUTDOWN, ALL_FORFEITED}
    assert len(GAME_OVER_REASONS) == len(set(GAME_OVER_REASONS))
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


def test_a_2210_game_ends_only_with_its_listed_reasons():
    """RISK 2210 A.D.'s engine ends a game only through ``year.finish``, and every call names one of
    ``END_REASONS_2210`` (``year_5`` after the final scoring, ``conquest`` when one seat is left); random
    games end with one of them."""
    calls = []
    for path in sorted((ROOT / "engine" / "r2210").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "finish":
                calls.append(ast.unparse(node.args[1]))
    assert set(calls) == {"YEAR_5", "CONQUEST"} and (YEAR_5, CONQUEST) == END_REASONS_2210
    for seed in range(3):
        state, _ = new_game_2210(Rules2210(), 2 + seed, seed)
        rng = random.Random(seed)
        while not state.is_over():
            seat = state.asked[0]
            apply(state, random_action(legal_actions(state, seat), rng), seat)
        assert state.end_reason in END_REASONS_2210


def test_game_ended_event_reason_lists_both_engines_reasons():
    """game.proto's GameEndedEvent.reason: the classic engine's reasons, and where a 2210 game's are."""
    listed = QUOTED.findall(_field_comment("game.proto", "GameEndedEvent", "string reason = 2"))
    assert set(listed) - {"game_ended"} == {t.value for t in Termination} | set(END_REASONS_2210)


def test_the_protocol_guide_s_2210_table_lists_2210_s_reasons():
    """docs/protocol.md, "RISK 2210 A.D. games": GameOver's row gives `reason` `year_5` ... or `conquest`."""
    guide = (ROOT / "docs" / "protocol.md").read_text()
    section = guide[guide.index("## RISK 2210 A.D. games") :]
    (row,) = [line for line in section.splitlines() if line.startswith("| `GameOver` |")]
    assert sorted(re.findall(r"`(\w+)`", row.split("`reason`")[1])) == sorted(END_REASONS_2210)


def test_the_metrics_guide_lists_every_game_over_reason():
    """docs/metrics.md: ``conquest_games_finished_total``'s outcome label is the game's ``GameOver.reason``
    (server/play/lobby.py labels it with the runner's reason, ``unfinished`` when it has none)."""
    metrics = (ROOT / "docs" / "metrics.md").read_text()
    (row,) = [line for line in metrics.splitlines() if line.startswith("| `conquest_games_finished_total` |")]
    listed = set(re.findall(r"`(\w+)`", row.split("outcome is", 1)[1])) - {"unfinished"}
    assert listed == set(GAME_OVER_REASONS)
