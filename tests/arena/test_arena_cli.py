"""``conquest bot|leaderboard|games|replay download`` against a running server (main() with argv)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from arena_support import ADMIN, QUEUE, play_game

from engine.dice import DICE_VERSION
from server.cli.main import main

LOG_LINE = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[")


async def conquest(capsys, *argv: str) -> int:  # type: ignore[no-untyped-def]
    """``conquest ARGV``; the CLI blocks, so it runs in a thread while the server runs on this loop.
    What was printed before (the server's log lines) is dropped, so the next readouterr() is the CLI's."""
    capsys.readouterr()
    return await asyncio.to_thread(main, list(argv))


def printed(capsys) -> list[str]:  # type: ignore[no-untyped-def]
    """The CLI's output lines, without the server's log lines (they share stdout in this process)."""
    return [line for line in capsys.readouterr().out.splitlines() if not LOG_LINE.match(line)]


async def test_bot_commands_register_rotate_revoke_and_list(start_arena, capsys, monkeypatch) -> None:
    """Issue 4: "Bots are registered by an organizer (CLI and API): the token is shown once"; "The same
    operations from `conquest` subcommands with readable tables"."""
    server = await start_arena()
    at = ("--server", server.address)
    assert await conquest(capsys, "bot", "register", "alice", *at, "--admin-token", ADMIN) == 0
    out = capsys.readouterr().out
    token = out.split("token: ", 1)[1].split()[0]
    assert len(token) == 43 and "shown this once" in out
    assert server.store.authenticate(token).name == "alice"

    monkeypatch.setenv("CONQUEST_ADMIN_TOKEN", ADMIN)  # the default of --admin-token
    assert await conquest(capsys, "bot", "register", "bob", *at) == 0
    assert await conquest(capsys, "bot", "rotate", "alice", *at) == 0
    assert "new token for bot alice: " in capsys.readouterr().out
    assert await conquest(capsys, "bot", "revoke", "bob", *at) == 0
    assert "revoked bot bob at " in capsys.readouterr().out

    assert await conquest(capsys, "bot", "list", *at) == 0
    lines = printed(capsys)
    assert lines[0].split() == ["bot", "id", "registered", "(UTC)", "token", "rotated", "status"]
    assert set(lines[1]) == {"-", " "}
    assert [(line.split()[0], line.split()[-1]) for line in lines[2:]] == [
        ("alice", "active"),
        ("bob", "revoked"),
    ]

    assert await conquest(capsys, "bot", "register", "carol", *at, "--admin-token", "wrong") == 1
    assert "PERMISSION_DENIED: wrong admin token" in capsys.readouterr().err
    monkeypatch.delenv("CONQUEST_ADMIN_TOKEN")
    assert await conquest(capsys, "bot", "register", "carol", *at) == 2
    assert (
        "an admin token is needed: pass --admin-token or set CONQUEST_ADMIN_TOKEN" in capsys.readouterr().err
    )


async def test_leaderboard_games_and_replay_download(start_arena, capsys, tmp_path: Path) -> None:
    """Issue 4: "leaderboards, list/get games, download replays" from `conquest` with readable tables;
    the downloaded replay passes `conquest replay verify` (seed commitment included). `conquest games`
    shows each game's dice version ("`conquest games` ... does not show each game's dice_version")."""
    server = await start_arena()
    at = ("--server", server.address)
    tokens = [server.store.register_bot(name, admin_token=ADMIN).token for name in ("alice", "bob")]
    over = await play_game(server.port, tokens)
    winners = {r.name for r in over.results if r.place == 1}  # both, when a turn cap leaves them tied

    assert await conquest(capsys, "leaderboard", QUEUE, *at) == 0
    lines = printed(capsys)
    assert lines[0] == f"leaderboard {QUEUE} (ordered by mu - 3 sigma)"
    header = lines[1].split()
    assert header == [
        "rank",
        "bot",
        "mu",
        "sigma",
        "mu-3sigma",
        "games",
        "wins",
        "avg",
        "place",
        "timeouts",
        "forfeits",
    ]
    rows = [line.split() for line in lines[3:]]
    assert (rows[0][0], rows[0][5], rows[0][6]) == ("1", "1", "1") and rows[0][1] in winners
    assert len(rows) == 2 and len({len(line) for line in lines[1:]}) <= 2, "aligned columns"

    assert await conquest(capsys, "games", "--bot", "alice", *at) == 0
    lines = printed(capsys)
    assert lines[0].split()[:4] == ["game", "queue", "finished", "(UTC)"]
    assert lines[2].startswith(over.game_id) and " yes " in lines[2]
    assert all(f"1. {winner}" in lines[2] for winner in winners)
    dice = lines[0].split().index("dice")  # the game's dice version: how its rolls derive from its seed
    assert lines[2].split()[dice] == str(DICE_VERSION)
    assert await conquest(capsys, "games", "--queue", "chess", *at) == 1
    assert "NOT_FOUND: no queue 'chess'" in capsys.readouterr().err

    path = tmp_path / "downloaded.json"
    assert await conquest(capsys, "replay", "download", over.game_id, "-o", str(path), *at) == 0
    assert json.loads(path.read_text())["game_id"] == over.game_id
    assert await conquest(capsys, "replay", "verify", str(path)) == 0
    assert "seed commitment" in capsys.readouterr().out
    assert await conquest(capsys, "replay", "download", "nope", "-o", str(tmp_path / "x.json"), *at) == 1
    assert "NOT_FOUND: no game 'nope'" in capsys.readouterr().err


async def test_a_new_servers_empty_tables_say_so(start_arena, capsys) -> None:
    """Issue 32: "`conquest leaderboard` and `conquest tournament list` crash (`TypeError: 'int' object is
    not iterable` ...) whenever the table is empty: the first thing a new server shows"."""
    server = await start_arena()
    at = ("--server", server.address)
    assert await conquest(capsys, "leaderboard", QUEUE, *at) == 0
    assert printed(capsys)[-1] == f"no rated game has finished in {QUEUE} yet"
    assert await conquest(capsys, "tournament", "list", *at) == 0
    assert printed(capsys)[-1] == "no tournaments yet: `conquest tournament create` starts one"
    assert await conquest(capsys, "games", *at) == 0
    lines = printed(capsys)
    assert lines[0].split()[:2] == ["game", "queue"] and lines[-1] == "no finished games match"
    assert await conquest(capsys, "bot", "list", *at) == 0
    assert printed(capsys)[-1] == "no bots registered yet: `conquest bot register NAME` adds one"


def test_a_count_out_of_range_is_a_one_line_usage_error(capsys) -> None:
    """Issue 33, item 9: "`conquest games --limit 99999999999` and `conquest tournament create ... --rounds
    99999999999` end in a Python traceback instead of a one-line error"."""
    for argv, says in (
        (
            ["games", "--limit", "99999999999"],
            "99999999999 is out of range: give a whole number from 1 to 1000",
        ),
        (
            ["tournament", "create", "t", "--format", "swiss", "--queue", QUEUE, "--rounds", "99999999999"],
            "give a whole number from 0 to 100",
        ),
        (["leaderboard", QUEUE, "--limit", "lots"], "'lots' is not a whole number"),
        (["match", "random", "random", "--games", "0"], "0 is out of range: give a whole number from 1 to"),
    ):
        with pytest.raises(SystemExit) as exited:
            main(argv)
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert says in err and "Traceback" not in err, err
