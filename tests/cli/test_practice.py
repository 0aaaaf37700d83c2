"""``conquest practice``: the real server where every game is one bot against built-in opponents.

Issue 3: "`conquest practice` (a local server with built-in opponents that waits for your bot — the same
engine as the real server)".
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import grpc
import pytest

from conquest.v1 import arena_pb2, arena_pb2_grpc
from conquest_bots.aggressive import AggressiveBot
from conquest_sdk import Client
from server.cli.main import main
from server.cli.practice import practice, practice_queues
from server.ops.config import ConfigError, QueueConfig, ServerConfig
from server.play.replays import load_replay_file, verify_record
from server.play.seats import house_seats

ADDRESS = re.compile(r"practice server on (\S+);")


async def _address(out: io.StringIO) -> str:
    for _ in range(200):
        if found := ADDRESS.search(out.getvalue()):
            return found.group(1)
        await asyncio.sleep(0.02)
    raise AssertionError(f"practice printed no address: {out.getvalue()!r}")


async def test_an_sdk_bot_plays_house_opponents_and_each_result_is_printed(tmp_path: Path):
    """Issue 3: practice "waits for your bot": as soon as it joins, its game is filled with built-in
    opponents; each finished game's result is printed and the server stops after --games games."""
    queues = practice_queues(["classic-4"], "random", turn_cap=6)
    config = ServerConfig(address="localhost:0", replay_dir=tmp_path, metrics_port=0, queues=queues)
    out = io.StringIO()
    served = asyncio.create_task(practice(config, 2, out))
    address = await _address(out)
    assert f"python -m conquest_bots.aggressive --address {address} --queue classic-4" in out.getvalue()
    client = Client(AggressiveBot(), address, name="me", queues=["classic-4"], games=2)
    results = await asyncio.wait_for(client.run(), 60)
    assert await asyncio.wait_for(served, 10) == 2
    assert len(results) == 2
    lines = [line for line in out.getvalue().splitlines() if line.startswith("game ")]
    assert len(lines) == 2
    for over, line in zip(results, lines, strict=True):
        names = sorted(r.name for r in over.results)
        assert names == ["house-random", "house-random-2", "house-random-3", "me"]
        assert over.game_id in line and "turn_cap after 6 turns" in line
        replay, data = load_replay_file(tmp_path / f"{over.game_id}.json")
        verify_record(replay, data)  # the same engine: the replay re-simulates


def test_the_practice_command_prints_how_to_connect_and_the_game_it_played(tmp_path: Path):
    """Issue 3: `conquest practice` ... a local server that waits for your bot; the two-player queue
    seats the bot against one house opponent plus the neutral army."""
    practice_cmd = [sys.executable, "-m", "server.cli.main", "practice", "--address", "localhost:0"]
    practice_cmd += ["--queue", "classic-2", "--opponent", "aggressive", "--games", "1", "--turn-cap", "6"]
    server = subprocess.Popen(practice_cmd, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        header = [server.stdout.readline()]
        while not header[-1].startswith("  or your own bot"):
            header.append(server.stdout.readline())
        address = ADDRESS.search(header[0])
        assert address, header
        bot_cmd = [sys.executable, "-m", "conquest_bots.random_bot", "--address", address.group(1)]
        bot = subprocess.run(
            [*bot_cmd, "--queue", "classic-2", "--games", "1", "--name", "mine"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert bot.returncode == 0, bot.stderr
        rest, _ = server.communicate(timeout=30)
    finally:
        server.kill()
    assert server.returncode == 0
    assert "  classic-2        you + 1 house aggressive (classic_two_player)\n" in header
    result = [line for line in rest.splitlines() if line.startswith("game ")]
    assert len(result) == 1
    assert re.fullmatch(r"game \w+: 1\. \S+ \(\w+\), 2\. \S+ \(\w+\); turn_cap after 6 turns", result[0])
    assert "mine" in result[0] and "house-aggressive" in result[0]
    assert len(list((tmp_path / "replays").glob("*.json"))) == 1


def test_an_unknown_practice_queue_is_refused_with_the_list(capsys):
    """House rule: bad input gets a clear error saying what was wrong and what would be right."""
    assert main(["practice", "--queue", "classic-9"]) == 2
    err = capsys.readouterr().err
    assert "no queue 'classic-9'" in err and "classic-4" in err and "classic-2" in err


def test_house_seats_are_fresh_and_distinctly_named():
    """Issue 3: games filled with built-in opponents (engine policies), one seat each."""
    seats = house_seats(["random", "aggressive", "random"])
    assert [s.name for s in seats] == ["house-random", "house-aggressive", "house-random-2"]
    assert seats[0].policy is not seats[2].policy  # each random seat draws from its own generator


def test_a_queue_of_house_opponents_only_is_refused():
    with pytest.raises(ConfigError, match="leave no seat for a bot"):
        QueueConfig("q", practice_queues(["classic-2"], "random")[0].rules, 2, house_opponents=("a", "b"))


async def test_the_arena_api_on_a_practice_server_says_there_is_no_database_and_what_to_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Issue 23 item 6: "Under `conquest practice` the Arena API is unavailable: undocumented." docs/cli.md
    now says so ("answer `FAILED_PRECONDITION` with a message saying the server runs without a database,
    and `conquest leaderboard` ... print it"). On a practice server (no database, as ``practice`` builds
    it) the ladder's calls answer FAILED_PRECONDITION naming the missing database and the setting to give,
    and the CLI prints that message."""
    config = ServerConfig(
        address="localhost:0",
        replay_dir=tmp_path,
        metrics_port=0,
        queues=practice_queues(["classic-4"], "random"),
    )
    out = io.StringIO()
    served = asyncio.create_task(practice(config, 0, out))
    try:
        address = await _address(out)
        async with grpc.aio.insecure_channel(address) as channel:
            stub = arena_pb2_grpc.ArenaServiceStub(channel)
            calls = [
                stub.ListBots(arena_pb2.ListBotsRequest(), timeout=10),
                stub.GetLeaderboard(arena_pb2.GetLeaderboardRequest(queue="classic-4"), timeout=10),
                stub.ListGames(arena_pb2.ListGamesRequest(), timeout=10),
            ]
            for call in calls:
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call
                assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                details = refused.value.details() or ""
                assert "runs without a database" in details
                assert "set server.database_url and restart it" in details
        command = ["leaderboard", "classic-4", "--server", address]
        assert await asyncio.to_thread(main, command) == 1
        printed = capsys.readouterr().err
        assert "FAILED_PRECONDITION: this server runs without a database" in printed
    finally:
        served.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await served
