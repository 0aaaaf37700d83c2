"""`conquest serve` as operators run it: a subprocess with a config file, read through its JSON log.

Issue 6: logs ("structlog, JSON in production ... bound with game id, bot, queue and request id; no tokens
or hidden game information in logs"), health and lifecycle ("gRPC health serving status flips to
NOT_SERVING while draining; SIGTERM drains (no new games, in-flight games finish or are recorded) within
a configurable grace time") and the settings' precedence.
"""

from __future__ import annotations

import asyncio
import json
import random
import signal
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from raw_client import RawBot
from serve_process import Serve, free_port

from engine import Claim
from server.cli.main import main

FORBIDDEN_KEYS = {"seed", "token", "hand", "hands", "cards", "deck"}
"""Keys that would carry a secret or hidden game information."""


async def test_settings_come_from_defaults_file_environment_then_flags(tmp_path: Path):
    """docs/configuration.md, "Precedence": the file, then CONQUEST_* variables, then flags."""
    metrics_port = free_port()
    serve = Serve(
        tmp_path,
        '[server]\naddress = "127.0.0.1:1"\nlog_format = "console"\nmetrics_port = 0\n',
        env={
            "CONQUEST_SERVER_LOG_FORMAT": "json",
            "CONQUEST_SERVER_METRICS_PORT": str(metrics_port),
            "CONQUEST_SERVER_ADDRESS": "127.0.0.1:2",
            "CONQUEST_SERVER_REPLAY_DIR": str(tmp_path / "replays"),
        },
        args=("--address", "localhost:0"),
    )
    try:
        serving = await serve.serving()
    finally:
        assert serve.stop(timeout=20) == 0
    assert serving["address"] == "localhost:0" and serving["port"] > 0, "the flag beats the variable"
    assert serving["metrics_port"] == metrics_port, "the variable beats the file"
    assert serving["event_loop"] == "uvloop", "conquest serve runs on uvloop (server/ops/runtime.py)"


LOG_TEST_CONFIG = """
[server]
address = "localhost:0"
log_format = "json"
metrics_port = 0
replay_dir = "{replays}"
shutdown_grace_ms = 0  # the bots stay queued: a second game starts, cut short at the end of the test

[queues.classic-3]
rules = "classic"
players = 3
rules_options = {{ turn_cap = 8 }}
time_control = {{ decision_ms = 2000, first_decision_ms = 300, initial_timebank_ms = 0, max_timebank_ms = 0 }}
"""


async def test_a_real_game_logs_json_lines_bound_to_game_bot_queue_and_request(tmp_path: Path):
    """Issue 6: "Logs: structlog, JSON in production ..., bound with game id, bot, queue and request id; no
    tokens or hidden game information in logs"."""
    serve = Serve(tmp_path, LOG_TEST_CONFIG.format(replays=tmp_path / "replays"))
    secret_token = "tok-5f0c2b9e-do-not-log"
    bots: list[RawBot] = []
    try:
        port = (await serve.serving())["port"]
        intruder = RawBot(port)
        bots.append(intruder)
        assert (await intruder.hello("intruder", token=secret_token)).error.code == "unknown_token"
        bots += [RawBot(port) for _ in range(3)]
        for name, bot in zip(("ann", "bob", "cat"), bots[1:], strict=True):
            await bot.hello(name)
            await bot.join("classic-3")
        starts = [(await bot.expect("game_started")).game_started for bot in bots[1:]]
        first = bots[1 + [s.seat for s in starts].index(starts[0].observation.to_act)]
        request = (await first.expect("decision_request")).decision_request
        first.decide(request, Claim(99))  # malformed: rejected and logged
        await first.expect("decision_rejected")  # then silence: it times out, logged too
        overs = await asyncio.gather(
            *(bot.play_until_over(random.Random(i)) for i, bot in enumerate(bots[1:]))
        )
    finally:
        for bot in bots:
            await bot.close()
        assert serve.stop(timeout=20) == 0

    game_id, seed = starts[0].game_id, overs[0].seed
    text = serve.log_path.read_text()
    for line in serve.lines():  # the console renderer's "[info     ]" columns must not appear
        assert line.startswith("{") or "[info" not in line, f"not a JSON line: {line}"
    records = serve.records()
    events = {r["event"] for r in records}
    assert {"serving", "session_opened", "join_queue", "game_started", "decision_rejected"} <= events
    assert {"decision_timeout", "game_over", "stopped"} <= events
    game_events = {"game_started", "decision_rejected", "decision_timeout", "game_over"}
    assert {r["event"] for r in records if r.get("game_id") == game_id} >= game_events
    ours = {(r["event"], r["bot"]) for r in records if r.get("request_id") == request.request_id}
    assert {e for e, _ in ours} == {"decision_rejected", "decision_timeout"} and len(ours) == 2
    for record in records:
        event = record["event"]
        assert {"event", "level", "timestamp"} <= set(record)
        assert not FORBIDDEN_KEYS & set(record), f"hidden information or a secret logged: {record}"
        if event in game_events or event.startswith("seat_") or "game_id" in record:
            assert len(record["game_id"]) == 16 and record["queue"] == "classic-3", record
        if event.startswith(("decision_", "seat_", "session_")) or event == "join_queue":
            assert record["bot"] in ("ann", "bob", "cat"), record
        if event.startswith("decision_"):
            assert isinstance(record["request_id"], int), record
        if event == "join_queue":
            assert record["queue"] == "classic-3"
    assert secret_token not in text, "a token was logged"
    assert str(seed) not in text, "the game's seed was logged"


DRAIN_GRACE_S = 5
DRAIN_CONFIG = """
[server]
address = "localhost:0"
log_format = "json"
metrics_port = 0
replay_dir = "{replays}"
shutdown_grace_ms = {grace_ms}

[time_control]
decision_ms = 10000

[queues.short-2]
rules = "classic_two_player"
players = 2
rules_options = {{ turn_cap = 2 }}

[queues.long-3]
rules = "classic"
players = 3
rules_options = {{ turn_cap = 400 }}
"""


async def _play(bot: RawBot, rng: random.Random, delay: dict[str, float]) -> Any:
    """Answer randomly after ``delay["s"]`` seconds (read at each request) until GameOver; None if the
    stream broke first (a decision sent just as the server closed it: the replay files are the record)."""
    while True:
        try:
            message = await bot.next(timeout=30)
        except grpc.aio.AioRpcError:
            return None
        kind = message.WhichOneof("message")
        if kind == "game_over":
            return message.game_over
        if kind == "decision_request":
            await asyncio.sleep(delay["s"])
            bot.answer_randomly(message.decision_request, rng)


async def test_sigterm_drains_games_within_the_grace_time_and_records_them(tmp_path: Path, capsys):
    """Issue 6: "gRPC health serving status flips to NOT_SERVING while draining; SIGTERM drains (no new
    games, in-flight games finish or are recorded) within a configurable grace time"; tests: "a drain test
    (SIGTERM during games: all games end with a recorded result)"."""
    replays = tmp_path / "replays"
    serve = Serve(tmp_path, DRAIN_CONFIG.format(replays=replays, grace_ms=DRAIN_GRACE_S * 1000))
    bots: list[RawBot] = []
    short_pace, long_pace = {"s": 0.05}, {"s": 0.05}
    try:
        port = (await serve.serving())["port"]
        channel = grpc.aio.insecure_channel(f"localhost:{port}")
        health = health_pb2_grpc.HealthStub(channel)
        check = health_pb2.HealthCheckRequest(service="")
        assert (await health.Check(check)).status == health_pb2.HealthCheckResponse.SERVING
        probe = ["health", "--address", f"localhost:{port}"]  # the containers' health check command
        assert await asyncio.to_thread(main, probe) == 0
        assert capsys.readouterr().out == "SERVING\n"
        games = {"short-2": 2, "long-3": 3}
        for queue, players in games.items():
            for i in range(players):
                bots.append(RawBot(port))
                await bots[-1].hello(f"{queue}-{i}")
                await bots[-1].join(queue)
        started = {(await bot.expect("game_started")).game_started.game_id for bot in bots}
        assert len(started) == 2
        plays = [
            asyncio.create_task(_play(bot, random.Random(i), short_pace if i < 2 else long_pace))
            for i, bot in enumerate(bots)
        ]
        await asyncio.sleep(1.0)  # both games are well under way, neither is near its end
        assert not any(play.done() for play in plays)

        serve.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        short_pace["s"] = 0.0  # the short game can now finish inside the grace time; the long one cannot
        while (status := (await health.Check(check)).status) == health_pb2.HealthCheckResponse.SERVING:
            await asyncio.sleep(0.05)
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        for service in ("conquest.v1.BotService", "conquest.v1.ArenaService"):  # issue 23: "Register each,
            # and report NOT_SERVING while draining or while the database is unavailable"
            by_name = await health.Check(health_pb2.HealthCheckRequest(service=service))
            assert by_name.status == health_pb2.HealthCheckResponse.NOT_SERVING, service
        assert await asyncio.to_thread(main, probe) == 1
        assert capsys.readouterr().out == "NOT_SERVING\n"
        late = RawBot(port)
        bots.append(late)
        refused = (await late.hello("late")).error
        assert (refused.code, refused.fatal) == ("shutting_down", True), "no new bots while draining"

        overs = await asyncio.gather(*plays)
        await channel.close()
    finally:
        for bot in bots:
            await bot.close()
    code = await asyncio.to_thread(serve.process.wait, DRAIN_GRACE_S + 30)
    exited = time.monotonic() - signalled
    assert code == 0
    # The long game alone would take minutes; the margin covers ending it, writing its replay and a
    # loaded machine (timings here are bounds, not measurements).
    assert exited < DRAIN_GRACE_S + 10, f"drained in {exited:.1f}s with a {DRAIN_GRACE_S}s grace time"

    assert exited > DRAIN_GRACE_S - 0.5, "the long game was given the whole grace time"

    files = sorted(replays.glob("*.json"))
    assert {f.stem for f in files} == started, "every started game is recorded and no new game began"
    recorded = {json.loads(f.read_text())["queue"]: json.loads(f.read_text())["reason"] for f in files}
    assert recorded["short-2"] in ("conquest", "turn_cap"), "the short game finished in the grace time"
    assert recorded["long-3"] == "server_shutdown", "the long game was ended and recorded"
    assert overs[0] is not None and overs[0].reason == recorded["short-2"]
    assert main(["replay", "verify", *map(str, files)]) == 0
    assert capsys.readouterr().out.count("OK ") == 2
    log_events = [r["event"] for r in serve.records()]
    assert log_events.index("shutting_down") < log_events.index("lobby_stopped") < log_events.index("stopped")


def test_health_command_fails_readably_when_no_server_answers(capsys):
    """The containers' health check (`conquest health`) must fail, and say why, when nothing listens."""
    assert main(["health", "--address", f"localhost:{free_port()}", "--timeout", "2"]) == 1
    assert "UNAVAILABLE" in capsys.readouterr().err
