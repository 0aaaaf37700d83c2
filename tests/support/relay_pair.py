"""Two replicas' relays in one process, connected over real TCP (``server.play.relay`` over
``server.play.relay_link``), and a classic game hosted on the first whose bots are connected to the
second: issue 20's relay tested without whole servers."""

from __future__ import annotations

import dataclasses
import secrets
from pathlib import Path

from conquest.v1 import bot_pb2
from conquest_bots.first_choice import first_choice
from server.app import build_lobby
from server.ops.config import ServerConfig, TimeControl, default_queues
from server.play.relay import Relay, RelayedSeat
from server.play.relay_link import Listening
from server.play.replays import DirectoryReplayWriter
from server.play.runner import GameRunner
from server.play.seats import RemoteSeat
from server.play.session import Session
from server.records import Identity


async def linked(config: ServerConfig) -> tuple[Relay, Relay, list[Listening]]:
    """Replica a's relay and replica b's, listening and knowing each other's address (they dial when they
    first need the link: over their Unix sockets, as replicas in one network namespace do, unless
    ``relay_link.LOCAL`` is off), and their listeners (close them when done). Their names are unique, as
    replicas' are: a Unix socket's name is seen by every process of this network namespace."""
    unique = secrets.token_hex(4)
    a, b = (Relay(build_lobby(config, None), f"{name}-{unique}", "secret") for name in "ab")
    listening = [await b.listen(0), await a.listen(0)]
    a.addresses[b.replica], b.addresses[a.replica] = (f"127.0.0.1:{s.port}" for s in listening)
    return a, b, listening


def relayed_game(
    host: Relay, bots: Relay, game_id: str, turn_cap: int, tmp_path: Path
) -> tuple[GameRunner, list[Session], list[RemoteSeat]]:
    """A classic-2 game ``game_id`` hosted by ``host`` (not started: run ``runner.run()``), both its seats'
    bots connected to ``bots`` (play them with ``play``)."""
    queue = next(q for q in default_queues() if q.name == "classic-2")
    queue = dataclasses.replace(queue, rules=dataclasses.replace(queue.rules, turn_cap=turn_cap))
    link = host.link(bots.replica)
    assert link is not None
    identities = [Identity(f"key{i}", f"bot{i}", False) for i in range(2)]
    sessions = [Session(identity, capacity=1) for identity in identities]
    relayed = [RelayedSeat(link, game_id, i, s.session_id, s.identity, False) for i, s in enumerate(sessions)]
    seats = [
        RemoteSeat.for_bot(s.identity, seat, TimeControl()) for s, seat in zip(sessions, relayed, strict=True)
    ]
    runner = GameRunner(game_id, queue, seats, 7, DirectoryReplayWriter(tmp_path / "replays"))
    host.lobby.runners[game_id] = runner
    for session, seat in zip(sessions, relayed, strict=True):
        bots.sessions[session.session_id] = session
        host.seated(seat, queue.name, False)
    return runner, sessions, seats


async def play(relay: Relay, session: Session, over: list[bot_pb2.GameOver]) -> None:
    """A bot on the relay's replica: the first legal action for every request, until its GameOver."""
    while (message := await session.outbox.get()) is not None:
        response = bot_pb2.ConnectResponse.FromString(
            message if isinstance(message, bytes) else message.SerializeToString()
        )
        if response.HasField("decision_request"):
            request = response.decision_request
            decision = bot_pb2.Decision(
                game_id=request.game_id, request_id=request.request_id, action=first_choice(request)
            )
            relay.forward(session, decision)
        elif response.HasField("game_over"):
            over.append(response.game_over)
            return
