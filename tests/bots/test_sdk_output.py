"""What the Python SDK tells its user: the log lines of a session and the result lines of ``run(bot)``,
as a new user reads them (issue 32), on a practice server where house opponents take the other seats."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from live_server import LiveServer, no_timebank, serving
from queue_waits import logged_waits

from conquest.v1 import bot_pb2, game_pb2, r2210_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Bot, Client, Game, Turn
from conquest_sdk.cli import result_line
from conquest_sdk.client import queue_status_line
from engine import preset
from engine.r2210.rules import Rules2210
from server.ops.config import QueueConfig, queue_2210
from server.play import waiting

CONTROL = no_timebank(2000)
PRACTICE = (
    QueueConfig("classic-4", preset("classic", turn_cap=30), 4, CONTROL, house_opponents=("random",) * 3),
    QueueConfig(
        "classic-2", preset("classic_two_player", turn_cap=4), 2, CONTROL, house_opponents=("random",)
    ),
    # The strategist_2210 module's default queue, one year long so that its game is quick.
    dataclasses.replace(queue_2210(4, CONTROL, Rules2210(years=1)), house_opponents=("aggressive",) * 3),
)
"""Practice queues as `conquest practice` makes them: one bot seat, house opponents in the others."""


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    async with serving(PRACTICE, tmp_path / "replays") as server:
        yield server


def _started(game_id: str, r2210: bool = False) -> bot_pb2.GameStarted:
    players = [bot_pb2.Player(seat=0, name="me"), bot_pb2.Player(seat=1, name="house-random")]
    started = bot_pb2.GameStarted(game_id=game_id, seat=0, players=players)
    if r2210:
        started.r2210.CopyFrom(r2210_pb2.Start2210())
    return started


def _over(game_id: str, turns: int, reason: str = "conquest") -> bot_pb2.GameOver:
    results = [
        bot_pb2.SeatResult(seat=0, name="me", place=1, outcome=bot_pb2.SEAT_OUTCOME_WON),
        bot_pb2.SeatResult(seat=1, name="house-random", place=2, outcome=bot_pb2.SEAT_OUTCOME_ELIMINATED),
    ]
    return bot_pb2.GameOver(game_id=game_id, results=results, reason=reason, turns=turns)


async def test_a_practice_queue_is_described_by_its_house_opponents(
    server: LiveServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: "on a practice server the SDK logs '1 bots ready for a game of 1: a table forms among bots
    near each other's rating...'": a practice queue's status says that house opponents take the other
    seats, and when the server seats no game (here: it has seated all it was started for) it says so,
    with no word of other bots or ratings."""
    monkeypatch.setattr(waiting, "QUEUE_STATUS_INTERVAL_S", 0.2)
    server.lobby.games_left = 0  # as `conquest practice --games N` once its N games are seated
    caplog.set_level(logging.INFO, logger="conquest_sdk")
    client = Client(RandomBot(1), server.address, name="practising", queues=["classic-4"], games=1)
    lines = await logged_waits(client, "classic-4", caplog)
    assert (
        lines[0] == "queue classic-4: joined; house opponents take the other 3 seats: a game starts at once"
    )
    waits = [line for line in lines if "waited" in line]
    assert len(waits) >= 2, lines
    for line in waits:
        assert "house opponents take the other 3 seats, yet no game starts" in line, line
        assert "conquest practice --games N" in line, line
    for line in lines:
        assert "rating" not in line and "bots ready" not in line and "more bot" not in line, line


def test_queue_status_counts_one_bot_and_many_bots() -> None:
    """Issue 32: "also fix '1 bots' grammar (1 bot / 2 bots)" in every status line."""
    old = bot_pb2.QueueStatus(queue="classic-2", joined=True, waiting=1)  # a server without `seats`
    assert queue_status_line(old) == "queue classic-2: joined; 1 bot in the queue"
    old.waiting = 2
    assert queue_status_line(old) == "queue classic-2: joined; 2 bots in the queue"
    # A queue whose size the Welcome did not list still has house opponents when it seats one bot.
    alone = bot_pb2.QueueStatus(queue="classic-2", joined=True, waiting=1, seats=1, ready=1, waited_ms=12_000)
    assert "1 bots" not in queue_status_line(alone) and "house opponents take the other seats, yet" in (
        queue_status_line(alone)
    )
    assert "; a house opponent takes the other seat, yet" in queue_status_line(alone, players=2)
    # A local match (`conquest match`): two bot seats and two house seats.
    pair = bot_pb2.QueueStatus(queue="classic-4", joined=True, waiting=1, seats=2, ready=1, waited_ms=5_000)
    assert queue_status_line(pair, players=4) == (
        "queue classic-4: waited 5 s; 1 of 2 bot seats filled, house opponents take the other 2 seats: "
        "a game starts when 1 more bot joins"
    )
    ladder = bot_pb2.QueueStatus(
        queue="classic-3", joined=True, waiting=3, seats=3, ready=3, waited_ms=20_000
    )
    assert "3 bots ready for a game of 3" in queue_status_line(ladder, players=3)


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_server_shutting_down_after_the_games_is_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 32: "after a normal run it warns 'server error shutting_down ... behind a load balancer...'":
    once the client has played its games, or was stopped with none left in progress, the server going
    away is expected (told at INFO); during a game it still warns."""
    caplog.set_level(logging.DEBUG, logger="conquest_sdk")
    shutting_down = bot_pb2.Error(
        code="shutting_down",
        message="this server is shutting down: reconnect; behind a load balancer",
        fatal=True,
    )
    played = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"], games=1)
    played._on_welcome(bot_pb2.Welcome())
    played._on_game_started(_started("g1"))
    played._on_game_over(_over("g1", 12))
    played._on_error(shutting_down)
    stopped = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"])
    stopped._on_welcome(bot_pb2.Welcome())
    stopped.stop()
    stopped._on_error(shutting_down)
    assert _warnings(caplog) == []
    assert sum("shutting down" in r.getMessage() for r in caplog.records if r.levelno == logging.INFO) == 2

    playing = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"], games=2)
    playing._on_welcome(bot_pb2.Welcome())
    playing._on_game_started(_started("g1"))
    playing._on_error(shutting_down)
    stopping = Client(RandomBot(1), "localhost:0", name="me", queues=["classic-2"])
    stopping._on_welcome(bot_pb2.Welcome())
    stopping._on_game_started(_started("g2"))
    stopping.stop()  # its game g2 goes on: the server leaving interrupts it
    stopping._on_error(shutting_down)
    assert _warnings(caplog) == [f"server error shutting_down: {shutting_down.message}"] * 2


def test_a_2210_result_counts_years() -> None:
    """Issue 32: "the SDK says 'after 5 turns' where the server says '5 years'": GameOver.turns is the years
    a RISK 2210 A.D. game played (docs/protocol.md), and its result line says so."""
    assert result_line(Game(_started("g1", r2210=True)), _over("g1", 5, "year_5")) == (
        "game g1: 1. me (won), 2. house-random (eliminated) after 5 years"
    )
    assert result_line(Game(_started("g2", r2210=True)), _over("g2", 1)).endswith(" after 1 year")
    assert result_line(Game(_started("g3")), _over("g3", 41)).endswith(" after 41 turns")
    assert result_line(None, _over("g4", 5, "year_5")).endswith(" after 5 years")  # a game not known


class Classic(Bot):
    """A bot written for the classic game only, as the README's."""

    name = "classic-only"

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        return turn.legal.default()


def test_a_bot_without_decide_2210_is_warned_once_a_2210_game(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 32: "the README's bot plays 2210 on defaults without a word": seated in a RISK 2210 A.D. game,
    a bot that does not override decide_2210 is warned once a game (not again when the game is resumed
    after a reconnect); a bot that plays 2210, or a classic game, brings no warning."""
    caplog.set_level(logging.INFO, logger="conquest_sdk")
    client = Client(Classic(), "localhost:0", name="my-bot", queues=["2210-2"])
    client._on_welcome(bot_pb2.Welcome())
    client._on_game_started(_started("g1", r2210=True))
    client._on_welcome(bot_pb2.Welcome(resumed_game_ids=["g1"]))
    client._on_game_started(_started("g1", r2210=True))  # announced again after the reconnect
    client._on_game_started(_started("g2", r2210=True))
    client._on_game_started(_started("g3"))
    assert _warnings(caplog) == [
        f"my-bot has no decide_2210(): it plays RISK 2210 A.D. game {game} with the default actions; write "
        "decide_2210(game, turn) in Classic to play it (conquest_sdk.actions_2210)"
        for game in ("g1", "g2")
    ]
    caplog.clear()
    playing = Client(RandomBot(1), "localhost:0", name="random", queues=["2210-2"])
    playing._on_welcome(bot_pb2.Welcome())
    playing._on_game_started(_started("g1", r2210=True))
    assert _warnings(caplog) == []


async def _lines_until(stream: asyncio.StreamReader, count: int) -> list[str]:
    lines: list[str] = []
    while len(lines) < count:
        line = (await stream.readline()).decode()
        assert line, f"the output ended after {lines}"
        lines.append(line.rstrip("\n"))
    return lines


async def test_run_prints_each_result_as_its_game_ends(server: LiveServer) -> None:
    """Issue 32: "results print only at exit (none with `--games 0` until Ctrl-C)": a bot that plays on
    prints each game's line as the game ends, while it plays; Ctrl-C finishes the game in progress, prints
    its line, and prints no line twice."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "conquest_bots.random_bot",
        f"--address={server.address}",
        "--name=plays-on",
        "--queue=classic-2",
        "--games=0",
        "--log-level=warning",
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    try:
        first = await asyncio.wait_for(_lines_until(process.stdout, 2), 60)  # two games, still playing
        assert process.returncode is None
        process.send_signal(signal.SIGINT)
        rest, _ = await asyncio.wait_for(process.communicate(), 60)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0
    lines = first + rest.decode().splitlines()
    result = re.compile(r"^game (\w+): 1\. .*plays-on \(\w+\).* after \d+ turns?$")
    assert all(result.match(line) for line in lines), lines
    games = [line.split(":")[0] for line in lines]
    assert len(games) == len(set(games)) >= 2, lines


async def test_strategist_2210_runs_as_a_2210_bot(server: LiveServer) -> None:
    """Issue 32: "`python -m conquest_bots.strategist_2210` (named by the README) exits 0 at once and plays
    nothing": it runs the strategist, which plays RISK 2210 A.D. with intent, on the 2210-4 queue unless
    told another, and prints the game's result in years."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "conquest_bots.strategist_2210",
        f"--address={server.address}",
        "--name=strategist-2210",
        "--games=1",
        "--log-level=warning",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 120)
    finally:
        if process.returncode is None:
            process.kill()
    assert process.returncode == 0, err.decode()
    assert "decide_2210" not in err.decode()  # it plays 2210 itself: no warning of default actions
    assert re.fullmatch(r"game \w+: .*strategist-2210 \(\w+\).* after 1 year\n", out.decode()), out
