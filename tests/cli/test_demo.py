"""``conquest demo``, the README's run command (issue 4: "The product command now runs a small persistent
ladder with the sample bots and prints the leaderboard as it changes"; issue 3: "server plus sample bots,
live results printed")."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from serve_process import free_port

from server.cli import demo
from server.cli.main import main
from server.cli.match import MatchError, parse_entrants

DEMO_TIMEOUT_S = 20
"""One game of the demo's ladder takes a few seconds."""


def _games_by_bot(output: str) -> dict[str, int]:
    """The games column of the last leaderboard printed."""
    last = output.rsplit("rank", 1)[1]
    rows = re.findall(r"^\s*\d+\s+(\S+)\s+-?[\d.]+\s+(\d+)\s", last, flags=re.MULTILINE)
    return {bot: int(games) for bot, games in rows}


def test_demo_runs_a_rated_ladder_that_persists_between_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    dashboard = free_port()  # not the default 8080: a server alongside (make run) may hold it
    args = ["demo", "--address", "127.0.0.1:0", "--database-url", database, "--replay-dir", str(tmp_path)]
    args += ["--dashboard-port", str(dashboard), "--pace-ms", "0"]

    assert main([*args, "--games", "2"]) == 0
    first = capsys.readouterr().out
    assert f"Dashboard: http://localhost:{dashboard}/" in first, "issue 8: the run command prints the URL"
    assert "\n#1 game " in first and "\n#2 game " in first
    assert _games_by_bot(first) == {"strategist": 2, "aggressive": 2, "aggressive-2": 2, "random": 2}

    assert main([*args, "--games", "1"]) == 0  # a second run: new tokens, the same ratings carry on
    second = capsys.readouterr().out
    assert _games_by_bot(second) == {"strategist": 3, "aggressive": 3, "aggressive-2": 3, "random": 3}


def test_demo_names_an_unusable_database(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--address", "127.0.0.1:0", "--database-url", "nosuchdb://x", "--games", "1"]) == 2
    assert "cannot open the database nosuchdb://x" in capsys.readouterr().err


def _command_lines() -> dict[int, str]:
    """Every process's command line, as ``ps`` shows it to any local user."""
    lines = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):  # gone meanwhile
                lines[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
    return lines


def test_demo_passes_tokens_in_the_environment_never_on_a_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 21, item 8: "`conquest demo` (what `make run` starts) hands each bot its token on the command
    line, visible to any local user in `ps`." To reach: "tokens never travel on a command line"."""
    tokens: list[str] = []
    seen: list[dict[int, str]] = []
    register = demo.register_bots

    def spied_register(*args: Any) -> dict[str, str]:
        issued = register(*args)
        tokens.extend(issued.values())
        return issued

    game_over = demo.Ladder._game_over

    def spied_game_over(self: demo.Ladder, runner: Any) -> None:  # the bot processes are running now
        seen.append(_command_lines())
        game_over(self, runner)

    monkeypatch.setattr(demo, "register_bots", spied_register)
    monkeypatch.setattr(demo.Ladder, "_game_over", spied_game_over)
    database = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    args = ["demo", "--address", "127.0.0.1:0", "--database-url", database, "--replay-dir", str(tmp_path)]
    assert main([*args, "--dashboard-port", "0", "--games", "1", "--pace-ms", "0"]) == 0
    # the bots connected with their tokens: the game was rated
    assert _games_by_bot(capsys.readouterr().out) == dict.fromkeys(
        ("strategist", "aggressive", "aggressive-2", "random"), 1
    )
    assert len(tokens) == 4 and seen
    bot_lines = [line for line in seen[0].values() if "conquest_bots" in line]
    assert len(bot_lines) >= 4, seen[0]
    leaked = [line for line in seen[0].values() for token in tokens if token in line]
    assert leaked == []


def test_match_refuses_a_token_placeholder() -> None:
    """Issue 21, item 8: a `{token}` in a `conquest match` command would put a token on a command line."""
    with pytest.raises(MatchError, match=r"environment variable CONQUEST_TOKEN.*remove \{token\}"):
        parse_entrants(["random", "./bot --address {address} --token {token}"])


GRPC_CORE_LINE = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ \S+:\d+\]", re.MULTILINE)
"""A line the gRPC C core logs itself, e.g. ``I1125 13:27:33.166277   26134 fork_posix.cc:71] Other threads
are currently calling into gRPC, skipping fork() handlers``."""


def test_the_demos_screen_holds_no_grpc_core_line(tmp_path: Path) -> None:
    """Issue 23: "`make run` shows four gRPC C-core lines (`fork_posix.cc:71] Other threads are currently
    calling into gRPC, skipping fork() handlers`) before the first game: a newcomer's first screen should
    hold only the product's own words." `conquest demo` as `make run` starts it, for one game (bounded)."""
    command = [sys.executable, "-m", "server.cli.main", "demo", "--address", "127.0.0.1:0", "--games", "1"]
    command += ["--database-url", f"sqlite:///{tmp_path / 'ladder.sqlite3'}", "--replay-dir", str(tmp_path)]
    command += ["--dashboard-port", "0", "--pace-ms", "0"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=DEMO_TIMEOUT_S, cwd=tmp_path)
    screen = run.stdout + run.stderr
    assert run.returncode == 0, screen
    assert "\n#1 game " in run.stdout, screen
    assert not GRPC_CORE_LINE.findall(screen), screen


def _demo(tmp_path: Path, *flags: str) -> list[str]:
    """``conquest demo`` as ``make run`` starts it, on a fresh database in ``tmp_path`` and ``flags``."""
    command = [sys.executable, "-m", "server.cli.main", "demo", "--replay-dir", str(tmp_path), *flags]
    return [*command, "--database-url", f"sqlite:///{tmp_path / 'ladder.sqlite3'}"]


def test_a_busy_port_is_one_line_that_names_the_flag(tmp_path: Path) -> None:
    """Issue 32: "A busy port is a traceback (`RuntimeError: Failed to bind to address localhost:50051 ...`;
    `OSError: the dashboard process did not start...` then `Event loop is closed`) ... with no hint of
    `--address`/`--dashboard-port`, which `make run` cannot take"."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        for flags, names in (
            (("--address", f"127.0.0.1:{port}", "--dashboard-port", "0"), "--address host:port"),
            (("--address", "127.0.0.1:0", "--dashboard-port", str(port)), "--dashboard-port"),
        ):
            run = subprocess.run(
                _demo(tmp_path, *flags), capture_output=True, text=True, timeout=DEMO_TIMEOUT_S
            )
            assert run.returncode == 2, run.stderr
            assert names in run.stderr and "make run ADDRESS=... DASHBOARD_PORT=..." in run.stderr
            assert "Traceback" not in run.stderr and "Event loop is closed" not in run.stderr, run.stderr
            assert "serving on" not in run.stdout, "nothing claims to serve before both ports are held"
    makefile = (Path(__file__).parents[2] / "Makefile").read_text()
    assert "--address '$(ADDRESS)'" in makefile and "--dashboard-port '$(DASHBOARD_PORT)'" in makefile


def _bot_processes() -> set[int]:
    """The demo's bot processes (their shells, ``/bin/sh -c``, left out)."""
    lines = _command_lines().items()
    return {
        pid for pid, line in lines if "conquest_bots." in line and "--pace-ms" in line and " -c " not in line
    }


def test_the_demo_seats_a_visitors_bot_at_once_and_sigterm_stops_its_bots(tmp_path: Path) -> None:
    """Issue 32: "the demo serves only `ladder-4`, where it waited 54 s behind '4 of 4 seats filled'";
    "names a queue your bot can join at once"; "`conquest demo` on SIGTERM dies at once and leaves its 4
    bot processes reconnecting forever"; "the demo paces its games so a visitor can watch one live"."""
    before = _bot_processes()
    demo_process = subprocess.Popen(
        _demo(tmp_path, "--address", "127.0.0.1:0", "--dashboard-port", "0", "--pace-ms", "200"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert demo_process.stdout is not None
        banner = ""
        while "--queue" not in banner:
            line = demo_process.stdout.readline()
            assert line, demo_process.communicate(timeout=5)
            banner += line
        join = re.search(r"--address localhost:(\d+) --queue (classic-4)", banner)
        assert join and "queue classic-4 or 2210-4" in banner, banner
        started = time.monotonic()
        bot = [sys.executable, "-m", "conquest_bots.random_bot", "--address", f"localhost:{join[1]}"]
        visitor = subprocess.run(
            [*bot, "--queue", join[2], "--games", "1", "--name", "visitor"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert visitor.returncode == 0, visitor.stderr
        assert re.search(r"game \w+: 1\. .*visitor", visitor.stdout), visitor.stdout
        assert time.monotonic() - started < 30, "a house-seated game does not wait for the paced ladder"
        ladder_bots = _bot_processes() - before
        assert len(ladder_bots) == 4, "the demo's bots run paced (--pace-ms)"
        demo_process.send_signal(signal.SIGTERM)
        out, err = demo_process.communicate(timeout=60)  # its bots get 5 s to finish, then are killed
        assert "Traceback" not in err, err
        assert "classic-4: game " in out, "the visitor's game is reported beside the ladder's"
        assert not (_bot_processes() & ladder_bots), "the demo's bots outlived it"
    finally:
        if demo_process.poll() is None:
            demo_process.kill()
            demo_process.communicate()
        for pid in _bot_processes() - before:  # a demo killed here leaves its bots reconnecting
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
