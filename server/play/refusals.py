"""What a bot is told when the lobby refuses what it sent: a Decision for no running game of its
(``game_over`` when it held a seat in that game and the game ended lately, else ``unknown_game``), and the
messages over its session's rate (``rate_limited``). ``EndedGames`` is what the lobby remembers of the games
that ended, for the first and for a seat asked back over the relay (``server.play.relay``)."""

from __future__ import annotations

import structlog

from conquest.v1 import bot_pb2
from server.ops.metrics import Metrics
from server.play import messages
from server.play.session import Session
from server.records import SHOWN_LIMIT, shown

log = structlog.get_logger("conquest.lobby")
ENDED_GAMES_KEPT = 4096
"""How many ended games are remembered, to tell a late Decision for one that its game is over."""


class EndedGames:
    """The latest ended games (``ENDED_GAMES_KEPT``, oldest first): why each ended, and the names of the
    bots that held its seats."""

    def __init__(self) -> None:
        self._games: dict[str, tuple[str, frozenset[str]]] = {}

    def add(self, game_id: str, reason: str, holders: frozenset[str]) -> None:
        self._games[game_id] = (reason, holders)
        if len(self._games) > ENDED_GAMES_KEPT:
            del self._games[next(iter(self._games))]

    def reason(self, game_id: str) -> str:
        """Why ``game_id`` ended here lately (``GameOver.reason``, or ``handed_over``); "" if it did not."""
        return self._games.get(game_id, ("", frozenset()))[0]

    def held_by(self, game_id: str, name: str) -> bool:
        """The bot ``name`` held a seat in ``game_id``, which ended here lately."""
        return name in self._games.get(game_id, ("", frozenset()))[1]


def refuse_decision(
    session: Session, decision: bot_pb2.Decision, ended: EndedGames, metrics: Metrics
) -> None:
    """A Decision for no running game of the bot's: ``game_over`` if the bot held a seat in that game and it
    has ended (an answer that crossed its GameOver), else ``unknown_game``."""
    game_id = decision.game_id
    if ended.held_by(game_id, session.identity.name):
        metrics.rejections.labels("game_over").inc()
        session.send(messages.game_over_error(game_id, ended.reason(game_id), decision.request_id))
        return
    metrics.rejections.labels("not_your_game").inc()
    mine = ", ".join(session.games) or "none"
    session.error(
        "unknown_game",
        f"you have no seat in game {shown(game_id)}; your games: {mine}",
        game_id=game_id[:SHOWN_LIMIT],
    )


def flooded(session: Session, dropped: int, rate: int, metrics: Metrics) -> bool:
    """``session`` sent more than ``rate`` (``server.session_message_rate``) messages a second: ``dropped``
    of them were dropped since its rate was last kept. The first is told; a second's worth closes the
    session (True: read no more). Its games go on by the disconnect rules."""
    if dropped >= rate:
        metrics.streams_cut.labels("rate_limited").inc()
        log.warning("session_flooding", bot=session.identity.name, session_id=session.session_id)
        session.error(
            "rate_limited",
            f"{dropped} messages over the rate of {rate} a second (server.session_message_rate) were "
            "dropped: the session is closed; reconnect and send at most one Decision per DecisionRequest",
            fatal=True,
        )
        return True
    if dropped == 1:
        session.error(
            "rate_limited",
            f"more than {rate} messages a second on this session (server.session_message_rate): the "
            f"messages over it are dropped, this one first; {rate} dropped before the rate is kept for "
            "a second close the session",
        )
    return False
