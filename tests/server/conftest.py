"""A real server on port 0 per test, with short deadlines and small turn caps so games finish fast."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from raw_client import RawBot

from engine import preset
from server.app import create_server
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.play.replays import DirectoryReplayWriter

FAST = TimeControl(
    decision_ms=2000,
    first_decision_ms=2000,
    initial_timebank_ms=0,
    increment_ms=0,
    max_timebank_ms=0,
    max_strikes=3,
    reconnect_grace_ms=5000,
)


def test_queues(control: TimeControl = FAST) -> tuple[QueueConfig, ...]:
    return (
        QueueConfig("classic-3", preset("classic", turn_cap=12), 3, control),
        QueueConfig("classic-2", preset("classic_two_player", turn_cap=12), 2, control),
        QueueConfig("classic-long-3", preset("classic", turn_cap=40), 3, control),
    )


@dataclasses.dataclass
class Running:
    port: int
    lobby: Lobby
    replay_dir: Path
    bots: list[RawBot]

    def bot(self) -> RawBot:
        bot = RawBot(self.port)
        self.bots.append(bot)
        return bot


@pytest.fixture
async def start_server(tmp_path: Path) -> AsyncIterator[Callable[..., object]]:
    """``await start_server(control=...)`` -> Running; stopped (with its bots) after the test."""
    servers = []
    running: list[Running] = []

    async def start(control: TimeControl = FAST) -> Running:
        config = ServerConfig(replay_dir=tmp_path / "replays", queues=test_queues(control))
        lobby = Lobby(config, DirectoryReplayWriter(config.replay_dir))
        server, port = create_server(config, "localhost:0", lobby)
        await server.start()
        servers.append(server)
        running.append(Running(port, lobby, config.replay_dir, []))
        return running[-1]

    yield start
    for r in running:
        for bot in r.bots:
            await bot.close()
        await r.lobby.shutdown(0)
    for server in servers:
        await server.stop(grace=None)
