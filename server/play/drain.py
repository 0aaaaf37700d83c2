"""Deploys without stopping the ladder (``server.cluster``): a draining replica hands its games over.

On SIGTERM a replica with other live replicas in its cluster does not wait for its games to finish: it stops
seating (health NOT_SERVING; its address, sessions and queue memberships leave the shared store, so the
matchmaker places nothing more on it), gives up the matchmaker lease if it holds it, stops its games here at
once (classic and RISK 2210 A.D. alike) and, in one transaction, logs what they played since the last
heartbeat and releases them (``ActionLog.beat`` with ``leaving``: their host gone, their epoch one up, so
nothing more of this replica's is written for them). A game with no action played yet is in the action log
too (its record went as it started), and released with the others. The other replicas claim them at
their next heartbeat exactly as they take over a dead replica's games (``server.play.takeover``: replay,
from zero actions for those, and a fresh committed seed), without waiting for ``replica_timeout_ms``. Its
bots are told to reconnect (``shutting_down``) and resume their seats wherever the load balancer sends
them; the new host re-attaches, through the relay, the seats of bots connected to other replicas. A replica
alone in its cluster drains as a single server does (``Lobby.shutdown``).
"""

from __future__ import annotations

import asyncio

import structlog

from server.play.cluster import Cluster
from server.play.lobby import Lobby
from server.play.recorder import Recorder
from server.play.takeover import Takeover
from server.records import HANDED_OVER, SHUTTING_DOWN, DatabaseUnavailable

log = structlog.get_logger("conquest.drain")


def others_alive(takeover: Takeover) -> bool:
    """Whether another replica was beating at this one's last heartbeat (else it drains alone)."""
    return bool(takeover.alive - {takeover.replica})


async def hand_over(lobby: Lobby, cluster: Cluster, beating: list[asyncio.Task[None]]) -> None:
    """Drain this replica into the others: ``beating`` are its heartbeat, takeover and hosting tasks,
    stopped first so that it claims and starts nothing more and does not register again."""
    lobby.accepting = False
    for task in beating:
        task.cancel()
    await asyncio.wait(beating)
    await asyncio.to_thread(cluster.stop)
    released = await _release_games(lobby)
    for session in list(lobby.sessions):
        session.error("shutting_down", SHUTTING_DOWN, fatal=True)
        lobby.close_session(session)
    await cluster.flushed(5.0)
    log.warning("games_handed_over", replica=cluster.replica, games=released)


async def _release_games(lobby: Lobby) -> list[str]:
    """Stop every game running here (classic or RISK 2210 A.D., with actions played or none yet) and
    release them to the other replicas; their ids."""
    recorder = lobby.writer
    assert isinstance(recorder, Recorder)
    runners = list(lobby.runners.values())
    games = lobby.game_tasks({r.game_id for r in runners})
    for runner in runners:
        runner.reason = HANDED_OVER  # nothing recorded here: its result comes from where it finishes
    for task in games:
        task.cancel()
    if games:
        await asyncio.wait(games)
    batches = recorder.live.batches(logged=True)
    try:
        heartbeat = await asyncio.to_thread(recorder.live.log, batches, True)
    except DatabaseUnavailable as down:
        # a game logged up to the last heartbeat is taken over after the timeout; one never logged (the
        # database was down as it started, and since) is lost with this replica, as at a SIGKILL
        log.warning("games_not_released", error=str(down), games=[r.game_id for r in runners])
        return []
    lobby.metrics.games_handed_over.inc(len(heartbeat.released))
    return list(heartbeat.released)
