"""Issue 20, "the ladder, a tournament and a challenge complete across replicas": a tournament on replicas
in cluster mode is directed by the matchmaker lease's holder alone, so each table is seated once, and by
the next holder once the lease moves (real processes, real PostgreSQL)."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
from replicas import (
    ADMIN,
    NAMES,
    Replicas,
    lease_holder,
    postgresql_only,
    records_of_log,
    register,
)
from test_server_drain import GRACE_MS, _drain, play

from conquest.v1 import arena_pb2, arena_pb2_grpc
from server.records import SHUTDOWN
from server.storage import Store

ROUNDS = 3


@postgresql_only
async def test_a_tournament_completes_across_replicas_each_table_played_once(
    tmp_path: Path, db_url: str
) -> None:
    """ "the ladder, a tournament and a challenge complete across replicas", and the director runs "only
    on the matchmaker lease holder, taking over when the lease moves": a Swiss tournament of three rounds
    (one table of the three bots, each connected to another replica) is created on a replica that does not
    hold the lease; the holder is SIGTERMed mid-tournament (its game handed over) and started again; the
    tournament finishes with each table played once: one recorded game per table, none cut short, and no
    other game of the tournament's queue."""
    tokens = register(db_url)
    replicas = Replicas(tmp_path, db_url, 3, grace_ms=GRACE_MS)
    try:
        await replicas.serving()
        holder = await lease_holder(replicas, 30)
        other = next(i for i in range(3) if i != holder)
        playing = play(replicas, tokens, games=ROUNDS, delay_s=0.01, queues=[])
        async with grpc.aio.insecure_channel(replicas.address(other)) as channel:
            arena = arena_pb2_grpc.ArenaServiceStub(channel)
            await arena.CreateTournament(
                arena_pb2.CreateTournamentRequest(
                    name="cup",
                    format=arena_pb2.TOURNAMENT_FORMAT_SWISS,
                    bots=list(NAMES),
                    queue="trio",
                    rounds=ROUNDS,
                ),
                metadata=(("authorization", f"Bearer {ADMIN}"),),
            )
            await _first_game_started(db_url, 30)
            await asyncio.to_thread(_drain, replicas.servers[holder])
            replicas.servers.append(replicas.start(holder, "restarted"))
            results = await asyncio.wait_for(playing, 120)
            deadline = time.monotonic() + 20
            while not (
                cup := (await arena.GetTournament(arena_pb2.GetTournamentRequest(name="cup"))).tournament
            ).finished_at_ms:
                assert time.monotonic() < deadline, "the tournament finished"
                await asyncio.sleep(0.2)
        records = [r for s in replicas.servers for r in records_of_log(s)]
    finally:
        replicas.stop()
    tables = [t for r in cup.rounds for t in r.tables]
    assert len(cup.rounds) == ROUNDS and len(tables) == ROUNDS
    game_ids = [t.game_id for t in tables]
    assert len(set(game_ids)) == ROUNDS and all(game_ids), "each table has its own game"
    assert all(sorted(over.game_id for over in overs) == sorted(game_ids) for overs in results)
    with Store.open(db_url) as store:
        played = [g for g in store.games() if g.queue == cup.queue]
        assert sorted(g.id for g in played) == sorted(game_ids), "each table seated and recorded once"
        assert all(g.reason != SHUTDOWN for g in played)
    assert any(r["event"] == "games_handed_over" and r["games"] for r in records), "a table changed hands"
    taken = [r for r in records if r["event"] == "lease_taken"]
    assert 2 in [r["term"] for r in taken], "the lease moved, and its new holder directed the rest"


async def _first_game_started(url: str, timeout: float) -> None:
    """Once the tournament's first game has logged actions (it is played on the lease holder)."""
    deadline = time.monotonic() + timeout
    with Store.open(url) as store:
        while not any(actions >= 10 for _, _, _, actions in store.live_games()):
            assert time.monotonic() < deadline, "no tournament game started"
            await asyncio.sleep(0.1)
