"""Issue 20, "Deploys without stopping the ladder: a draining replica hands its games to the others instead
of ending them": replicas in cluster mode on one PostgreSQL, SIGTERMed mid-game (real processes, real
PostgreSQL). ``shutdown_grace_ms`` is a minute here, so a drain that waited for its games would show."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from replicas import (
    NAMES,
    Replicas,
    SlowRandom,
    check_recorded,
    hosted,
    postgresql_only,
    records_of_log,
    register,
)
from serve_process import Serve

from conquest.v1.bot_pb2 import GameOver
from conquest_sdk import Client
from server.play.replays import load_any_replay_file
from server.records import SHUTDOWN
from server.storage import Store

GRACE_MS = 60_000


def play(
    replicas: Replicas,
    tokens: dict[str, str],
    games: int,
    delay_s: float,
    queues: list[str],
    first_delay_s: float = 0.0,
) -> asyncio.Future[list[list[GameOver]]]:
    """One bot of ``NAMES`` on each replica, playing ``games`` games, reconnecting within half a second."""
    clients = [
        Client(
            SlowRandom(i, delay_s, first_delay_s),
            replicas.address(i),
            token=tokens[n],
            queues=queues,
            games=games,
            max_backoff_s=0.5,
        )
        for i, n in enumerate(NAMES)
    ]
    return asyncio.gather(*(c.run() for c in clients))


def _drain(server: Serve) -> float:
    """SIGTERM a replica and wait for it to exit cleanly: the drain's seconds."""
    started = time.monotonic()
    assert server.stop(timeout=GRACE_MS / 1000) == 0, server.log_path.read_text()[-3000:]
    return time.monotonic() - started


async def started(replicas: Replicas, timeout: float) -> tuple[str, int]:
    """The first game started on any replica (its id, and the index of its host), from their logs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for index, server in enumerate(replicas.servers):
            games = [r["game_id"] for r in records_of_log(server) if r["event"] == "game_started"]
            if games:
                return str(games[0]), index
        await asyncio.sleep(0.05)
    raise AssertionError("no game started")


@postgresql_only
@pytest.mark.parametrize("queue", ["trio", "trio-2210"])
@pytest.mark.parametrize("unplayed", [False, True], ids=["mid-game", "no-action-yet"])
async def test_a_sigtermed_host_hands_its_game_to_another_replica_within_seconds(
    tmp_path: Path, db_url: str, queue: str, unplayed: bool
) -> None:
    """ "a draining replica hands its games to the others instead of ending them": SIGTERM a replica
    hosting a game whose other seats are on other replicas; the game finishes on another replica, its
    replay verifies, its result is recorded once and ratings change once, and the drain ends within
    seconds (not ``shutdown_grace_ms``). The drained replica's own bot reconnects (to the replica started
    on its address, as a load balancer would send it) and resumes its seat. A classic game and a RISK
    2210 A.D. one alike; mid-game, and (``unplayed``) before the game's first action (its bots slow to
    answer their first request): then claimed at 0 actions and played from the start, its one fresh seed
    drawn at action 0."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3, turn_cap=25, grace_ms=GRACE_MS)
    try:
        ids = await replicas.serving()
        first_delay_s = 3.0 if unplayed else 0.0
        playing = play(replicas, tokens, 1, 0.015, [queue], first_delay_s)
        if unplayed:
            game_id, drained = await started(replicas, timeout=60)
        else:
            game_id, host = await hosted(db_url, actions=40, timeout=60)
            drained = ids.index(host)
        drain_s = await asyncio.to_thread(_drain, replicas.servers[drained])
        replicas.servers.append(replicas.start(drained, "restarted"))
        results = await asyncio.wait_for(playing, 120)
        records = [r for s in replicas.servers for r in records_of_log(s)]
    finally:
        replicas.stop()
    assert drain_s < 5, f"the drain took {drain_s:.1f} s"
    assert all([over.game_id for over in overs] == [game_id] for overs in results), "finished for all"
    handed = [r for r in records if r["event"] == "games_handed_over"]
    assert [r["games"] for r in handed] == [[game_id]], "handed over once, by its host"
    taken = [(r["game_id"], r["actions"]) for r in records if r["event"] == "game_taken_over"]
    assert [g for g, _ in taken] == [game_id], "claimed once, by another replica"
    assert not (tmp_path / f"r{drained}" / "replays" / f"{game_id}.json").exists(), "nothing recorded there"
    dirs = [tmp_path / d / "replays" for d in ("r0", "r1", "r2", "restarted")]
    check_recorded(db_url, {game_id}, dirs, 1, queue)
    replay_file = next(d / f"{game_id}.json" for d in dirs if (d / f"{game_id}.json").exists())
    replay, _ = load_any_replay_file(replay_file)
    assert [r.at for r in replay.reseeds] == [taken[0][1]], "its one fresh seed drawn where it was claimed"
    assert (taken[0][1] == 0) == unplayed, "claimed with no action played exactly when it had none"
    with Store.open(db_url) as store:
        assert all(g.reason != SHUTDOWN for g in store.games()), "played to its end, not cut short"


@postgresql_only
async def test_a_rolling_restart_of_every_replica_loses_no_game(tmp_path: Path, db_url: str) -> None:
    """ "a rolling restart of every replica one by one during a ladder run loses no game": three replicas,
    each SIGTERMed and started again on its address in turn while three bots play a ladder run; every
    game finishes (none cut short by a shutdown), each result recorded once, ratings changed once per
    game, every replay verifies; each drain ends within seconds."""
    games_each = 3
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3, turn_cap=16, grace_ms=GRACE_MS)
    try:
        await replicas.serving()
        playing = play(replicas, tokens, games=games_each, delay_s=0.01, queues=["trio"])
        drains = []
        for index in range(3):
            await hosted(db_url, actions=20, timeout=60)  # a game in progress as each replica goes
            drains.append(await asyncio.to_thread(_drain, replicas.servers[index]))
            replicas.servers.append(replicas.start(index, f"r{index}-new"))
            await replicas.servers[-1].serving()
        results = await asyncio.wait_for(playing, 120)
        records = [r for s in replicas.servers for r in records_of_log(s)]
    finally:
        replicas.stop()
    assert max(drains) < 5, f"drains took {', '.join(f'{d:.1f}' for d in drains)} s"
    assert all(len(overs) == games_each for overs in results), "every bot played all its games"
    game_ids = {over.game_id for overs in results for over in overs}
    assert len(game_ids) == games_each
    handed = [game for r in records if r["event"] == "games_handed_over" for game in r["games"]]
    taken = [r["game_id"] for r in records if r["event"] == "game_taken_over"]
    assert handed and sorted(handed) == sorted(taken), "each game handed over was taken over, once"
    dirs = [tmp_path / d / "replays" for i in range(3) for d in (f"r{i}", f"r{i}-new")]
    check_recorded(db_url, game_ids, dirs, games_each)
    with Store.open(db_url) as store:
        assert all(g.reason != SHUTDOWN for g in store.games()), "no game cut short by a shutdown"
