"""``conquest demo``, the README's run command (issue 4: "The product command now runs a small persistent
ladder with the sample bots and prints the leaderboard as it changes"; issue 3: "server plus sample bots,
live results printed")."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest

from server.cli.main import main


def _games_by_bot(output: str) -> dict[str, int]:
    """The games column of the last leaderboard printed."""
    last = output.rsplit("rank", 1)[1]
    rows = re.findall(r"^\s*\d+\s+(\S+)\s+-?[\d.]+\s+(\d+)\s", last, flags=re.MULTILINE)
    return {bot: int(games) for bot, games in rows}


def test_demo_runs_a_rated_ladder_that_persists_between_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    database = f"sqlite:///{tmp_path / 'ladder.sqlite3'}"
    with socket.socket() as probe:  # not the default 8080: a server alongside (make run) may hold it
        probe.bind(("127.0.0.1", 0))
        dashboard = probe.getsockname()[1]
    args = ["demo", "--address", "127.0.0.1:0", "--database-url", database, "--replay-dir", str(tmp_path)]
    args += ["--dashboard-port", str(dashboard)]

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
