"""What the relay itself costs a relayed decision (issue 20: "a decision whose seat sits on another replica
costs ≤ 1.5× the server CPU of a local one"), apart from the games and the bots' own streams.

Two ``server.play.relay.Relay``s in this process, joined by their TCP connection as two replicas are: host A
hosts ``--games`` games, each with one seat whose bot's session is on B. Every round trip, A's seat sends a
DecisionRequest-sized message (``SeatMessage``), B's session receives it in its mailbox and its bot answers
at once with a Decision, which B forwards to A's game (``SeatDecision``); the game takes it and sends the
next. The figure is this process's CPU time (both replicas) per round trip, the extra a relayed decision
costs over a local one on the two replicas together. With one game at a time every frame is a message of its
own; with several, frames due at once share one.

    python -m benchmarks.bench_relay [--round-trips N] [--games N ...]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import cast

from conquest.v1 import bot_pb2, game_pb2
from server.app import build_lobby
from server.ops.config import ServerConfig, TimeControl
from server.ops.runtime import run
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


async def measure(games: int, round_trips: int, work: Path) -> float:
    """CPU µs a round trip with ``games`` games relayed at once."""
    host = Relay(build_lobby(ServerConfig(database_url="", replay_dir=work / "a"), None), "a", "token")
    bots = Relay(build_lobby(ServerConfig(database_url="", replay_dir=work / "b"), None), "b", "token")
    server = await bots.listen(0)
    host.addresses["b"] = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    link = host.link("b")
    assert link is not None
    hosted: list[Game] = []
    for i in range(games):
        session = Session(Identity(f"key{i}", f"bot{i}", False), capacity=1)
        game_id = f"{i:016x}"
        seat = RelayedSeat(link, game_id, 0, session.session_id, Identity(f"key{i}", f"bot{i}", False), False)
        game = Game(seat, round_trips)
        hosted.append(game)
        host.hosted[game_id, session.session_id] = seat
        host.lobby.runners[game_id] = cast(AnyRunner, game)
        bots.sessions[session.session_id] = session
        host.seated(seat, "duel", False)  # B learns the seat over the connection dialled now
        asyncio.get_running_loop().create_task(answer(bots, session, game_id))
    while len(bots.remote) < games:
        await asyncio.sleep(0.01)
    started = time.process_time()
    for game in hosted:
        game.seat.send(MESSAGE)
    await asyncio.gather(*(game.done for game in hosted))
    used = time.process_time() - started
    for session in bots.sessions.values():
        session.close()
    host.stop()
    server.close()
    return used / (games * round_trips) * 1e6


async def main(round_trips: int, games: list[int]) -> None:
    with tempfile.TemporaryDirectory(prefix="conquest-bench-relay-") as tmp:
        for count in games:
            work = Path(tmp) / str(count)
            cpu = await measure(count, round_trips, work)
            print(f"relay: {cpu:.0f} µs CPU a round trip, {count} game(s) at once, {round_trips} each")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--round-trips", type=int, default=3000, help="round trips per game")
    parser.add_argument("--games", type=int, nargs="+", default=[1, 4, 16], help="games relayed at once")
    arguments = parser.parse_args()
    run(main(arguments.round_trips, arguments.games))  # on uvloop, as the server runs
