"""Seats played across replicas (``server.cluster``): a game runs on its host replica; a seat whose bot is
connected to another replica is a ``RelayedSeat`` there (a ``seats.Connection``), whose messages travel,
already serialized, over one TCP connection per pair of replicas (``server.play.relay_link``, the frames of
proto/conquest/cluster/v1/relay.proto) to the bot's replica, which puts them on the bot's session as they
are. The bot's Decisions for that game travel back to the host's runner. The bot never knows: its stream
is the one it opened. Every frame queued on a connection in one event-loop turn goes out in one message,
written by hand (``server.play.relay_wire``, the relay's fast room).

Every connection first shows the cluster's shared secret (``cluster_token``); one without it is refused. A
connection that drops leaves the host's relayed seats disconnected (their reconnect grace starts), and the
bot's replica asks for them back over a new connection (``SeatResume``); a host that cannot give one back
(the game ended, or the seat forfeited) says so (``SeatRefused``) and the bot is told
(``Error{not_resumed}``). The same connections carry spectators' streams of games hosted elsewhere
(``server.play.relay_watch``). docs/architecture.md, "The cluster".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine

import structlog

from conquest.cluster.v1 import relay_pb2
from conquest.v1 import bot_pb2
from server.play import messages, relay_link, relay_wire
from server.play.lobby import Lobby
from server.play.relay_link import Link
from server.play.relay_watch import Watches
from server.play.runner_2210 import AnyRunner
from server.play.seats import RemoteSeat
from server.play.session import Outgoing, Session
from server.play.stream import NO_SEAT, NOT_TAKEN, TAKEN
from server.records import HANDED_OVER, Identity

log = structlog.get_logger("conquest.relay")


class RelayedSeat:
    """The host's side of a seat whose bot is connected to another replica (a ``seats.Connection``)."""

    def __init__(self, link: Link, game_id: str, index: int, session_id: str, identity: Identity, live: bool):
        self.link = link
        self.game_id = game_id
        self.index = index
        self.session_id = session_id
        self.identity = identity
        self.live_events = live
        self.games: dict[str, int] = {}
        """The lobby's seating writes here as into a Session's (this seat's game -> its index)."""

    def send(self, message: Outgoing) -> None:
        response = message if isinstance(message, bytes) else message.SerializeToString()
        self.link.send(relay_wire.seat_message(self.game_id, self.session_id, response))


class Relay:
    """This replica's relay: its links with the other replicas, the seats it hosts for bots connected
    elsewhere, and the games hosted elsewhere that its own sessions play."""

    def __init__(self, lobby: Lobby, replica: str, token: str) -> None:
        self.lobby = lobby
        self.replica = replica
        self.token = token
        self.addresses: dict[str, str] = {}
        """Each other replica's relay address (``advertise_host:relay_port``), kept by the heartbeat."""
        self.links: dict[str, Link] = {}
        self.sessions: dict[str, Session] = {}
        """This replica's open sessions by id."""
        self.hosted: dict[tuple[str, str], RelayedSeat] = {}
        """(game id, session id) -> a seat hosted here whose bot is connected elsewhere."""
        self.remote: dict[tuple[str, str], Link] = {}
        """(game id, session id) -> the link to the host of a game one of this replica's sessions plays."""
        self.asked: dict[tuple[str, str], int] = {}
        """(game id, session id) of ``remote`` -> DecisionRequests relayed to the bot and not answered yet."""
        self.awaited: dict[tuple[str, str], bool] = {}
        """(game id, session id) -> a seat this replica asked back for one of its sessions (``resume``) and
        has had no answer for yet; True once its game was seen running in the cluster since (the cluster's
        heartbeat asks again, and tells the bot once the game runs nowhere any more)."""
        self.on_free: Callable[[Session, int], None] = lambda session, step: None
        """A session's free slots changed by a game hosted elsewhere (the shared queues count them)."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.watches = Watches(lobby, self.link)
        """The spectators' streams relayed between this replica and the others."""

    # ------------------------------------------------------------------ connections

    async def listen(self, port: int) -> relay_link.Listening:
        """Take the other replicas' connections on ``port`` (0: any free one), and those of the replicas in
        this network namespace on its Unix socket."""
        return await relay_link.listen(self, port)

    def link(self, peer: str) -> Link | None:
        """The relay with replica ``peer``, dialled if there is none yet (None: its address is unknown)."""
        link = self.links.get(peer)
        if link is not None and not link.closed:
            return link
        address = self.addresses.get(peer)
        if address is None:
            return None
        link = self.links[peer] = Link(peer, dialed=False)
        self._spawn(relay_link.dial(self, link, address), f"relay-to-{peer}")
        return link

    def _spawn(self, work: Coroutine[object, object, None], name: str) -> None:
        task = asyncio.get_running_loop().create_task(work, name=name)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def greeted(self, link: Link) -> None:
        """Replica ``link.peer`` dialled this one (it dials when it needs the relay before this one does)."""
        self.links.setdefault(link.peer, link)

    def cut(self, reason: str) -> None:
        self.lobby.metrics.streams_cut.labels(reason).inc()

    def dropped(self, link: Link) -> None:
        """The connection ended: the seats it carried here are disconnected (their grace starts), and the
        games this replica's bots play over it are asked for again over a new connection."""
        link.close()
        if self.links.get(link.peer) is link:
            del self.links[link.peer]
        self.watches.dropped(link)
        for key, seat in list(self.hosted.items()):
            if seat.link is link:
                self._detach(key)
        for (game_id, session_id), over in list(self.remote.items()):
            if over is link:
                self._unrelay((game_id, session_id))
                session = self.sessions.get(session_id)
                if session is not None and session.games.pop(game_id, None) is not None:
                    self.on_free(session, 1)
                    self.resume(link.peer, game_id, session)

    def stop(self) -> None:
        """Close every connection that carries a seat (closing the listener leaves accepted ones open)."""
        seats = {seat.link for seat in self.hosted.values()}
        for link in {*self.links.values(), *self.remote.values(), *seats}:
            link.close()

    # ------------------------------------------------------------------ frames

    def received(self, link: Link, message: bytes) -> None:
        """A message read from ``link`` (a serialized RelayRequest or RelayResponse): its frames, in order."""
        read = link.read.FromString(message)
        if isinstance(read, relay_pb2.RelayResponse) and read.connection_refused:
            log.error("relay_refused_by_peer", peer=link.peer, why=read.connection_refused)
        for frame in read.frames:
            kind = frame.WhichOneof("message")
            if kind == "seat_message":
                seat_message = frame.seat_message
                session = self.sessions.get(seat_message.session_id)
                if session is not None:
                    asked = (seat_message.game_id, seat_message.session_id)
                    if asked in self.remote and relay_wire.asks_decision(seat_message.response):
                        self.asked[asked] = self.asked.get(asked, 0) + 1
                    session.send(seat_message.response)
            elif kind == "decision":
                self._decided(frame.decision)
            elif kind == "attached":
                self._attached(link, frame.attached)
            elif kind == "released":
                self._released(frame.released.game_id, frame.released.session_id)
            elif kind == "resume":
                self._resume_asked(link, frame.resume)
            elif kind == "refused":
                self.not_resumed(frame.refused.game_id, frame.refused.session_id, frame.refused.reason)
            elif kind is not None:  # watch, watched, watch_ended
                self.watches.received(link, frame, kind)

    def _decided(self, decision: relay_pb2.SeatDecision) -> None:
        """Host: a relayed bot's Decision, to its game's runner as from the seat it holds."""
        seat = self.hosted.get((decision.game_id, decision.session_id))
        runner = self.lobby.runners.get(decision.game_id)
        if seat is None or runner is None:
            return
        held = runner.seats[seat.index]
        if isinstance(held, RemoteSeat) and held.connection is seat:
            self.lobby.metrics.relayed_decisions.inc()
            runner.submit(seat.index, bot_pb2.Decision.FromString(decision.decision), time.monotonic())

    def _attached(self, link: Link, attached: relay_pb2.SeatAttached) -> None:
        """Bot's replica: one of its sessions now plays a seat of a game hosted over ``link``."""
        session = self.sessions.get(attached.session_id)
        if session is None or session.closed:
            link.send(_released(attached.game_id, attached.session_id))
            return
        session.games[attached.game_id] = attached.seat
        self.remote[attached.game_id, attached.session_id] = link
        self.awaited.pop((attached.game_id, attached.session_id), None)
        if attached.resumed:
            self.on_free(session, -1)
        if attached.left_queue:
            self.lobby.left_queue(attached.queue, session)

    def _unrelay(self, key: tuple[str, str]) -> None:
        """Bot's replica: the seat ``key`` (game id, session id) is played over no link any more, and no
        answer is owed on it."""
        self.remote.pop(key, None)
        self.asked.pop(key, None)

    def _released(self, game_id: str, session_id: str) -> None:
        """The seat is relayed no more: on the host, the bot's session closed (its grace starts); on the
        bot's replica, the game ended (its slot is free again)."""
        if (game_id, session_id) in self.hosted:
            self._detach((game_id, session_id))
            return
        self._unrelay((game_id, session_id))
        session = self.sessions.get(session_id)
        if session is not None and session.games.pop(game_id, None) is not None:
            self.on_free(session, 1)
            self.lobby.slot_freed(session)

    def _detach(self, key: tuple[str, str]) -> None:
        seat = self.hosted.pop(key)
        runner = self.lobby.runners.get(seat.game_id)
        held = runner.seats[seat.index] if runner is not None else None
        if runner is not None and isinstance(held, RemoteSeat) and held.connection is seat:
            runner.detach(seat.index)

    def _resume_asked(self, link: Link, resume: relay_pb2.SeatResume) -> None:
        """Host: a bot that reconnected to ``link``'s replica asks for its seat back. Refused when the game
        ended here or the seat forfeited; unanswered when the game is not here (handed over: its new host
        is asked at the next heartbeat) or the seat is still played by another session of the bot's (its
        release may be on its way from another replica)."""
        runner = self.lobby.runners.get(resume.game_id)
        if runner is None:
            reason = self.lobby.ended.reason(resume.game_id)
            if reason and reason != HANDED_OVER:
                self._refuse(link, resume, f"it ended ({reason}) while you were away")
            return
        for index in range(len(runner.seats)):
            if runner.is_resumable(index, resume.key):
                identity = Identity(resume.key, runner.seats[index].name, False)
                self.attach(
                    link, runner, index, resume.session_id, identity, resume.live_events, resumed=True
                )
                return
        held = [s for s in runner.seats if isinstance(s, RemoteSeat) and s.identity == resume.key]
        forfeits = [s.forfeit for s in held if s.forfeit is not None]
        if held and len(forfeits) == len(held):
            outcome = bot_pb2.SeatOutcome.Name(forfeits[0])
            self._refuse(link, resume, f"your seat forfeited ({outcome}); the game plays on without you")

    def _refuse(self, link: Link, resume: relay_pb2.SeatResume, reason: str) -> None:
        refused = relay_pb2.SeatRefused(game_id=resume.game_id, session_id=resume.session_id, reason=reason)
        link.send(relay_pb2.RelayFrame(refused=refused).SerializeToString())

    def not_resumed(self, game_id: str, session_id: str, why: str) -> None:
        """Bot's replica: a seat asked back will not come back (``why``): the bot is told once, and the seat
        is asked for no more."""
        session = self.sessions.get(session_id)
        if self.awaited.pop((game_id, session_id), None) is not None and session is not None:
            session.send(messages.not_resumed(game_id, why))

    # ------------------------------------------------------------------ seats

    def attach(
        self,
        link: Link,
        runner: AnyRunner,
        index: int,
        session_id: str,
        identity: Identity,
        live_events: bool,
        resumed: bool,
    ) -> None:
        """Host: a seat of ``runner`` (resumable, so waiting for its bot) is played over ``link`` now."""
        seat = RelayedSeat(link, runner.game_id, index, session_id, identity, live_events)
        self.hosted[runner.game_id, session_id] = seat
        attached = relay_pb2.SeatAttached(
            game_id=runner.game_id,
            seat=index,
            session_id=session_id,
            queue=runner.queue.name,
            resumed=resumed,
        )
        link.send(relay_pb2.RelayFrame(attached=attached).SerializeToString())
        runner.attach(index, seat)

    def seated(self, seat: RelayedSeat, queue: str, left_queue: bool) -> None:
        """Host: a new game seated ``seat``: its bot's replica learns which game and seat its session holds
        (before the game's first message, which follows on the same connection)."""
        self.hosted[seat.game_id, seat.session_id] = seat
        attached = relay_pb2.SeatAttached(
            game_id=seat.game_id,
            seat=seat.index,
            session_id=seat.session_id,
            queue=queue,
            left_queue=left_queue,
        )
        seat.link.send(relay_pb2.RelayFrame(attached=attached).SerializeToString())

    def ended(self, runner: AnyRunner) -> None:
        """Host: the game is over (its GameOver went out): its relayed seats are released."""
        for seat in runner.seats:
            connection = seat.connection if isinstance(seat, RemoteSeat) else None
            if isinstance(connection, RelayedSeat):
                self.hosted.pop((connection.game_id, connection.session_id), None)
                connection.link.send(_released(connection.game_id, connection.session_id))

    def forward(self, session: Session, decision: bot_pb2.Decision) -> int:
        """Bot's replica: send ``decision`` to its game's host. ``stream.NO_SEAT`` when the game is not
        relayed; ``stream.TAKEN`` when it answers a DecisionRequest the host sent (so it does not count
        against the session's message rate, as an answer to a local game does not), else
        ``stream.NOT_TAKEN``."""
        key = (decision.game_id, session.session_id)
        link = self.remote.get(key)
        if link is None:
            return NO_SEAT
        link.send(
            relay_wire.seat_decision(decision.game_id, session.session_id, decision.SerializeToString())
        )
        self.lobby.metrics.relayed_decisions_sent.inc()
        if self.asked.get(key, 0) > 0:  # at most one answer counted per request sent
            self.asked[key] -= 1
            return TAKEN
        return NOT_TAKEN

    def resume(self, host: str, game_id: str, session: Session) -> None:
        """Bot's replica: ask ``host`` for the seat ``session``'s bot holds in ``game_id`` (awaited until
        it is attached or refused)."""
        if session.closed:
            return
        self.awaited.setdefault((game_id, session.session_id), False)
        link = self.link(host)
        if link is not None:
            resume = relay_pb2.SeatResume(
                game_id=game_id,
                session_id=session.session_id,
                key=session.identity.key,
                live_events=session.live_events,
            )
            link.send(relay_pb2.RelayFrame(resume=resume).SerializeToString())

    def closed(self, session: Session) -> None:
        """Bot's replica: the session closed; the hosts of its relayed games are told (its grace starts)."""
        self.sessions.pop(session.session_id, None)
        for game_id, session_id in list(self.awaited):
            if session_id == session.session_id:
                del self.awaited[game_id, session_id]
        for (game_id, session_id), link in list(self.remote.items()):
            if session_id == session.session_id:
                self._unrelay((game_id, session_id))
                link.send(_released(game_id, session_id))


def _released(game_id: str, session_id: str) -> bytes:
    """A serialized RelayFrame{released}."""
    released = relay_pb2.SeatReleased(game_id=game_id, session_id=session_id)
    return relay_pb2.RelayFrame(released=released).SerializeToString()
