"""What the relay itself costs a relayed decision (issue 20: "a decision whose seat sits on another replica
costs ≤ 1.5× the server CPU of a local one"), apart from the games and the bots' own streams.

Two ``server.play.relay.Relay``s joined by their connection as two replicas are: host A hosts ``--games``
games, each with one seat whose bot's session is on B. Every round trip, A's seat sends a
DecisionRequest-sized message (``SeatMessage``), B's session receives it in its mailbox and its bot answers
at once with a Decision, which B forwards to A's game (``SeatDecision``); the game takes it and sends the
next. The figure is the CPU time of both relays per round trip, the extra a relayed decision costs over a
local one on the two replicas together; with one game at a time every frame is a message of its own, with
several, frames due at once share one. Each is measured four ways: both relays in this process (the relay's
own code: a message never finds its reader asleep) and B in a process of its own (``apart``: what the
process boundary adds, as between replicas, where a message to an idle replica wakes it); over the Unix
socket replicas on one machine use, and over TCP.

    python -m benchmarks.bench_relay [--round-trips N] [--games N ...]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import cast

from benchmarks.bench_clients import cpu_seconds
from conquest.v1 import bot_pb2, game_pb2
from server.app import build_lobby
from server.ops.config import ServerConfig, TimeControl
from server.ops.runtime import run
from server.play import relay_link
from server.play.clock import SeatClock
from server.play.relay import Relay, RelayedSeat
from server.play.runner_2210 import AnyRunner
from server.play.seats import RemoteSeat
from server.play.session import Session
from server.records import Identity

MESSAGE = bot_pb2.ConnectResponse(
    decision_request=bot_pb2.DecisionRequest(
        game_id="0" * 16, request_id=300, observation=game_pb2.Observation(owners=[1] * 42, armies=[3] * 42)
    )
).SerializeToString()
"""About a classic DecisionRequest's size."""


class Game:
    """A hosted game reduced to its one relayed seat: each Decision taken sends the next request."""

    def __init__(self, seat: RelayedSeat, round_trips: int) -> None:
        self.seats = [RemoteSeat("bot", "bot", seat, SeatClock.start(TimeControl()))]
        self.seat = seat
        self.left = round_trips
        self.done = asyncio.get_running_loop().create_future()

    def submit(self, index: int, decision: bot_pb2.Decision, received_at: float) -> bool:
        self.left -= 1
        if self.left > 0:
            self.seat.send(MESSAGE)
        elif not self.done.done():
            self.done.set_result(None)
        return True

    def detach(self, index: int) -> None:
        """The host's stream closing at the end detaches the seat: nothing is left to stop."""


async def answer(relay: Relay, session: Session, game_id: str) -> None:
    """The bot: a Decision for every message its session receives, forwarded to the game's host."""
    decision = bot_pb2.Decision(
        game_id=game_id, request_id=300, action=game_pb2.Action(end_phase=game_pb2.EndPhaseAction())
    )
    while await session.outbox.get() is not None:
        relay.forward(session, decision)


def _relay(work: Path, role: str) -> Relay:
    """A replica's relay, named uniquely (its Unix socket's name is seen by the whole machine)."""
    config = ServerConfig(database_url="", replay_dir=work / role)
    return Relay(build_lobby(config, None), f"bench-{role}-{os.getpid()}-{secrets.token_hex(3)}", "token")


def _sessions(bots: Relay, games: int) -> list[Session]:
    """The bots' sessions on B, each answering its game's messages."""
    sessions = []
    for i in range(games):
        session = Session(Identity(f"key{i}", f"bot{i}", False), capacity=1)
        bots.sessions[session.session_id] = session
        asyncio.get_running_loop().create_task(answer(bots, session, f"{i:016x}"))
        sessions.append(session)
    return sessions


def _host(host: Relay, peer: str, address: str, session_ids: list[str], round_trips: int) -> list[Game]:
    """A's games, one per session of B's, their seats attached over the link to B dialled now."""
    host.addresses[peer] = address
    link = host.link(peer)
    assert link is not None
    hosted = []
    for i, session_id in enumerate(session_ids):
        game_id = f"{i:016x}"
        seat = RelayedSeat(link, game_id, 0, session_id, Identity(f"key{i}", f"bot{i}", False), False)
        game = Game(seat, round_trips)
        hosted.append(game)
        host.hosted[game_id, session_id] = seat
        host.lobby.runners[game_id] = cast(AnyRunner, game)
        host.seated(seat, "duel", False)  # B learns the seat over the connection
    return hosted


async def _played(hosted: list[Game]) -> None:
    for game in hosted:
        game.seat.send(MESSAGE)
    await asyncio.gather(*(game.done for game in hosted))


@contextmanager
def dialling(tcp: bool) -> Iterator[None]:
    """Links dialled meanwhile go over TCP (``tcp``) or as the server dials them (a Unix socket where it
    can); as the server dials them again afterwards."""
    default = relay_link.LOCAL
    relay_link.LOCAL = default and not tcp
    try:
        yield
    finally:
        relay_link.LOCAL = default


async def measure(games: int, round_trips: int, work: Path, tcp: bool = False) -> float:
    """CPU µs a round trip with ``games`` games relayed at once, both relays in this process; over their
    Unix sockets, or over TCP (``tcp``)."""
    with dialling(tcp):
        return await _measure(games, round_trips, work)


async def _measure(games: int, round_trips: int, work: Path) -> float:
    host, bots = _relay(work, "a"), _relay(work, "b")
    server = await bots.listen(0)
    sessions = _sessions(bots, games)
    hosted = _host(
        host, bots.replica, f"127.0.0.1:{server.port}", [s.session_id for s in sessions], round_trips
    )
    while len(bots.remote) < games:
        await asyncio.sleep(0.01)
    started = time.process_time()
    await _played(hosted)
    used = time.process_time() - started
    for session in sessions:
        session.close()
    host.stop()
    server.close()
    return used / (games * round_trips) * 1e6


async def bots_side(games: int, work: Path) -> None:
    """The other process of ``apart``: B's relay and its bots' sessions; prints its name, TCP port and
    session ids (a JSON line), then serves until killed."""
    bots = _relay(work, "b")
    server = await bots.listen(0)
    sessions = _sessions(bots, games)
    ids = [s.session_id for s in sessions]
    print(json.dumps({"replica": bots.replica, "port": server.port, "sessions": ids}), flush=True)
    await asyncio.Event().wait()


async def apart(games: int, round_trips: int, work: Path, tcp: bool = False) -> float:
    """CPU µs a round trip (both processes) with ``games`` games relayed at once, B's relay in a process of
    its own as another replica's is: what the process boundary adds (each message that finds the other
    process idle wakes it). Over B's Unix socket, or over TCP (``tcp``)."""
    with dialling(tcp):
        return await _apart(games, round_trips, work)


async def _apart(games: int, round_trips: int, work: Path) -> float:
    other = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_relay", "--bots-side", str(games), "--work", str(work)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert other.stdout is not None
        bots = json.loads(other.stdout.readline())
        host = _relay(work, "a")
        hosted = _host(host, bots["replica"], f"127.0.0.1:{bots['port']}", bots["sessions"], round_trips)
        await asyncio.sleep(0.5)  # B has the seats
        started = time.process_time(), cpu_seconds(other.pid)
        await _played(hosted)
        used = time.process_time() - started[0] + cpu_seconds(other.pid) - started[1]
        host.stop()
    finally:
        other.kill()
        other.wait()
    return used / (games * round_trips) * 1e6


async def main(round_trips: int, games: list[int]) -> None:
    with tempfile.TemporaryDirectory(prefix="conquest-bench-relay-") as tmp:
        for count in games:
            figures = []
            for how, tcp in (("Unix socket", False), ("TCP", True)):
                work = Path(tmp) / f"{count}-{tcp}"
                one, two = (
                    await measure(count, round_trips, work / "one", tcp),
                    await apart(count, round_trips, work / "two", tcp),
                )
                figures.append(f"{how} {one:.0f} µs in one process, {two:.0f} µs in two")
            print(
                f"relay: {'; '.join(figures)} (CPU a round trip, {count} game(s) at once, {round_trips} each)"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=3000, help="round trips per game")
    parser.add_argument("--games", type=int, nargs="+", default=[1, 4, 16], help="games relayed at once")
    parser.add_argument("--bots-side", type=int, default=0, help=argparse.SUPPRESS)  # apart's other process
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.bots_side:
        run(bots_side(arguments.bots_side, arguments.work))
    else:
        run(main(arguments.round_trips, arguments.games))  # on uvloop, as the server runs
