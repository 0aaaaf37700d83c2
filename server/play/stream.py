"""The bot stream's fast room: what runs for every message of a Connect stream, compiled by mypyc.

``read_stream`` reads a bot's requests and hands each Decision straight to its game's runner
(``route_decision``); ``serialize_response`` is the serializer gRPC calls for every message written. The
messages themselves are written by hand in ``server.play.wire``, the other fast room.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Final

from conquest.v1 import bot_pb2
from server.play.runner import GameRunner
from server.play.session import Outgoing, Session

# Looked up once: compiled code looks a module's attribute up on every call.
_monotonic: Final = time.monotonic

# What ``route_decision`` made of a Decision.
NO_SEAT: Final = 0
"""The bot holds no seat in the Decision's game: nothing was handed on."""
NOT_TAKEN: Final = 1
"""Handed to its game, which rejected it (not the answer to the open request, or not legal)."""
TAKEN: Final = 2
"""Handed to its game, where it closed the seat's open request."""


def serialize_response(message: Outgoing) -> bytes:
    """A ConnectResponse for the wire; what ``server.play.wire`` wrote comes serialized already."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def route_decision(
    games: dict[str, int], runners: dict[str, GameRunner], decision: bot_pb2.Decision, received_at: float
) -> int:
    """Hand ``decision`` to its game as from the seat the bot holds there (``games``: game id -> seat);
    ``NO_SEAT``, ``NOT_TAKEN`` or ``TAKEN`` says what came of it."""
    game_id = decision.game_id
    seat = games.get(game_id)
    runner = runners.get(game_id)
    if seat is None or runner is None:
        return NO_SEAT
    return TAKEN if runner.submit(seat, decision, received_at) else NOT_TAKEN


async def read_stream(
    requests: AsyncIterator[bot_pb2.ConnectRequest],
    session: Session,
    runners: dict[str, GameRunner],
    handle: Callable[[Session, bot_pb2.ConnectRequest, float], bool],
    rate: float,
    flooded: Callable[[Session, int], bool],
) -> None:
    """Read a bot's stream to its end: each Decision straight to its game with the ``time.monotonic()``
    it was received at, the rest to ``handle`` (the lobby). A Decision reaches ``handle`` only when it is
    for no classic game of the bot's: ``handle`` hands it on (to a RISK 2210 A.D. game, or to the replica
    hosting its game) or answers it, and returns True when a 2210 game took it as the answer to the seat's
    open request.

    At most ``rate`` messages a second are taken (a token bucket holding one second's worth); each one over
    it is dropped and counted to ``flooded`` (the count since the bucket was last full), which says whether
    to stop reading. A Decision that answers its seat's open request (a classic game's here, a 2210 game's in
    ``handle``) gives its token back: the server asked for it, so a bot playing many games at once is never
    limited by its answers, only by what it sends unasked."""
    tokens = rate
    last = _monotonic()
    dropped = 0
    async for request in requests:
        received_at = _monotonic()
        tokens += (received_at - last) * rate
        last = received_at
        if tokens >= rate:
            tokens = rate
            dropped = 0
        if tokens < 1.0:
            dropped += 1
            if flooded(session, dropped):
                return
            continue
        tokens -= 1.0
        if request.WhichOneof("message") != "decision":
            handle(session, request, received_at)
            continue
        routed = route_decision(session.games, runners, request.decision, received_at)
        if routed == TAKEN or (routed == NO_SEAT and handle(session, request, received_at)):
            tokens += 1.0
