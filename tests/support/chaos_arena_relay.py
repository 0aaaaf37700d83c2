"""Issue 33's floods of one Arena call after another (item 5) and of a replica's relay port with wrong
cluster tokens (item 6), each beside honest bots, against a running ``ChaosServer`` (tests/support/chaos.py);
each returns a ``Verdict`` whose ``through`` lists the promises it broke. The bar, issue 33's: "`make chaos`
grows a row for each ... with the same bar as its other rows (honest bots miss 0 deadlines of 250 ms, RSS <
2× idle, 0 finished games lost)".

The relay flood's server is ``relay_replica``: ``conquest serve`` whose process also listens as a cluster
replica's relay (tests/support/relay_replica.py), without the PostgreSQL a whole cluster needs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import sqlite3
import sys
import urllib.request
from pathlib import Path
from typing import Any, cast

from chaos import SUPPORT, ChaosServer, Honest, Verdict, until
from chaos_attacks import honest_under
from chaos_flood import ARENA_METHODS
from raw_client import RawBot

from server.arena.service import BURST, RATE
from server.play.relay_link import REFUSAL_LOG_S

RELAY_LOG_BOUND = 16 * 1024
"""Bytes of ``relay_refused`` lines a flood of wrong hellos from one address may add to the log, however
long it lasts within ``REFUSAL_LOG_S`` (one line of a few hundred bytes; issue 33: 65 MiB in 41 s)."""
SLOW_PLAYER_S = 0.2
"""Seconds the players of the game WatchGame follows take over each decision (of the 20 s they have)."""


def relay_replica(directory: Path) -> ChaosServer:
    """A ``ChaosServer`` (not started) whose process also listens as a cluster replica's relay
    (``relay_port``)."""
    return ChaosServer(directory, prefix=(sys.executable, str(SUPPORT / "relay_replica.py")))


def relay_port(server: ChaosServer) -> int:
    """The TCP port of a started ``relay_replica``'s relay."""
    return next(int(r["port"]) for r in server.records() if r["event"] == "relay_listening")


async def arena_flood_per_call(
    server: ChaosServer, seconds: float = 6, callers: int = 32, calls_per_run: int = 4
) -> Verdict:
    """Issue 33, item 5: "`ListLiveGames` is the one Arena call without a rate limit: 1,344 calls a second
    took the server from 0.45 to 0.79 of a core and honest bots missed 5 deadlines (0 under the other,
    limited, floods)". Every Arena call in turn, ``seconds`` each, from ``callers`` callers at once (each as
    an outsider sends it: ``chaos_flood.arena_requests``), beside honest duels (new ones every
    ``calls_per_run`` calls: ListGames, which counts their missed deadlines, lists the latest 1,000 games):
    no call is served past its client's token bucket (``BURST`` at once, ``RATE`` a second), no finished
    game is lost, and figures of each call's calls served a second."""
    verdict = Verdict("33.5", "a flood of each Arena call in turn")
    finished, watched = await _finished_game(server), await SlowGame.start(server)
    runs: list[dict[str, float]] = []
    try:
        for first in range(0, len(ARENA_METHODS), calls_per_run):
            methods = ARENA_METHODS[first : first + calls_per_run]
            summary = await honest_under(
                server, verdict, "arena_calls", seconds, str(callers), finished, watched.game_id, *methods
            )
            runs.append(dict(verdict.figures))
            for method, flooded in cast(dict[str, dict[str, Any]], summary["calls"]).items():
                _held_to_the_bucket(verdict, method, flooded["answers"], flooded["seconds"])
    finally:
        await watched.stop()
    verdict.figures.update(
        missed=sum(run["missed"] for run in runs),
        games=sum(run["games"] for run in runs),
        rss_idle_mib=runs[0]["rss_idle_mib"],
        rss_peak_mib=max(run["rss_peak_mib"] for run in runs),
    )
    lost = await _games_lost(server)
    verdict.figures["games_lost"] = lost
    verdict.check(lost == 0, f"{lost} finished games are not in the database")
    return verdict


def _held_to_the_bucket(verdict: Verdict, method: str, answers: dict[str, int], took: float) -> None:
    """Check that the calls of ``method`` served in ``took`` seconds (answered otherwise than
    RESOURCE_EXHAUSTED) are no more than the bucket holds and refills meanwhile; their rate a figure."""
    served = sum(n for code, n in answers.items() if code != "RESOURCE_EXHAUSTED")
    verdict.figures[f"{method}_per_s"] = served / took
    bucket = BURST + RATE * took  # a call takes a token at least
    verdict.check(
        served <= bucket, f"{method}: {served} calls served in {took:.1f} s, past the bucket's {bucket:.0f}"
    )


@dataclasses.dataclass
class SlowGame:
    """A marathon game whose two players take ``SLOW_PLAYER_S`` over each decision: it lasts a flood
    through and costs the server little (two bots answering at once would keep it busier than the honest
    duels do)."""

    game_id: str
    bots: list[RawBot]
    players: list[asyncio.Task[None]]

    @classmethod
    async def start(cls, server: ChaosServer) -> SlowGame:
        """Its players connected and seated, once it has started."""
        bots = [RawBot(server.port) for _ in range(2)]
        started: asyncio.Queue[str] = asyncio.Queue()
        players = [asyncio.create_task(_play_slowly(b, f"watched-{i}", started)) for i, b in enumerate(bots)]
        return cls(await asyncio.wait_for(started.get(), 60), bots, players)

    async def stop(self) -> None:
        """Close its players: a closed channel ends their reads (a cancelled grpc.aio read may hang)."""
        for bot in self.bots:
            await bot.close()
        await asyncio.wait(self.players, timeout=15)
        for player in self.players:
            if player.done() and not player.cancelled():
                player.exception()  # retrieved: a closed channel is how their play ends
            else:
                player.cancel()


async def _play_slowly(bot: RawBot, name: str, started: asyncio.Queue[str]) -> None:
    """``bot`` plays the marathon queue, a random legal action ``SLOW_PLAYER_S`` after each request, until
    it is closed; the id of its game goes to ``started``."""
    rng = random.Random(name)
    await bot.hello(name)
    await bot.join("marathon")
    while True:
        message = await bot.next(timeout=3600)
        if message.WhichOneof("message") == "game_started":
            started.put_nowait(message.game_started.game_id)
        elif message.WhichOneof("message") == "decision_request":
            await asyncio.sleep(SLOW_PLAYER_S)
            bot.answer_randomly(message.decision_request, rng)
        bot.log.clear()  # the raw client keeps every message for tests; a long flood keeps none


async def _finished_game(server: ChaosServer) -> str:
    """The id of a game two honest bots played to its end."""
    duel = Honest(server.port, queues=("ladder-1",), tag="finished").start()
    await duel.games(at_least=1)
    await duel.stop()
    return next(iter(duel.finished))


async def _holds(value: bool) -> bool:
    return value


async def _games_lost(server: ChaosServer, timeout: float = 30) -> int:
    """Games the server finished (``conquest_games_finished_total``) that its database does not hold, once
    no result is pending."""
    await until(lambda: _holds(server.metric("conquest_results_pending") == 0), timeout, step=0.5)
    text = urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics", timeout=10).read()
    lines = text.decode().splitlines()
    finished = sum(float(x.split()[-1]) for x in lines if x.startswith("conquest_games_finished_total{"))
    with contextlib.closing(sqlite3.connect(f"file:{server.database}?mode=ro", uri=True)) as database:
        (recorded,) = database.execute("SELECT COUNT(*) FROM games").fetchone()
    return max(0, round(finished) - int(recorded))


async def relay_log_flood(
    server: ChaosServer, seconds: float = 41, connections: int = 16, per_second: int = 0
) -> Verdict:
    """Issue 33, item 6: "wrong-token hellos grew the log by 65 MiB in 41 s (~5.7 GB an hour)". Connections
    to a replica's relay port, each a hello with a 4 KB replica name and a wrong cluster token, as fast as
    they are refused (``per_second`` at most, 0: no bound), beside the honest duels (``server`` is a started
    ``relay_replica``): every one is refused and counted, and the log grows by a line per
    ``REFUSAL_LOG_S`` (``RELAY_LOG_BOUND``)."""
    verdict = Verdict("33.6", "wrong-token hellos at a relay port")
    cut = 'conquest_streams_cut_total{reason="relay_refused"}'
    counted = server.metric(cut, 0.0)
    before = server.log_bytes()
    summary = await honest_under(
        server, verdict, "relay_hellos", seconds, str(connections), str(per_second), port=relay_port(server)
    )
    refused, counted = int(str(summary["refused"])), server.metric(cut, 0.0) - counted
    lines = _log_lines(server, before, "relay_refused")
    relay_bytes = sum(len(line) + 1 for line in lines)
    verdict.figures.update(refused_per_s=float(str(summary["per_second"])), relay_log_lines=len(lines))
    verdict.figures.update(relay_log_kib=relay_bytes / 1024, log_kib=(server.log_bytes() - before) / 1024)
    verdict.check(refused > 0 and counted >= refused, f"{refused} hellos refused, {counted:.0f} counted")
    windows = 1 + int(seconds // REFUSAL_LOG_S)
    verdict.check(
        len(lines) <= windows and relay_bytes < RELAY_LOG_BOUND,
        f"{refused} refused hellos from one address wrote {len(lines)} relay_refused lines ({relay_bytes} "
        f"bytes) in {seconds:.0f} s; at most one per {REFUSAL_LOG_S:g} s",
    )
    lost = await _games_lost(server)
    verdict.figures["games_lost"] = lost
    verdict.check(lost == 0, f"{lost} finished games are not in the database")
    return verdict


def _log_lines(server: ChaosServer, offset: int, event: str) -> list[str]:
    """The server's log lines of ``event`` written past byte ``offset`` of its log."""
    assert server.serve is not None
    with server.serve.log_path.open("rb") as log:
        log.seek(offset)
        text = log.read().decode(errors="replace")
    return [x for x in text.splitlines() if x.startswith("{") and json.loads(x).get("event") == event]
