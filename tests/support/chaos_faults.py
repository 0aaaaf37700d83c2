"""Issue 21's faults against a ladder of honest bots on a real ``conquest serve`` (tests/support/chaos.py):
``kill -9`` mid-ladder (item 16), SIGTERM, the SQLite database locked by another process (item 17) and the
database removed while the server runs. Each returns a ``Verdict`` with the games lost (finished games with
no row afterwards), the games unaccounted for (started games with no row afterwards) and the seconds to
recover.

Issue 21: "Nothing finished is ever lost: a result that cannot be written is retried and kept durably
until it is ...; while the database is unavailable the server says so in health and metrics and stops
seating games. A game live at a crash is visible afterwards as aborted."

The removed database, decided: the server reports it unavailable (health NOT_SERVING, conquest_database_up
0) within ``PROBE_S`` even with no game ending, seats no new game, keeps each finished game's result on disk
(``.pending`` beside its replay) and never writes into a new empty file at the path; once the file is back
(moved back or restored) it records the pending results and seats games again.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

import grpc
from chaos import LADDER_QUEUES, ChaosServer, Honest, Verdict, arena, health_status, until
from db_lock import locker
from grpc_health.v1 import health_pb2

from conquest.v1 import arena_pb2

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


async def _listed(server: ChaosServer) -> dict[str, str]:
    """Every recorded game: id -> reason."""
    async with grpc.aio.insecure_channel(server.address) as channel:
        listed = await arena(channel).ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=30)
    return {g.game_id: g.reason for g in listed.games}


class Ladder:
    """``pairs`` (at most ``chaos.PAIRS``) pairs of honest bots playing short ladder games one after another,
    each pair in a queue of its own, and one pair playing a
    marathon game (live whenever a fault strikes)."""

    def __init__(self, server: ChaosServer, pairs: int) -> None:
        self.short = Honest(server.port, queues=LADDER_QUEUES[:pairs], tag="ladder").start()
        self.long = Honest(server.port, queues=("marathon",), tag="marathon").start()

    @property
    def started(self) -> set[str]:
        return self.short.started | self.long.started

    @property
    def finished(self) -> set[str]:
        return self.short.finished | self.long.finished

    async def games(self, at_least: int, timeout: float = 120) -> None:
        """Wait until the short games number ``at_least`` and the marathon has started."""
        await self.short.games(at_least, timeout)
        await until(lambda: _holds(bool(self.long.started)), timeout)

    async def stop(self) -> None:
        await self.short.stop()
        await self.long.stop()


async def _holds(value: bool) -> bool:
    return value


async def _ladder(server: ChaosServer, pairs: int, games: int) -> Ladder:
    players = Ladder(server, pairs)
    await players.games(at_least=games)
    return players


def _account(verdict: Verdict, players: Ladder, listed: dict[str, str]) -> None:
    lost = len(players.finished - listed.keys())
    unaccounted = len(players.started - listed.keys())
    verdict.figures.update(finished=len(players.finished), lost=lost, unaccounted=unaccounted)
    verdict.check(lost == 0, f"{lost} finished games have no row")
    verdict.check(
        unaccounted == 0, f"{unaccounted} started games are in neither the games table nor ListGames"
    )


async def kill_mid_ladder(directory: Path, pairs: int = 2, games: int = 10) -> Verdict:
    """Issue 21, item 16: "Games live at a `kill -9` vanish: not in ListGames, the games table or the
    replay folder."; the issue's probe: "`kill -9` mid-ladder lost none of 9 finished games"."""
    verdict = Verdict("16", "kill -9 mid-ladder")
    server = ChaosServer(directory).start()
    players = await _ladder(server, pairs, games)
    await asyncio.sleep(1.5)  # past a flush of the running games' records
    server.kill()
    await players.stop()
    live = players.started - players.finished
    start = time.monotonic()
    server.start()
    try:
        listed: dict[str, str] = {}

        async def recorded() -> bool:
            listed.update(await _listed(server))
            return players.started <= listed.keys()

        # ListGames(limit=1000) costs 10 of the Arena's 50 tokens a second: poll within that rate.
        await until(recorded, 60, step=0.5)
        verdict.figures.update(live_at_kill=len(live), recover_s=time.monotonic() - start)
    except TimeoutError:
        pass
    finally:
        server.stop()
    _account(verdict, players, listed)
    aborted = {g for g, reason in listed.items() if reason == "aborted"}
    verdict.figures["aborted"] = len(aborted)
    verdict.check(players.long.started <= aborted, "the marathon game live at the kill is listed as aborted")
    verdict.check(aborted <= live, "only games live at the kill are listed as aborted")
    return verdict


async def sigterm_drain(directory: Path, pairs: int = 2, games: int = 10) -> Verdict:
    """Issue 21: "SIGTERM drained with every live game recorded" (and must keep holding)."""
    verdict = Verdict("SIGTERM", "SIGTERM mid-ladder")
    server = ChaosServer(directory).start()
    players = await _ladder(server, pairs, games)
    start = time.monotonic()
    await _drained(verdict, server, players)
    verdict.figures["drain_s"] = time.monotonic() - start
    return verdict


async def _drained(verdict: Verdict, server: ChaosServer, players: Ladder) -> None:
    """SIGTERM the server (its live games are recorded as cut short), then count the games it lost and
    left unaccounted for, as a restart lists them."""
    status = await asyncio.to_thread(server.stop, 60)
    await players.stop()
    verdict.check(status == 0, f"conquest serve exited {status} on SIGTERM")
    left = [p.name for p in server.replays.iterdir() if p.suffix in (".live", ".pending")]
    verdict.check(not left, f"records left for the next start: {left}")
    server.start()
    try:
        listed = await _listed(server)
    finally:
        server.stop()
    _account(verdict, players, listed)


async def _seated_while(server: ChaosServer, players: Ladder, seconds: float) -> int:
    """Games started in the next ``seconds`` (none while seating is paused)."""
    before = len(players.started)
    await asyncio.sleep(seconds)
    return len(players.started) - before


async def _down_then_up(
    verdict: Verdict,
    server: ChaosServer,
    players: Ladder,
    seconds: float,
    restore: Callable[[], None],
    gauge: str = "conquest_database_up",
    fault: str = "the database is unavailable",
) -> None:
    """While the fault lasts: health NOT_SERVING, ``gauge`` 0, no game seated; after ``restore()`` (the
    fault's end): SERVING again within a bound, the seconds it took in the figures, and games seated."""
    try:
        await until(lambda: _status_is(server, NOT_SERVING), 30)
        down = True
    except TimeoutError:
        down = False
    verdict.check(down, f"health NOT_SERVING while {fault}")
    verdict.check(server.metric(gauge) == 0, f"{gauge} 0 meanwhile")
    seated = await _seated_while(server, players, seconds)
    verdict.check(seated == 0, f"{seated} games seated while {fault}")
    verdict.figures["pending"] = server.metric("conquest_results_pending")
    restore()
    start = time.monotonic()
    try:
        await until(lambda: _status_is(server, SERVING), 60)
        verdict.figures["recover_s"] = time.monotonic() - start
        up = True
    except TimeoutError:
        up = False
    verdict.check(up, f"health SERVING again, by itself, once {fault} no more")
    await players.short.games(at_least=len(players.short.finished) + 1, timeout=60)  # seating resumed


async def _status_is(server: ChaosServer, status: int) -> bool:
    return await health_status(server.address) == status


async def locked_database(directory: Path, seconds: float = 40, pairs: int = 2) -> Verdict:
    """Issue 21, item 17: "A SQLite database locked by another process for 40 s stalled the ladder and lost
    2 finished games for good (`database is locked` on `BEGIN IMMEDIATE`)"."""
    verdict = Verdict("17", f"SQLite locked by another process for {seconds:.0f} s")
    server = ChaosServer(directory).start()
    try:
        players = await _ladder(server, pairs, 4)
        holder = locker(str(server.database))

        def release() -> None:
            assert holder.stdin is not None
            holder.stdin.close()
            holder.wait(timeout=10)

        try:
            await _down_then_up(verdict, server, players, seconds, release)
        finally:
            holder.kill()
        await _drained(verdict, server, players)
    finally:
        server.stop()
    return verdict


async def removed_database(directory: Path, seconds: float = 20, pairs: int = 2) -> Verdict:
    """Issue 21: the chaos suite "locks and removes the database"; decided (module docstring): reported
    unavailable, no seating, results kept on disk, recovered once the file is back."""
    verdict = Verdict("removed", f"SQLite file removed for {seconds:.0f} s")
    server = ChaosServer(directory).start()
    aside = directory / "aside"
    aside.mkdir()
    try:
        players = await _ladder(server, pairs, 4)
        files = list(directory.glob(server.database.name + "*"))  # the file, its -wal and -shm
        for path in files:
            os.rename(path, aside / path.name)

        def put_back() -> None:
            verdict.check(not server.database.exists(), "no empty database made in the removed one's place")
            for path in files:
                os.rename(aside / path.name, path)

        await _down_then_up(verdict, server, players, seconds, put_back)
        await _drained(verdict, server, players)
    finally:
        server.stop()
    return verdict
