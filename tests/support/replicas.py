"""Replicas in cluster mode for issue 20's tests: real `conquest serve` processes on one PostgreSQL, and
what the tests ask of them (a game's host, the lease holder, each result recorded once)."""

from __future__ import annotations

import asyncio
import os
import re
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from serve_process import Serve, free_port

from conquest.v1 import arena_pb2, arena_pb2_grpc, game_pb2, r2210_pb2
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client, Game, Turn, Turn2210
from server.cli.main import main
from server.play.replays import load_any_replay_file, verify_record
from server.storage import Store

ADMIN = "admin-secret"
CONFIG = """
[server]
address = "127.0.0.1:{port}"
log_format = "json"
metrics_port = {metrics}
replay_dir = "{replays}"
database_url = "{url}"
admin_token = "{admin}"
shutdown_grace_ms = {grace_ms}
cluster = true
cluster_token = "cluster-secret"
advertise_host = "127.0.0.1"
replica_heartbeat_ms = 200
replica_timeout_ms = 1000

[queues.trio]
rules = "classic"
players = 3
rules_options = {{ turn_cap = {turn_cap} }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = {reconnect_grace_ms} }}

[queues.trio-2210]
rules = "2210"
players = 3
rules_options = {{ years = 2 }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = {reconnect_grace_ms} }}
"""
NAMES = ("ann", "bob", "cat")
ON_POSTGRESQL = os.environ.get("CONQUEST_TEST_POSTGRES_URL") or os.environ.get("CI", "").lower() in (
    "true",
    "1",
)
postgresql_only = pytest.mark.parametrize("db_url", ["postgresql"] if ON_POSTGRESQL else [], indirect=True)
"""A cluster needs PostgreSQL (the server refuses SQLite): these run where the storage tests run on it."""


class SlowRandom(RandomBot):
    """Random legal play, ``delay_s`` a decision: a game lasts long enough to be killed in the middle.
    ``first_delay_s``: the bot's first decision (of all its games) takes that long instead, so that its
    first game can be caught before any action."""

    def __init__(self, seed: int, delay_s: float = 0.0, first_delay_s: float = 0.0) -> None:
        super().__init__(seed)
        self.delay_s = delay_s
        self.first_delay_s = first_delay_s

    def _wait(self) -> None:
        time.sleep(self.first_delay_s or self.delay_s)
        self.first_delay_s = 0.0

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        self._wait()
        return super().decide(game, turn)

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        self._wait()
        return super().decide_2210(game, turn)


class Replicas:
    """``count`` replicas in cluster mode, each with its own bot port, metrics port and replay dir."""

    def __init__(
        self,
        tmp_path: Path,
        db_url: str,
        count: int,
        turn_cap: int = 12,
        grace_ms: int = 0,
        reconnect_grace_ms: int = 30000,
    ) -> None:
        self.tmp_path = tmp_path
        self.db_url = db_url
        self.turn_cap = turn_cap
        self.grace_ms = grace_ms
        self.reconnect_grace_ms = reconnect_grace_ms
        self.ports = [free_port() for _ in range(count)]
        self.metrics = [free_port() for _ in range(count)]
        self.servers = [self.start(i) for i in range(count)]

    def start(self, index: int, name: str = "") -> Serve:
        where = self.tmp_path / (name or f"r{index}")
        where.mkdir()
        config = CONFIG.format(
            port=self.ports[index],
            metrics=self.metrics[index],
            replays=where / "replays",
            url=self.db_url,
            admin=ADMIN,
            turn_cap=self.turn_cap,
            grace_ms=self.grace_ms,
            reconnect_grace_ms=self.reconnect_grace_ms,
        )
        return Serve(where, config)

    async def serving(self) -> list[str]:
        return [(await s.serving())["replica"] for s in self.servers]

    async def seeing_each_other(self, timeout: float = 30) -> None:
        """Until every replica's cluster view (its last heartbeat) has every replica alive: from then on the
        matchmaker places a game where most of its seats are (a replica it has not seen yet is left out)."""
        deadline = time.monotonic() + timeout
        for index in range(len(self.ports)):
            async with grpc.aio.insecure_channel(self.address(index)) as channel:
                arena = arena_pb2_grpc.ArenaServiceStub(channel)
                while True:
                    listed = await arena.ListLiveGames(arena_pb2.ListLiveGamesRequest())
                    if sum(r.alive for r in listed.replicas) == len(self.ports):
                        break
                    assert time.monotonic() < deadline, f"replica {index} sees {listed.replicas}"
                    await asyncio.sleep(0.1)

    def address(self, index: int) -> str:
        return f"127.0.0.1:{self.ports[index]}"

    def scrape(self, index: int) -> str:
        return (
            urllib.request.urlopen(f"http://127.0.0.1:{self.metrics[index]}/metrics", timeout=5)
            .read()
            .decode()
        )

    def stop(self) -> None:
        for server in self.servers:
            if server.process.poll() is None:
                assert server.stop(timeout=30) == 0, server.log_path.read_text()[-3000:]


def play_trio(
    replicas: Replicas,
    tokens: dict[str, str],
    delay_s: float,
    queue: str = "trio",
    first_delay_s: float = 0.0,
    on: Sequence[int] = (0, 1, 2),
) -> asyncio.Future[list[Any]]:
    """One game of ``queue`` for each bot of ``tokens`` (in order), the i-th connected to replica ``on[i]``
    (reconnecting there within half a second), ``delay_s`` a decision (``first_delay_s`` the first): their
    clients' runs, gathered."""
    clients = [
        Client(
            SlowRandom(i, delay_s, first_delay_s),
            replicas.address(replica),
            token=token,
            queues=[queue],
            games=1,
            max_backoff_s=0.5,
        )
        for i, (token, replica) in enumerate(zip(tokens.values(), on, strict=True))
    ]
    return asyncio.gather(*(c.run() for c in clients))


async def kill_and_restart(replicas: Replicas, index: int) -> None:
    """SIGKILL replica ``index`` (nothing recorded, nothing said) and start another on its address, where
    its bots reconnect (as a load balancer would send them)."""
    replicas.servers[index].process.kill()
    await asyncio.to_thread(replicas.servers[index].process.wait, 10)
    replicas.servers.append(replicas.start(index, "restarted"))


def metric(text: str, name: str) -> float:
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def register(db_url: str) -> dict[str, str]:
    with Store.open(db_url, admin_token=ADMIN) as store:
        return {name: store.register_bot(name, admin_token=ADMIN).token for name in NAMES}


def check_recorded(
    db_url: str, game_ids: set[str], replay_dirs: list[Path], games_each: int, queue: str = "trio"
) -> None:
    """Each game's result recorded once, ratings changed once per game (on ``queue``'s ladder), the replay
    file verifies."""
    with Store.open(db_url) as store:
        games = store.games()
        assert sorted(g.id for g in games) == sorted(game_ids), "each result recorded once"
        assert all(g.rated for g in games)
        assert {s.bot: s.games for s in store.leaderboard(queue)} == dict.fromkeys(NAMES, games_each)
        assert store.live_games() == []
    for game_id in game_ids:
        paths = [d / f"{game_id}.json" for d in replay_dirs if (d / f"{game_id}.json").exists()]
        assert len(paths) == 1, f"game {game_id} has one replay file, by the replica that finished it"
        replay, data = load_any_replay_file(paths[0])
        verify_record(replay, data)
        assert main(["replay", "verify", str(paths[0])]) == 0


async def lease_holder(replicas: Replicas, timeout: float) -> int:
    """The index of the replica whose metrics say it holds the matchmaker lease."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for index, server in enumerate(replicas.servers):
            if server.process.poll() is None:
                text = await asyncio.to_thread(replicas.scrape, index)
                if metric(text, "conquest_lease_holder") == 1:
                    return index
        await asyncio.sleep(0.2)
    raise AssertionError("no replica took the matchmaker lease")


async def hosted(url: str, actions: int, timeout: float) -> tuple[str, str]:
    """The one running game (id, host replica) once it has ``actions`` logged actions."""
    deadline = time.monotonic() + timeout
    with Store.open(url) as store:
        while time.monotonic() < deadline:
            live = store.live_games()
            if len(live) == 1 and live[0][3] >= actions:
                return live[0][0], live[0][1]
            await asyncio.sleep(0.1)
    raise AssertionError(f"no game with {actions} logged actions appeared")


@dataclass
class MidGame:
    """A trio game playing across three replicas (a bot on each), ``actions`` into it."""

    playing: asyncio.Future[list[Any]]
    """Its clients' runs."""
    game_id: str
    host: str
    """The replica hosting it."""
    host_index: int
    other: int
    """The index of a replica that does not host it."""


async def mid_game(replicas: Replicas, tokens: dict[str, str], actions: int = 30) -> MidGame:
    """Start ``replicas`` (three) and a trio game of ``tokens``' bots on them; once ``actions`` of it are
    logged: where it plays."""
    ids = await replicas.serving()
    playing = play_trio(replicas, tokens, 0.01)
    game_id, host = await hosted(replicas.db_url, actions=actions, timeout=60)
    index = ids.index(host)
    return MidGame(playing, game_id, host, index, next(i for i in range(3) if i != index))


def records_of_log(server: Serve) -> list[dict[str, object]]:
    return server.records() if server.log_path.exists() else []


async def listed_with_host(
    arena: arena_pb2_grpc.ArenaServiceStub, game_id: str, timeout: float
) -> arena_pb2.ListLiveGamesResponse:
    """ListLiveGames once it lists ``game_id`` and its host's load (another replica's game: at this
    replica's next heartbeat, the host's load once the host published it at its own)."""
    deadline = time.monotonic() + timeout
    while True:
        listed = await arena.ListLiveGames(arena_pb2.ListLiveGamesRequest())
        seen = any(g.game_id == game_id for g in listed.games) and sum(r.games for r in listed.replicas)
        if seen or time.monotonic() > deadline:
            return listed
        await asyncio.sleep(0.1)


async def counted(
    address: str, enough: Callable[[arena_pb2.ListLiveGamesResponse], bool], timeout: float
) -> arena_pb2.ListLiveGamesResponse:
    """ListLiveGames of the replica at ``address`` once ``enough`` of it (the counts reach the registry
    at each replica's next heartbeat, and this replica's view at its own), or at ``timeout``."""
    deadline = time.monotonic() + timeout
    async with grpc.aio.insecure_channel(address) as channel:
        arena = arena_pb2_grpc.ArenaServiceStub(channel)
        while True:
            listed = await arena.ListLiveGames(arena_pb2.ListLiveGamesRequest())
            if enough(listed) or time.monotonic() > deadline:
                return listed
            await asyncio.sleep(0.1)
