"""Faults (issue 21): a `conquest serve` killed mid-game, and a database that stops taking results.

Issue 21: "Nothing finished is ever lost: a result that cannot be written is retried and kept durably
until it is (the replay file can be that record, reconciled at start); while the database is unavailable
the server says so in health and metrics and stops seating games. A game live at a crash is visible
afterwards as aborted."

Real processes, as operators run them: ``Serve`` (tests/server/test_server_lifecycle.py) starts
``conquest serve`` with a config file and reads its JSON log.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import urllib.request
from pathlib import Path

import grpc
import structlog.testing
from chaos import CONFIG as SERVER
from db_lock import locked, locker
from grpc_health.v1 import health_pb2, health_pb2_grpc
from live_server import serving
from raw_client import RawBot
from recorded_games import FlakyDatabase, finished_record
from serve_process import Serve, free_port
from server_support import short_queues

from conquest.v1 import arena_pb2, arena_pb2_grpc
from engine.codec import encode_action
from engine.replay import Replay
from server.cli.main import main
from server.play.recorder import Recorder
from server.play.replays import DirectoryReplayWriter
from server.play.results import result_to_dict
from server.records import DatabaseUnavailable, GameResult
from server.storage import Store

ADMIN = "admin-secret"
DUEL = """
[queues.duel]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = {turn_cap} }}
time_control = {{ decision_ms = 20000 }}
"""


def _config(tmp_path: Path, turn_cap: int, metrics_port: int = 0) -> str:
    """``conquest serve``'s settings as the chaos suite's servers have them, with one duel queue."""
    replays, database = tmp_path / "replays", tmp_path / "conquest.sqlite3"
    server = SERVER.format(
        metrics_port=metrics_port, replays=replays, database=database, admin=ADMIN, grace_ms=0
    )
    return server + DUEL.format(turn_cap=turn_cap)


async def _answer(bot: RawBot, rng: random.Random, budget: dict[str, int]) -> None:
    """Answer DecisionRequests at random while the shared budget of answers lasts."""
    while budget["left"] > 0:
        message = await bot.next(timeout=30)
        if message.WhichOneof("message") == "decision_request":
            budget["left"] -= 1
            bot.answer_randomly(message.decision_request, rng)


async def test_a_game_live_at_kill_9_is_listed_aborted_after_a_restart_and_its_replay_verifies(
    tmp_path: Path, capsys
):
    """Issue 21, item 16: "Games live at a `kill -9` vanish: not in ListGames, the games table or the
    replay folder." Goal: "A game live at a crash is visible afterwards as aborted"."""
    replays = tmp_path / "replays"
    first = Serve(tmp_path, _config(tmp_path, turn_cap=400))
    bots: list[RawBot] = []
    answered = 40
    try:
        port = (await first.serving())["port"]
        bots = [RawBot(port), RawBot(port)]
        for name, bot in zip(("ann", "bob"), bots, strict=True):
            await bot.hello(name)
            await bot.join("duel")
        game_id = {(await bot.expect("game_started")).game_started.game_id for bot in bots}.pop()
        budget = {"left": answered}
        plays = [asyncio.create_task(_answer(b, random.Random(i), budget)) for i, b in enumerate(bots)]
        await asyncio.wait(plays, return_when=asyncio.FIRST_COMPLETED)
        await asyncio.sleep(2.5)  # the running game's record is appended to every second
        first.process.kill()  # SIGKILL: no shutdown, no recording
        first.process.wait(timeout=10)
        for play in plays:
            play.cancel()
    finally:
        for bot in bots:
            await bot.close()
    assert not (replays / f"{game_id}.json").exists(), "the killed server wrote no replay file"

    second_dir = tmp_path / "second"
    second_dir.mkdir()
    second = Serve(second_dir, _config(tmp_path, turn_cap=400))
    try:
        port = (await second.serving())["port"]
        async with grpc.aio.insecure_channel(f"localhost:{port}") as channel:
            arena = arena_pb2_grpc.ArenaServiceStub(channel)
            for _ in range(100):  # the pending result is written by the recorder's task, just after start
                games = (await arena.ListGames(arena_pb2.ListGamesRequest())).games
                if games:
                    break
                await asyncio.sleep(0.1)
    finally:
        assert second.stop(timeout=20) == 0

    assert [g.game_id for g in games] == [game_id], "the game is listed once after the restart"
    game = games[0]
    assert (game.reason, game.rated) == ("aborted", False)
    assert [s.name for s in game.seats] == ["ann", "bob"] or [s.name for s in game.seats] == ["bob", "ann"]
    assert not (replays / f"{game_id}.live").exists(), "the live record became the aborted game's replay"
    path = replays / f"{game_id}.json"
    data = json.loads(path.read_text())
    assert data["reason"] == "aborted" and data["rated"] is False
    assert len(Replay.from_dict(data).actions) >= answered, "the actions played before the kill are kept"
    assert main(["replay", "verify", str(path)]) == 0
    assert "OK " in capsys.readouterr().out
    assert "game_aborted" in {r["event"] for r in second.records()}


def _metric(port: int, name: str) -> float:
    text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5).read().decode()
    values = [float(line.split()[1]) for line in text.splitlines() if line.startswith(name + " ")]
    assert values, f"no metric {name} in /metrics"
    return values[0]


async def test_results_written_while_sqlite_is_locked_are_kept_and_recorded_once_when_it_frees(
    tmp_path: Path,
):
    """Issue 21, item 17: "A SQLite database locked by another process for 40 s stalled the ladder and
    lost 2 finished games for good (`database is locked` on `BEGIN IMMEDIATE`): their replay files exist,
    but they have no row and changed no rating." Goal: "a result that cannot be written is retried and kept
    durably until it is ...; while the database is unavailable the server says so in health and metrics
    and stops seating games"."""
    database = tmp_path / "conquest.sqlite3"
    with Store.open(f"sqlite:///{database}", admin_token=ADMIN) as store:
        tokens = {name: store.register_bot(name, admin_token=ADMIN).token for name in ("ann", "bob")}
    metrics_port = free_port()
    serve = Serve(tmp_path, _config(tmp_path, turn_cap=2, metrics_port=metrics_port))
    bots: list[RawBot] = []
    holder: subprocess.Popen[str] | None = None
    try:
        port = (await serve.serving())["port"]
        channel = grpc.aio.insecure_channel(f"localhost:{port}")
        health, check = health_pb2_grpc.HealthStub(channel), health_pb2.HealthCheckRequest(service="")
        await _until(health, check, health_pb2.HealthCheckResponse.SERVING)
        assert _metric(metrics_port, "conquest_database_up") == 1
        bots = [RawBot(port), RawBot(port)]
        for name, bot in bots_named(bots):
            assert (await bot.hello(name, token=tokens[name])).WhichOneof("message") == "welcome"

        holder = locker(str(database))
        for _, bot in bots_named(bots):
            await bot.join("duel")  # every game they can: a second one starts only once the lock is gone
        overs = await asyncio.gather(
            *(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots))
        )  # told once the write was tried (SQLite waits out its 5 s busy timeout)
        first_game = overs[0].game_id
        await _until(health, check, health_pb2.HealthCheckResponse.NOT_SERVING)
        assert _metric(metrics_port, "conquest_database_up") == 0
        assert _metric(metrics_port, "conquest_results_pending") == 1
        assert (tmp_path / "replays" / f"{first_game}.pending").exists(), "kept durably beside its replay"
        await asyncio.sleep(2.0)  # long enough for a new game to be seated, were seating not paused
        events = [r["event"] for r in serve.records()]
        assert events.count("game_started") == 1, "no new game is seated while the database is down"
        assert "database_unavailable" in events and "seating_paused" in events, "a log line says why"

        holder.stdin.close()  # type: ignore[union-attr]
        holder.wait(timeout=10)
        second = [(await bot.expect("game_started", timeout=60)).game_started.game_id for bot in bots]
        assert second[0] == second[1] != first_game, "seating resumed once the database took the result"
        await _until(health, check, health_pb2.HealthCheckResponse.SERVING)
        assert _metric(metrics_port, "conquest_database_up") == 1
        assert _metric(metrics_port, "conquest_results_pending") == 0
        await channel.close()
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
        for bot in bots:
            await bot.close()
        assert serve.stop(timeout=30) == 0

    with Store.open(f"sqlite:///{database}") as store:
        recorded = [g.id for g in store.games(queue="duel")]
        assert sorted(recorded) == sorted({first_game, second[0]}), "every game recorded, once"
        for name in ("ann", "bob"):
            changes = [c.game_id for c in store.rating_history(name, "duel")]
            assert sorted(changes) == sorted(recorded), f"{name}'s rating moved once per game"
    assert not list((tmp_path / "replays").glob("*.pending")), "no result is left pending"


async def _until(
    health: health_pb2_grpc.HealthStub, check: health_pb2.HealthCheckRequest, status: int
) -> None:
    """Wait for the overall health ``status`` (a bound for a loaded machine, not a measurement)."""
    for _ in range(600):
        if (await health.Check(check)).status == status:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"health never became {health_pb2.HealthCheckResponse.ServingStatus.Name(status)}")


async def _each_service(health: health_pb2_grpc.HealthStub, status: int) -> None:
    """Issue 23: "Register each [service in health], and report `NOT_SERVING` while draining or while the
    database is unavailable": each service's status is the overall one."""
    for service in ("conquest.v1.BotService", "conquest.v1.ArenaService"):
        reply = await health.Check(health_pb2.HealthCheckRequest(service=service))
        assert reply.status == status, service


def bots_named(bots: list[RawBot]) -> list[tuple[str, RawBot]]:
    return list(zip(("ann", "bob"), bots, strict=True))


async def test_a_pending_result_the_database_already_has_is_not_recorded_twice_at_start(tmp_path: Path):
    """Issue 21: "a result that cannot be written is retried and kept durably until it is (the replay file
    can be that record, reconciled at start)"; decided: "every replay file without a row is recorded,
    exactly once". A crash after the database committed a game but before its ``.pending`` file was
    removed leaves both: the start must clear the file and rate nothing again."""
    replays = tmp_path / "replays"
    url = f"sqlite:///{tmp_path / 'conquest.sqlite3'}"
    queues = short_queues()
    async with serving(queues, replays, database_url=url, admin_token=ADMIN) as server:
        assert server.store is not None
        tokens = [server.store.register_bot(n, admin_token=ADMIN).token for n in ("ann", "bob")]
        bots = [server.bot(), server.bot()]
        for name, bot, token in zip(("ann", "bob"), bots, tokens, strict=True):
            await bot.hello(name, token=token)
            await bot.join("classic-2", games=1)
        over = (await asyncio.gather(*(b.play_until_over(random.Random(i)) for i, b in enumerate(bots))))[0]
        game = server.store.game(over.game_id)
    result = GameResult(
        game.queue, game.seats, game.seed_commitment, game.started_at, game.finished_at, game.turns,
        game.reason, game.rated,
    )  # fmt: skip
    marker = replays / f"{over.game_id}.pending"
    assert not marker.exists(), "recorded: nothing pending"
    marker.write_text(json.dumps(result_to_dict(result)))  # as a crash just after the commit leaves it

    async with serving(queues, replays, database_url=url, admin_token=ADMIN) as server:
        assert server.store is not None
        for _ in range(100):
            if not marker.exists():
                break
            await asyncio.sleep(0.05)
        assert not marker.exists(), "the start reconciled the pending result"
        assert [g.id for g in server.store.games()] == [over.game_id]
        for name in ("ann", "bob"):
            assert len(server.store.rating_history(name, "classic-2")) == 1, "rated once"


def test_a_replay_file_reusing_the_actions_encoded_while_the_game_ran_is_byte_for_byte_the_same(
    tmp_path: Path,
):
    """Issue 21 (decided): "nothing per decision that touches the disk synchronously on the event loop; if
    you append actions, batch them off the loop ... (must stay within ~2%)". The actions a running game's
    record encoded are put in its replay file as they are (each encoded once): that file must be the one
    encoding them at the end writes."""
    record = finished_record("g1")
    replay = record.replay
    whole = Path(DirectoryReplayWriter(tmp_path / "whole").write(record)).read_bytes()
    half = len(replay.actions) // 2
    parts = (replay.actions[:half], replay.actions[half:])
    pieces = [json.dumps([encode_action(a) for a in part], separators=(",", ":"))[1:-1] for part in parts]
    reused = DirectoryReplayWriter(tmp_path / "reused").write(record, "[" + ",".join(pieces) + "]")
    assert Path(reused).read_bytes() == whole


async def test_while_the_database_is_locked_no_game_is_seated_and_its_results_wait_then_are_recorded_once(
    tmp_path: Path, db_url: str
):
    """Issue 21: "while the database is unavailable the server says so in health and metrics and stops
    seating games"; decided: "same for PostgreSQL where cheap (e.g. lock the table)". In process, on each
    database: the games table locked while a game ends."""
    replays = tmp_path / "replays"
    async with serving(short_queues(), replays, database_url=db_url, admin_token=ADMIN) as server:
        assert server.store is not None
        metrics = server.lobby.metrics.registry
        tokens = [server.store.register_bot(n, admin_token=ADMIN).token for n in ("ann", "bob")]
        bots = [server.bot(), server.bot()]
        for name, bot, token in zip(("ann", "bob"), bots, tokens, strict=True):
            await bot.hello(name, token=token)
        async with grpc.aio.insecure_channel(server.address) as channel:
            health, check = health_pb2_grpc.HealthStub(channel), health_pb2.HealthCheckRequest(service="")
            with locked(db_url):
                for bot in bots:
                    await bot.join("classic-2", games=2)
                plays = (bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots))
                over = (await asyncio.gather(*plays))[0]
                await _until(health, check, health_pb2.HealthCheckResponse.NOT_SERVING)
                await _each_service(health, health_pb2.HealthCheckResponse.NOT_SERVING)
                assert metrics.get_sample_value("conquest_database_up") == 0
                assert server.lobby.paused and not server.lobby.runners, "bots wait in the queue, unseated"
            second = [(await bot.expect("game_started", timeout=60)).game_started.game_id for bot in bots]
            await _until(health, check, health_pb2.HealthCheckResponse.SERVING)
            await _each_service(health, health_pb2.HealthCheckResponse.SERVING)
        assert metrics.get_sample_value("conquest_database_up") == 1
        assert second[0] == second[1] != over.game_id
        assert [g.id for g in server.store.games()] == [over.game_id], "recorded once, after the lock"
        for name in ("ann", "bob"):
            assert [c.game_id for c in server.store.rating_history(name, "classic-2")] == [over.game_id]


async def test_the_recorder_goes_down_on_a_refused_write_and_up_on_the_first_retry_that_is_taken(
    tmp_path: Path,
):
    """Issue 21: "a result that cannot be written is retried and kept durably until it is"; decided:
    "When it is back, all three recover and pending results are written"."""
    database = FlakyDatabase(refusals=3)
    recorder = Recorder(tmp_path, database)
    changes: list[bool] = []

    async def changed(up: bool) -> None:
        changes.append(up)

    task = asyncio.create_task(recorder.run(changed))
    with structlog.testing.capture_logs() as logged:
        record = finished_record("g1")
        assert "pending" in await asyncio.to_thread(recorder.write, record)
        assert recorder.pending() == ["g1"] and (tmp_path / "g1.pending").exists()
        for _ in range(400):  # three refusals then a success, retried after 0.5, 1 and 2 s
            if changes == [False, True]:
                break
            await asyncio.sleep(0.05)
    task.cancel()
    assert changes == [False, True], "down once, then up once"
    assert [e["event"] for e in logged if e["log_level"] in ("warning", "error")] == ["database_unavailable"]
    assert [e["game_id"] for e in logged if e["event"] == "pending_result_recorded"] == ["g1"]
    assert database.recorded == ["g1"] and recorder.pending() == [] and recorder.up
    assert not (tmp_path / "g1.pending").exists()


class _GoneDatabase(FlakyDatabase):
    """A database that cannot be reached (``check`` fails) while ``gone`` is set, writes or not."""

    def __init__(self) -> None:
        super().__init__(refusals=0)
        self.gone = False

    def check(self) -> None:
        if self.gone:
            raise DatabaseUnavailable("the SQLite database file conquest.sqlite3 is missing")


async def test_the_recorder_reports_a_database_gone_between_games_and_back_again(tmp_path: Path):
    """Issue 21: "while the database is unavailable the server says so in health and metrics and stops
    seating games"; decided: a database removed or stopped is reported within ``PROBE_S`` even when no game
    ends (a write would find it only at the next game's end)."""
    database = _GoneDatabase()
    recorder = Recorder(tmp_path, database)
    changes: list[bool] = []
    downs: list[str] = []
    recorder.on_down = downs.append

    async def changed(up: bool) -> None:
        changes.append(up)

    task = asyncio.create_task(recorder.run(changed))
    try:
        database.gone = True
        for _ in range(200):  # within PROBE_S (2 s) and a flush
            if changes:
                break
            await asyncio.sleep(0.05)
        assert changes == [False] and not recorder.up
        assert len(downs) == 1 and "the SQLite database file conquest.sqlite3 is missing" in downs[0], (
            "seating paused at once, saying why"
        )
        assert recorder.metrics.registry.get_sample_value("conquest_database_up") == 0
        database.gone = False
        for _ in range(200):
            if len(changes) == 2:
                break
            await asyncio.sleep(0.05)
        assert changes == [False, True] and recorder.up
        assert recorder.metrics.registry.get_sample_value("conquest_database_up") == 1
    finally:
        task.cancel()
