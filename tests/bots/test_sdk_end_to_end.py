"""SDK bots on a real server over gRPC (port 0): full games, a dropped connection, slow decisions."""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import pytest
from dropping_proxy import DroppingProxy
from live_server import no_timebank, serving
from queue_waits import logged_waits

from conquest.v1 import bot_pb2, game_pb2
from conquest_bots.aggressive import AggressiveBot
from conquest_bots.random_bot import RandomBot
from conquest_bots.strategist import StrategistBot
from conquest_sdk import Bot, Client, Game, Turn
from engine import preset
from server.ops.config import QueueConfig
from server.play import waiting

CONTROL = no_timebank(2000, reconnect_grace_ms=10_000)
TIGHT = no_timebank(300, reconnect_grace_ms=10_000)
QUEUES = (
    QueueConfig("classic-3", preset("classic", turn_cap=30), 3, CONTROL),
    QueueConfig("classic-2", preset("classic_two_player", turn_cap=30), 2, CONTROL),
    QueueConfig("tight-2", preset("classic_two_player", turn_cap=6), 2, TIGHT),
)
PLAYED = {bot_pb2.SEAT_OUTCOME_WON, bot_pb2.SEAT_OUTCOME_ELIMINATED, bot_pb2.SEAT_OUTCOME_TURN_CAP}
"""Outcomes of a seat that played its game to the end itself (no forfeit)."""


@pytest.fixture
async def address(tmp_path: Path) -> AsyncIterator[str]:
    async with serving(QUEUES, tmp_path / "replays") as server:
        yield server.address


async def play(clients: Sequence[Client], timeout: float = 90) -> list[list[bot_pb2.GameOver]]:
    return await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), timeout)


def check_ranking(over: bot_pb2.GameOver, names: set[str]) -> None:
    """A full ranking: every seat named, place 1 taken, every seat played to the end."""
    assert {r.name for r in over.results} == names
    assert min(r.place for r in over.results) == 1
    assert all(r.outcome in PLAYED for r in over.results), over
    assert over.reason in ("conquest", "turn_cap")


async def test_one_bot_of_each_kind_plays_full_games(address: str) -> None:
    """Issue 3: "End-to-end over real gRPC on port 0: full games between sample bots finish with a
    ranking" — the random, aggressive and strategist SDK bots, two three-player games in a row."""
    bots: list[Bot] = [RandomBot(1), AggressiveBot(), StrategistBot()]
    clients = [Client(bot, address, name=f"py-{bot.name}", queues=["classic-3"], games=2) for bot in bots]
    results = await play(clients)
    names = {c.name for c in clients}
    for client, overs in zip(clients, results, strict=True):
        assert len(overs) == 2, client.name
        for over in overs:
            check_ranking(over, names)
        assert not client.games  # nothing left in progress
    assert results[0][0].game_id == results[1][0].game_id == results[2][0].game_id


async def test_two_player_neutral_game(address: str) -> None:
    """The neutral game over gRPC: neutral placements and all, the strategist and random finish it."""
    clients = [
        Client(StrategistBot(), address, name="py-strategist", queues=["classic-2"], games=1),
        Client(RandomBot(2), address, name="py-random", queues=["classic-2"], games=1),
    ]
    results = await play(clients)
    for overs in results:
        check_ranking(overs[0], {"py-strategist", "py-random"})


class DropOnce(Bot):
    """Plays like ``inner``; on its ``at``-th decision cuts the connection under it (once)."""

    def __init__(self, inner: Bot, at: int, drop: Callable[[], None]) -> None:
        self.inner, self.at, self.drop = inner, at, drop
        self.name = inner.name
        self.decisions = 0
        self.loop = asyncio.get_running_loop()

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        self.decisions += 1
        if self.decisions == self.at:
            self.loop.call_soon_threadsafe(self.drop)
        return self.inner.decide(game, turn)


async def test_sdk_reconnects_and_finishes_the_game(address: str) -> None:
    """Issue 3: "automatic reconnect" — the connection drops mid-game; the SDK reconnects under the same
    name, the server hands the seat back, and the game finishes with the seat played to the end."""
    proxy = DroppingProxy(int(address.rsplit(":", 1)[1]))
    proxied = f"127.0.0.1:{await proxy.start()}"
    loop = asyncio.get_running_loop()
    reported: list[str] = []
    loop.set_exception_handler(lambda _, context: reported.append(context["message"]))
    try:
        dropper = DropOnce(StrategistBot(), at=25, drop=proxy.drop)
        clients = [
            Client(dropper, proxied, name="py-dropped", queues=["classic-3"], games=1),
            Client(AggressiveBot(), address, name="py-aggressive", queues=["classic-3"], games=1),
            Client(RandomBot(3), address, name="py-random", queues=["classic-3"], games=1),
        ]
        results = await play(clients)
        gc.collect()  # a task left pending is reported as it is collected
    finally:
        proxy.close()
        loop.set_exception_handler(None)
    assert proxy.drops >= 1 and dropper.decisions > 25
    assert clients[0].reconnects >= 1
    for overs in results:
        assert len(overs) == 1
        check_ranking(overs[0], {"py-dropped", "py-aggressive", "py-random"})
    # The dropped stream's request writer (gRPC's task reading the SDK's outbox) ended with it: none was
    # left waiting, to be collected as "Task was destroyed but it is pending!", one per reconnect.
    assert reported == []


class Slow(Bot):
    """Takes a second over each of its first ``slow`` decisions (three times the time allowed)."""

    def __init__(self, slow: int) -> None:
        self.slow = slow
        self.strikes_seen: list[int] = []

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        self.strikes_seen.append(turn.request.strikes)
        if len(self.strikes_seen) <= self.slow:
            time.sleep(1.0)
        return turn.legal.default()


async def test_slow_decisions_get_the_safe_default_in_time(address: str) -> None:
    """Issue 3: "deadline awareness": with 300 ms per decision and 3 strikes to forfeit, a bot that
    overruns four decisions by a second still answers each in time (the SDK sends the safe default),
    so it collects no strike and plays its game to the end."""
    slow = Slow(slow=4)
    clients = [
        Client(slow, address, name="py-slow", queues=["tight-2"], games=1),
        Client(RandomBot(4), address, name="py-random", queues=["tight-2"], games=1),
    ]
    results = await play(clients)
    check_ranking(results[0][0], {"py-slow", "py-random"})
    assert len(slow.strikes_seen) > 4
    assert set(slow.strikes_seen) == {0}


async def test_sample_bots_run_from_the_command_line(address: str) -> None:
    """Issue 3 (brief): each sample bot is "runnable as python -m ... with --address, --name/--token,
    --queue, --games"; it exits 0 after its games and prints the ranking of each."""
    processes = [
        await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            f"conquest_bots.{module}",
            f"--address={address}",
            f"--name=cli-{module}",
            "--queue=classic-2",
            "--games=1",
            "--log-level=warning",
            stdout=asyncio.subprocess.PIPE,
        )
        for module in ("strategist", "random_bot")
    ]
    outputs = await asyncio.wait_for(asyncio.gather(*(p.communicate() for p in processes)), 60)
    for process, (stdout, _) in zip(processes, outputs, strict=True):
        assert process.returncode == 0
        line = stdout.decode()
        assert line.startswith("game ") and "1. cli-" in line and "2. cli-" in line, line


async def test_stop_finishes_games_in_progress_then_closes(address: str) -> None:
    """Issue 3 (brief): "clean shutdown" — stop() leaves the queues, lets the game in progress finish
    and then returns, with no game left behind."""
    clients = [
        Client(StrategistBot(), address, name="py-stopping", queues=["classic-2"]),
        Client(RandomBot(5), address, name="py-other", queues=["classic-2"]),
    ]
    running = asyncio.gather(*(c.run() for c in clients))
    while not all(c.games for c in clients):
        await asyncio.sleep(0.01)
    for client in clients:
        client.stop()
    results = await asyncio.wait_for(running, 60)
    for client, overs in zip(clients, results, strict=True):
        assert len(overs) == 1 and not client.games
        check_ranking(overs[0], {"py-stopping", "py-other"})


class EventCounter(AggressiveBot):
    """Records every event the SDK tells it, in the order told, and when it was told between decisions."""

    def __init__(self, live_events: bool) -> None:
        super().__init__()
        self.live_events = live_events
        self.sequences: list[int] = []
        self.kinds: list[str] = []
        self.calls: list[str] = []

    def on_events(self, game: Game, events: Sequence[game_pb2.GameEvent]) -> None:
        self.sequences += [e.sequence for e in events]
        self.kinds += [e.WhichOneof("kind") for e in events]
        self.calls.append("told")

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        self.calls.append("asked")
        return super().decide(game, turn)


@pytest.mark.parametrize("live", [False, True], ids=["events with requests", "live events"])
async def test_sdk_tells_every_event_once_in_order(address: str, live: bool) -> None:
    """bot.proto: a DecisionRequest carries "the game's public events since the last ones you were sent";
    the SDK tells them to ``Bot.on_events`` with those of GameEvents, so a bot sees each event once, in
    order, ending with the game's end. With ``Bot.live_events`` (Hello.live_events) it is also told "once
    per turn (when the turn passes to another player)", not only just before it decides."""
    bots = [EventCounter(live), EventCounter(live)]
    clients = [Client(b, address, name=f"ev-{i}", queues=["classic-2"], games=1) for i, b in enumerate(bots)]
    await play(clients)
    for bot in bots:
        assert bot.sequences == list(range(len(bot.sequences)))
        assert bot.kinds[-1] == "game_ended" and "rolled" in bot.kinds
        told_between = sum(
            1 for i, call in enumerate(bot.calls) if call == "told" and bot.calls[i + 1 : i + 2] != ["asked"]
        )
        if live:
            assert told_between > 3, bot.calls
        else:
            assert told_between == 1, bot.calls  # the last events, before GameOver


async def test_a_bot_alone_in_a_queue_logs_why_it_waits(
    address: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 23: "tried as a new user would, the bot connects and then waits forever, silently, because
    nobody else is in the queue ... a bot waiting in a queue should learn why it waits (how many seats
    are filled, how long it has waited), which the SDK logs" (the server's interval shortened here)."""
    monkeypatch.setattr(waiting, "QUEUE_STATUS_INTERVAL_S", 0.2)
    caplog.set_level(logging.INFO, logger="conquest_sdk")
    client = Client(RandomBot(3), address, name="lonely", queues=["classic-3"], games=1)
    lines = await logged_waits(client, "classic-3", caplog)
    assert "queue classic-3: joined; 1 of 3 seats filled, a game starts when 2 more bots join" in lines[0]
    waits = [line for line in lines if "waited" in line]
    assert len(waits) >= 2, lines
    assert all("1 of 3 seats filled" in line and "conquest practice" in line for line in waits)
