"""Issue 20, "No game lost when a replica dies": `conquest serve` with `server.takeover` on a database,
killed with SIGKILL mid-game; a new server on the same database takes its games over by replay, the bots
reconnect and resume their seats, every game finishes, its replay verifies and its result is recorded
once (real processes; PostgreSQL when CONQUEST_TEST_POSTGRES_URL is set, and SQLite)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import urllib.request
from pathlib import Path
from typing import Any

from serve_process import Serve, free_port

from conquest.v1 import game_pb2, r2210_pb2
from conquest.v1.bot_pb2 import GameOver
from conquest_bots.random_bot import RandomBot
from conquest_sdk import Client, Game, Turn, Turn2210
from server.cli.main import main
from server.play.replays import load_any_replay_file, load_replay_file, verify_record
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
shutdown_grace_ms = 0
takeover = true
replica_heartbeat_ms = 200
replica_timeout_ms = 1000

[queues.duel]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = 25 }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = 30000 }}

[queues.duel-2210]
rules = "2210"
players = 2
rules_options = {{ years = 3 }}
time_control = {{ decision_ms = 5000, reconnect_grace_ms = 30000 }}
"""
NAMES = ("ann", "bob", "cat", "dan")


class SlowRandom(RandomBot):
    """Random legal play, 15 ms a decision: a game lasts long enough to be killed in the middle."""

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        time.sleep(0.015)
        return super().decide(game, turn)

    def decide_2210(self, game: Game, turn: Turn2210) -> r2210_pb2.Action2210:
        time.sleep(0.015)
        return super().decide_2210(game, turn)


class Hesitant(SlowRandom):
    """SlowRandom that takes 2 s over its first decision: its first game plays no action for that long, ten
    heartbeats of the test's config."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.hesitated = False

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        if not self.hesitated:
            self.hesitated = True
            time.sleep(2.0)
        return super().decide(game, turn)


def _scrape(port: int) -> str:
    return urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()


async def _logged(url: str, games: int, actions: int, timeout: float) -> list[tuple[str, str, int, int]]:
    """The live games once ``games`` of them have at least ``actions`` actions in the log."""
    deadline = time.monotonic() + timeout
    with Store.open(url) as store:
        while time.monotonic() < deadline:
            live = store.live_games()
            if len(live) == games and all(logged >= actions for *_, logged in live):
                return live
            await asyncio.sleep(0.2)
    raise AssertionError(f"{games} games with {actions} logged actions never appeared: {live}")


async def _started(server: Serve, games: int, timeout: float) -> None:
    """Once ``server`` has logged ``game_started`` for ``games`` games."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if sum(r["event"] == "game_started" for r in server.records()) >= games:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{games} games never started: {server.log_path.read_text()}")


@dataclasses.dataclass
class KilledMidGame:
    """What ``kill_mid_game`` saw."""

    live: list[tuple[str, str, int, int]]
    """The live games (id, host, epoch, actions logged) as the first server was killed."""
    results: list[list[GameOver]]
    """Each bot's finished games."""
    clients: list[Client]
    dirs: list[Path]
    """The killed server's directory, then the second's."""
    records: list[dict[str, Any]]
    """The second server's log records."""
    scraped: str
    """The second server's metrics once every game finished."""


async def kill_mid_game(
    tmp_path: Path,
    db_url: str,
    names: tuple[str, ...],
    queue: str,
    games: int,
    actions: int,
    bot: type[SlowRandom] = SlowRandom,
) -> KilledMidGame:
    """Bots ``names`` (each a ``bot``) each play one game of ``queue`` on a server with takeover; once
    ``games`` games have ``actions`` actions logged (0: once they have started, as soon as the server logs
    it) it is killed with SIGKILL and a second server on the same database (and address) started, until
    every bot's game is over."""
    with Store.open(db_url, admin_token=ADMIN) as store:
        tokens = {name: store.register_bot(name, admin_token=ADMIN).token for name in names}
    port = free_port()
    dirs = [tmp_path / "a", tmp_path / "b"]
    for d in dirs:
        d.mkdir()
    metrics = free_port()
    configs = [
        CONFIG.format(port=port, metrics=m, replays=d / "replays", url=db_url, admin=ADMIN)
        for d, m in zip(dirs, (0, metrics), strict=True)
    ]
    first = Serve(dirs[0], configs[0])
    second: Serve | None = None
    clients = [
        Client(bot(i), f"127.0.0.1:{port}", token=tokens[n], queues=[queue], games=1, max_backoff_s=1.0)
        for i, n in enumerate(names)
    ]
    try:
        replica = (await first.serving())["replica"]
        playing = asyncio.gather(*(c.run() for c in clients))
        if actions:
            await _logged(db_url, games=games, actions=actions, timeout=60)
        else:
            await _started(first, games, timeout=60)
        first.process.kill()  # SIGKILL: no shutdown, nothing recorded
        first.process.wait(timeout=10)
        with Store.open(db_url) as store:
            live = store.live_games()
        assert {host for _, host, _, _ in live} == {replica}
        second = Serve(dirs[1], configs[1])
        await second.serving()
        results = await asyncio.wait_for(playing, 120)
        scraped = await asyncio.to_thread(_scrape, metrics)
    finally:
        if first.process.poll() is None:
            first.process.kill()
        if second is not None:
            assert second.stop(timeout=30) == 0
    return KilledMidGame(live, results, clients, dirs, second.records(), scraped)


async def test_games_of_a_server_killed_mid_game_are_taken_over_and_finish_once(
    tmp_path: Path, db_url: str
) -> None:
    """ "when a replica is killed (SIGKILL, not only SIGTERM), every game it hosted is taken over by another
    replica, rebuilt by replay, and finished; bots reconnect and resume their seats with the existing
    resume mechanism" and "Each game's result, rating update and replay are recorded once"."""
    run = await kill_mid_game(tmp_path, db_url, NAMES, "duel", games=2, actions=30)
    results, clients, dirs, scraped = run.results, run.clients, run.dirs, run.scraped

    assert all(len(overs) == 1 for overs in results), "every bot's game finished"
    assert all(c.reconnects >= 1 for c in clients), "every bot reconnected to the new server"
    game_ids = {overs[0].game_id for overs in results}
    assert game_ids == {game_id for game_id, *_ in run.live}
    taken = [r for r in run.records if r["event"] == "game_taken_over"]
    assert sorted(r["game_id"] for r in taken) == sorted(game_ids)
    assert all(r["epoch"] == 2 for r in taken)
    assert "conquest_games_taken_over_total 2.0" in scraped
    assert "conquest_replicas_alive 1.0" in scraped, "the killed server is presumed dead, the new one alive"
    with Store.open(db_url) as store:
        games = store.games()
        assert sorted(g.id for g in games) == sorted(game_ids), "each result recorded once"
        assert all(g.rated and g.reason in ("conquest", "turn_cap") for g in games)
        assert {s.bot: s.games for s in store.leaderboard("duel")} == dict.fromkeys(NAMES, 1)
        assert store.live_games() == []
        for game_id in game_ids:
            stored = store.replay(game_id)
            assert len(stored.reseeds) == 1 and stored.reseeds[0].at >= 30
    for game_id in game_ids:
        path = dirs[1] / "replays" / f"{game_id}.json"
        replay, data = load_replay_file(path)
        verify_record(replay, data)  # the seed commitments, the fresh seed's included
        assert data["format"] == 2
        assert main(["replay", "verify", str(path)]) == 0
        assert not (dirs[0] / "replays" / f"{game_id}.json").exists(), "the killed server recorded nothing"


async def test_a_game_killed_as_it_starts_is_taken_over_from_its_record_alone_and_finishes_once(
    tmp_path: Path, db_url: str
) -> None:
    """ "a game's record ... is in the database before the game sends its first request, so that a game
    killed at any moment after its start is taken over (rebuilt from however many actions were logged, zero
    included, continued with a fresh committed seed)": the server is killed with SIGKILL as soon as it logs
    ``game_started``, while its bots hesitate over their first answer (no heartbeat could log an action);
    the second server takes the game over at 0 actions and finishes it once, its replay verifying with the
    fresh seed at action 0, its result recorded and ratings changed once."""
    names = NAMES[:2]
    run = await kill_mid_game(tmp_path, db_url, names, "duel", games=1, actions=0, bot=Hesitant)

    ((game_id, _, epoch, logged),) = run.live
    assert (epoch, logged) == (1, 0), "its record alone was in the database at the kill"
    assert [[over.game_id for over in overs] for overs in run.results] == [[game_id]] * 2, "finished for both"
    assert all(c.reconnects >= 1 for c in run.clients), "both bots reconnected to the new server"
    taken = [r for r in run.records if r["event"] == "game_taken_over"]
    assert [(r["game_id"], r["epoch"], r["actions"]) for r in taken] == [(game_id, 2, 0)]
    with Store.open(db_url) as store:
        (game,) = store.games()
        assert game.id == game_id and game.rated and game.reason in ("conquest", "turn_cap")
        assert {s.bot: s.games for s in store.leaderboard("duel")} == dict.fromkeys(names, 1)
        assert store.live_games() == []
        assert [r.at for r in store.replay(game_id).reseeds] == [0]
    path = run.dirs[1] / "replays" / f"{game_id}.json"
    replay, data = load_replay_file(path)
    verify_record(replay, data)  # the seed commitments, the fresh seed's included
    assert main(["replay", "verify", str(path)]) == 0
    assert not (run.dirs[0] / "replays" / f"{game_id}.json").exists(), "the killed server recorded nothing"


async def test_a_2210_game_of_a_server_killed_mid_game_is_taken_over_and_finishes_once(
    tmp_path: Path, db_url: str
) -> None:
    """RISK 2210 A.D. too: "when a replica is killed (SIGKILL, not only SIGTERM), every game it hosted is
    taken over by another replica, rebuilt by replay, and finished" with "a fresh committed seed for the
    rest of the game, recorded in the replay so it still verifies", and "Each game's result, rating update
    and replay are recorded once"."""
    names = NAMES[:2]
    run = await kill_mid_game(tmp_path, db_url, names, "duel-2210", games=1, actions=60)

    ((game_id, *_),) = run.live
    assert [[over.game_id for over in overs] for overs in run.results] == [[game_id]] * 2, "finished for both"
    assert all(c.reconnects >= 1 for c in run.clients), "both bots reconnected to the new server"
    taken = [r for r in run.records if r["event"] == "game_taken_over"]
    assert [(r["game_id"], r["epoch"], r["queue"]) for r in taken] == [(game_id, 2, "duel-2210")]
    with Store.open(db_url) as store:
        (game,) = store.games()
        assert game.id == game_id and game.rated and game.reason in ("year_5", "conquest")
        assert {s.bot: s.games for s in store.leaderboard("duel-2210")} == dict.fromkeys(names, 1)
        assert store.live_games() == []
        stored = store.replay(game_id)
        assert len(stored.reseeds) == 1 and stored.reseeds[0].at >= 60
    path = run.dirs[1] / "replays" / f"{game_id}.json"
    replay, data = load_any_replay_file(path)
    verify_record(replay, data)  # the seed commitments, the fresh seed's included
    assert data["format"] == 2 and data["game"] == "2210"
    assert main(["replay", "verify", str(path)]) == 0
    assert not (run.dirs[0] / "replays" / f"{game_id}.json").exists(), "the killed server recorded nothing"
