"""The relay's connections (``server.play.relay``): one TCP connection per pair of replicas, on each
replica's ``relay_port``, carrying the messages of proto/conquest/cluster/v1/relay.proto, each behind its
length (``server.play.relay_wire``).

Replicas in one network namespace (``conquest serve --processes N`` on one machine) reach each other over a
Unix socket instead, in Linux's abstract namespace and named by the replica (``local_name``): a relayed
round trip between two processes costs about a fifth less CPU than over loopback TCP (docs/benchmarks.md,
``make bench-relay``). Elsewhere (pods, other machines) the name is not found and the dial goes to TCP.

The dialing replica's first message is its RelayRequest{hello}, with the cluster's shared secret; the dialed
replica takes nothing else first, refuses a connection without the secret (RelayResponse{refused}, then
closes it) and one that sends no hello within ``HELLO_TIMEOUT_S``, and logs a peer address's refusals once
a minute at most (``REFUSAL_LOG_S``). Then either side writes frames: those queued in one event-loop turn
go out as one message (``Link``). gRPC carried the relay before; in Python its CPU per message (~70 µs each
end) was most of a relayed decision's cost (docs/architecture.md).
"""

from __future__ import annotations

import asyncio
import hmac
import socket
import sys
from dataclasses import dataclass
from typing import Protocol, cast

import structlog
from google.protobuf.message import DecodeError

from conquest.cluster.v1 import relay_pb2
from server.ops.logs import PerPeer
from server.play import relay_wire
from server.records import shown

HELLO_TIMEOUT_S = 5.0
"""A connection to the relay port that sends no hello this long after it opened is refused."""
CONNECT_TIMEOUT_S = 5.0
"""A dial that does not connect this soon fails (an address that drops packets would hold it minutes)."""
HELLO_LIMIT = 4096
"""Bytes a hello may take: a connection's first message is read before the peer has shown the secret."""
MESSAGE_LIMIT = 64 << 20
"""Bytes a message may take (a peer's frames of one event-loop turn); a longer one ends the connection."""
UNREAD_LIMIT = 32 << 20
"""Bytes written to a peer and not yet taken by it before the connection is cut: a replica that lets this
much go unread has stopped reading, and the games do not wait for it (its seats' reconnect grace runs)."""
REFUSAL_LOG_S = 60.0
"""A peer address's refused connections are logged (``relay_refused``) once in this many seconds at most;
its next line says how many were not (``suppressed``). Every refusal is counted in
``conquest_streams_cut_total{reason="relay_refused"}``."""
REFUSAL_LOG_PEERS = 64
"""Peer addresses whose refusals are logged one by one in those seconds; the rest share one line."""
REFUSAL = (
    "the relay port is for the replicas of a cluster only: a connection's first message must be a "
    "RelayRequest{hello} carrying the cluster's server.cluster_token (conquest.cluster.v1, each message "
    "behind its length, 4 bytes big-endian); bots connect to BotService.Connect on the server's address"
)
log = structlog.get_logger("conquest.relay")


class Link:
    """The relay with one other replica over one connection; frames are queued, never awaited (no game
    waits on it), and those queued in one event-loop turn go out as one message."""

    def __init__(self, peer: str, dialed: bool) -> None:
        self.peer = peer
        self.closed = False
        # The dialing replica writes RelayRequests and reads RelayResponses; the dialed one the reverse.
        self.frame_key = relay_wire.RESPONSE_FRAMES_KEY if dialed else relay_wire.REQUEST_FRAMES_KEY
        self.read: type[relay_pb2.RelayRequest] | type[relay_pb2.RelayResponse] = (
            relay_pb2.RelayRequest if dialed else relay_pb2.RelayResponse
        )
        self.transport: asyncio.Transport | None = None
        """None while the connection is being dialled: frames wait in ``pending`` meanwhile."""
        self.pending: list[bytes] = []
        self.loop = asyncio.get_running_loop()

    def send(self, frame: bytes) -> None:
        """Queue ``frame``, a serialized RelayFrame."""
        if self.closed:
            return
        pending = self.pending
        pending.append(relay_wire.framed(self.frame_key, frame))
        if len(pending) == 1 and self.transport is not None:
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the queued frames as one message."""
        if self.pending and self.transport is not None and not self.transport.is_closing():
            self.transport.write(relay_wire.message(self.pending))
            self.pending = []

    def open(self, transport: asyncio.Transport) -> None:
        """The connection is up (and its hello written, or read): what was queued meanwhile goes out."""
        self.transport = transport
        if self.closed:
            transport.close()
        else:
            self.flush()

    def close(self) -> None:
        """Write what is queued and close the connection."""
        if not self.closed:
            self.flush()
            self.closed = True
            if self.transport is not None:
                self.transport.close()


class Endpoint(Protocol):
    """What a connection tells its replica's relay (``server.play.relay.Relay``)."""

    replica: str
    token: str

    def greeted(self, link: Link) -> None:
        """A replica dialled this one and showed the secret: ``link`` is the relay with it."""

    def received(self, link: Link, message: bytes) -> None:
        """A message read from ``link``: a serialized RelayRequest or RelayResponse."""

    def dropped(self, link: Link) -> None:
        """``link``'s connection ended, or never came up."""

    def cut(self, reason: str) -> None:
        """A connection was refused or cut (``conquest_streams_cut_total``'s reason)."""


class Connection(asyncio.Protocol):
    """One relay connection, either end: the dialing one's ``link`` is given, the dialed one's comes from
    its peer's hello. ``refusals``: the dialed end's log of the connections it refuses, shared by every
    connection of its listener."""

    def __init__(self, relay: Endpoint, link: Link | None, refusals: PerPeer | None = None) -> None:
        self.relay = relay
        self.link = link
        self.refusals = refusals or PerPeer(REFUSAL_LOG_S, REFUSAL_LOG_PEERS)
        self.transport: asyncio.Transport | None = None
        self.rest = bytearray()
        """The start of a message not all read yet."""
        self.needed = relay_wire.LENGTH_BYTES
        """The bytes ``rest`` needs before a message can be read from it."""
        self.hello_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport = cast(asyncio.Transport, transport)  # uvloop's is no subclass of it
        sock = transport.get_extra_info("socket")
        if sock.family != socket.AF_UNIX:
            # a relayed message is due at once: never held back to be joined with a later one
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        transport.set_write_buffer_limits(high=UNREAD_LIMIT)
        if self.link is None:
            loop = asyncio.get_running_loop()
            self.hello_timer = loop.call_later(HELLO_TIMEOUT_S, self.refuse, "no hello in time")
            return
        hello = relay_pb2.RelayHello(replica=self.relay.replica, cluster_token=self.relay.token)
        transport.write(relay_wire.message([relay_pb2.RelayRequest(hello=hello).SerializeToString()]))
        self.link.open(transport)

    def data_received(self, data: bytes) -> None:
        rest = self.rest
        if rest:
            rest += data
            if len(rest) < self.needed:
                return
            data = bytes(rest)
            rest.clear()
        try:
            messages, taken, self.needed = relay_wire.split(data, MESSAGE_LIMIT)
        except relay_wire.TooLarge as too_large:
            if self.link is None:
                self.refuse(str(too_large))
            else:
                self.end(str(too_large))
            return
        rest += data[taken:]
        for message in messages:
            if self.link is None:
                if self.greet(message) is None:
                    return
            elif not self.link.closed:
                self.relay.received(self.link, message)
        if self.link is None and self.needed > HELLO_LIMIT:
            self.refuse(f"a first message of {self.needed} bytes, longer than a hello")

    def greet(self, message: bytes) -> Link | None:
        """The dialed end: the first message must be the hello with the cluster's secret."""
        try:
            hello = relay_pb2.RelayRequest.FromString(message).hello if len(message) <= HELLO_LIMIT else None
        except DecodeError:
            hello = None
        if hello is None or not hello.replica:
            self.refuse("the first message was not a RelayRequest{hello}")
            return None
        if not hmac.compare_digest(hello.cluster_token.encode(), self.relay.token.encode()):
            self.refuse(
                f"replica {shown(hello.replica)} sent a wrong cluster_token"
            )  # its name is the peer's
            return None
        assert self.transport is not None and self.hello_timer is not None
        self.hello_timer.cancel()
        self.link = Link(hello.replica, dialed=True)
        self.link.open(self.transport)
        self.relay.greeted(self.link)
        return self.link

    def refuse(self, why: str) -> None:
        """The dialed end: the peer is not a replica of this cluster; it is told why, and the connection
        closed."""
        assert self.transport is not None
        if self.transport.is_closing():
            return
        peer = self.transport.get_extra_info("peername")
        # A flood of wrong hellos must not fill the disk: a few lines per address, every refusal counted.
        address = str(peer[0]) if isinstance(peer, tuple) else "unix socket"
        self.refusals.warning(log, "relay_refused", address, peer=peer, why=why)
        self.relay.cut("relay_refused")
        self.transport.write(
            relay_wire.message([relay_pb2.RelayResponse(connection_refused=REFUSAL).SerializeToString()])
        )
        self.transport.close()

    def end(self, why: str) -> None:
        """Cut the connection now: its peer broke the relay's framing."""
        assert self.transport is not None and self.link is not None
        log.warning("relay_dropped", peer=self.link.peer, error=why)
        self.transport.abort()

    def pause_writing(self) -> None:
        """``UNREAD_LIMIT`` bytes wait for the peer to read them: it stopped reading, and is cut off."""
        assert self.transport is not None
        peer = self.link.peer if self.link is not None else self.transport.get_extra_info("peername")
        log.warning("relay_cut", peer=peer, why=f"{UNREAD_LIMIT} bytes unread")
        self.relay.cut("relay_unread")
        self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.hello_timer is not None:
            self.hello_timer.cancel()
        if self.link is not None:
            if exc is not None:
                log.warning("relay_dropped", peer=self.link.peer, error=str(exc))
            self.relay.dropped(self.link)


LOCAL = sys.platform == "linux"
"""Abstract Unix sockets (a name, no file) are Linux's: elsewhere every link is TCP."""


def local_name(replica: str) -> str:
    """The abstract Unix socket replica ``replica``'s relay listens on beside its TCP port. Abstract names
    live per network namespace, as ports do, so only replicas sharing this one's network find it; a
    replica's name is unique (its host, process id and a random part: ``server.app``)."""
    return f"\0conquest-relay/{replica}"


async def _dial_local(relay: Endpoint, link: Link) -> bool:
    """Connect ``link`` over replica ``link.peer``'s Unix socket; False when it is not in this network
    namespace. (The socket is connected here: uvloop's own connect takes no abstract name.)"""
    loop = asyncio.get_running_loop()
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.setblocking(False)
    try:
        await loop.sock_connect(sock, local_name(link.peer))
        await loop.create_unix_connection(lambda: Connection(relay, link), sock=sock)
    except OSError:
        sock.close()
        return False
    return True


async def dial(relay: Endpoint, link: Link, address: str) -> None:
    """Connect ``link`` to replica ``link.peer``: over its Unix socket when it runs in this network
    namespace, else at ``address`` (``host:port``), where its relay listens on TCP."""
    if LOCAL and await _dial_local(relay, link):
        return
    host, _, port = address.rpartition(":")
    loop = asyncio.get_running_loop()
    try:
        connecting = loop.create_connection(lambda: Connection(relay, link), host.strip("[]"), int(port))
        await asyncio.wait_for(connecting, CONNECT_TIMEOUT_S)
    except (OSError, TimeoutError, ValueError) as failed:
        log.warning(
            "relay_dropped", peer=link.peer, address=address, error=str(failed) or "connect timed out"
        )
        relay.dropped(link)


@dataclass
class Listening:
    """A relay's listeners: TCP on ``port``, and (on Linux) its Unix socket for the replicas in this
    network namespace."""

    servers: list[asyncio.Server]

    @property
    def port(self) -> int:
        port: int = self.servers[0].sockets[0].getsockname()[1]
        return port

    def close(self) -> None:
        for server in self.servers:
            server.close()


async def listen(relay: Endpoint, port: int) -> Listening:
    """Take the other replicas' connections on ``port`` (0: any free one) of every address of this host,
    IPv6 and IPv4 on one socket where the host has IPv6 (so port 0 is one port for both), and on
    ``local_name(relay.replica)``."""
    try:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        address: tuple[str, int] = ("::", port)
    except OSError:  # no IPv6 here
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        address = ("0.0.0.0", port)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as failed:
        sock.close()
        raise OSError(f"cannot listen on relay_port {port}: {failed}") from failed
    loop = asyncio.get_running_loop()
    refusals = PerPeer(REFUSAL_LOG_S, REFUSAL_LOG_PEERS)
    servers = [await loop.create_server(lambda: Connection(relay, None, refusals), sock=sock)]
    if LOCAL:
        name = local_name(relay.replica)
        try:
            servers.append(await loop.create_unix_server(lambda: Connection(relay, None, refusals), name))
        except OSError as failed:
            servers[0].close()
            raise OSError(f"cannot listen on the relay's Unix socket @{name[1:]}: {failed}") from failed
    return Listening(servers)
