"""What every connection to the dashboard passes, below its requests: a deadline for each request to arrive
whole, a cut for a client that leaves its answer unread, and bounds on the connections one client address
and all clients may hold open (issue 33, item 3: "The dashboard never times out slow or silent
connections: 800 slowloris connections (headers at one byte a second) and 2,000 silent ones were held for
good; at the 20,000 open-file limit it answered no visitor for ~40 s and logged nothing").

uvicorn closes a kept-alive connection left silent ``timeout_keep_alive`` seconds after an answer, and
gives nothing else a deadline: a connection that never sends a byte, or sends its request a byte a
second (any byte restarts uvicorn's keep-alive clock), is held for good, and so is an answer nobody reads.
``GuardedH11`` is uvicorn's h11 protocol with those deadlines and the bounds of ``OpenConnections``;
``start_dashboard`` passes it to uvicorn as its ``http`` protocol. The limits are ``WebLimits``
(``server.web.limits``); a client is its socket's address, as for the rate limit (``server.web.guard``).

A connection over a bound is answered at once (429 for one address's, 503 for all clients'), with no
request read, and closed; a refusal and a cut are logged, at most a line a second of each kind, each
saying how many like it were left out (``server.ops.logs.Sampled``).
"""

from __future__ import annotations

import asyncio
import contextlib
import http
import json
from typing import Any, ClassVar

import h11
import structlog
from uvicorn.protocols.http.h11_impl import H11Protocol

from server.ops.logs import Sampled
from server.web.guard import SECURITY_HEADERS
from server.web.limits import WebLimits

log = structlog.get_logger("conquest.dashboard")

REFUSING_MAX = 256
"""Refused connections that may be waiting at once for their answer to be read (each for up to
``REFUSAL_LINGER_S``); past it, a refused connection is closed unanswered."""
REFUSAL_LINGER_S = 1.0
"""Seconds a refused connection stays open after its answer, so that the client reads the answer
before the close (closing a socket with the request unread resets it, and the answer can be lost)."""
FILE_RESERVE = 100 + REFUSING_MAX
"""Open files the dashboard process keeps for other things than the connections it holds: the database,
the game server's channel, the heavy worker's pipes, its logs, and the refused connections lingering."""
RETRY_AFTER_S = 5
"""The Retry-After of a connection refused for a bound (seconds)."""

_SAMPLED = Sampled(per_s=1)
"""Refusals and cuts are set off by clients: at most one line a second of each."""


def open_file_limit() -> int | None:
    """The files this process may open (its soft RLIMIT_NOFILE), None when unbounded or unknown."""
    try:
        import resource  # Unix only
    except ImportError:
        return None
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


def raise_open_file_limit() -> None:
    """Raise this process's soft open-file limit to its hard limit: each connection the dashboard holds
    is an open file, and a soft limit of 1,024 (a common default) would bound it below its settings.
    Where the limit cannot be raised, ``within_open_files`` lowers the bound instead."""
    try:
        import resource  # Unix only
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        with contextlib.suppress(OSError, ValueError):  # a hard limit above what the system allows (macOS)
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def within_open_files(connections: int, open_files: int | None) -> int:
    """``connections``, or fewer when a process that may open ``open_files`` files could not hold them and
    its other files (``FILE_RESERVE``): at the open-file limit nothing is accepted, not even to say so."""
    if open_files is None:
        return connections
    return max(1, min(connections, open_files - FILE_RESERVE))


def http_answer(status: int, error: str, retry_after: int | None = None) -> bytes:
    """A whole HTTP/1.1 answer ``{"error": error}`` with ``status`` that closes its connection, with the
    dashboard's security headers (written without h11: a refusal answers before any request is read)."""
    body = json.dumps({"error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
        *([(b"retry-after", str(retry_after).encode())] if retry_after is not None else []),
        *SECURITY_HEADERS,
    ]
    head = f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\n".encode()
    return head + b"".join(name + b": " + value + b"\r\n" for name, value in headers) + b"\r\n" + body


class OpenConnections:
    """The connections one dashboard holds open, by client address, within ``limits``: at most
    ``limits.client_connections`` for one address and ``limit`` in all (``limits.connections``, or fewer
    under the open-file limit ``open_files``: the lowering is logged once)."""

    def __init__(self, limits: WebLimits, open_files: int | None = None) -> None:
        self.limits = limits
        self.limit = within_open_files(limits.connections, open_files)
        self.by_client: dict[str, int] = {}
        self.total = 0
        self.refusing = 0
        """Refused connections lingering (``REFUSAL_LINGER_S``) until their answer is read."""
        if self.limit < limits.connections:
            log.warning(
                "dashboard_connection_limit_lowered",
                configured=limits.connections,
                limit=self.limit,
                open_files=open_files,
                detail=f"server.dashboard_connection_limit is {limits.connections}, but this process may "
                f"open only {open_files} files; it holds at most {self.limit} connections. Raise the "
                "open-file limit (ulimit -n, systemd LimitNOFILE=) to hold more",
            )

    def admit(self, client: str) -> bytes | None:
        """Count a new connection of ``client`` in (None), or the answer that refuses it (nothing counted;
        the refusal is logged)."""
        if self.total >= self.limit:
            _SAMPLED.info(
                log,
                "dashboard_connections_full",
                client=client,
                limit=self.limit,
                detail=f"the dashboard holds {self.total} connections, server.dashboard_connection_limit: "
                "new ones are refused (503) until some close; raise the limit, or put a reverse proxy with "
                "per-client limits in front",
            )
            return http_answer(
                503,
                f"the dashboard is serving as many connections as it can ({self.limit}); retry in "
                f"{RETRY_AFTER_S} s",
                RETRY_AFTER_S,
            )
        held = self.by_client.get(client, 0)
        if held >= self.limits.client_connections:
            _SAMPLED.info(
                log,
                "dashboard_client_connections_refused",
                client=client,
                limit=self.limits.client_connections,
                detail=f"{client} holds {held} connections to the dashboard already, "
                "server.dashboard_client_connection_limit: one more is refused (429)",
            )
            return http_answer(
                429,
                f"too many connections from {client}: {held} are open, at most "
                f"{self.limits.client_connections} at once; close some (or send your requests over fewer, "
                f"kept alive) and retry in {RETRY_AFTER_S} s",
                RETRY_AFTER_S,
            )
        self.by_client[client] = held + 1
        self.total += 1
        return None

    def release(self, client: str) -> None:
        """An admitted connection of ``client`` has closed."""
        self.total -= 1
        held = self.by_client.pop(client) - 1
        if held:
            self.by_client[client] = held


class GuardedH11(H11Protocol):
    """uvicorn's h11 protocol within the limits of ``open_connections`` (a class made by ``protocol_of``:
    uvicorn makes each connection's protocol from a class):

    - a connection over a bound is answered 429 or 503 and closed (``OpenConnections.admit``);
    - a request must arrive whole within ``request_timeout_s`` of the connection opening, or of its last
      answer being sent; a request begun and not finished by then is answered 408, and the connection,
      begun or silent, is closed;
    - an answer that stays unread ``send_timeout_s`` (the send buffer full all that time) is cut: the
      connection is closed, so the request (a live view's stream) ends and frees what it held.
    """

    open_connections: ClassVar[OpenConnections]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.limits = self.open_connections.limits
        self.address = ""
        self.admitted = False
        self.refused = False
        self.request_deadline: asyncio.TimerHandle | None = None
        self.send_deadline: asyncio.TimerHandle | None = None
        self.linger: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self.address = self.client[0] if self.client else ""
        refusal = self.open_connections.admit(self.address)
        if refusal is None:
            self.admitted = True
            self._await_request()
            return
        self.refused = True
        if self.open_connections.refusing >= REFUSING_MAX:
            transport.abort()  # a flood of refusals: no file is kept for answering them
            return
        self.open_connections.refusing += 1
        transport.write(refusal)
        if transport.can_write_eof():
            transport.write_eof()  # the client reads the answer, then its end; its close ends the linger
        self.linger = self.loop.call_later(REFUSAL_LINGER_S, transport.abort)

    def data_received(self, data: bytes) -> None:
        if self.refused:
            return  # the request of a refused connection is read only to be dropped
        super().data_received(data)
        self._await_request()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._await_request()  # the next request on a kept-alive connection has the same deadline

    def _await_request(self) -> None:
        """Start the deadline of a request not yet whole (the first, the next on a kept-alive connection, or
        one whose body is still coming), or stop it once the request is whole."""
        awaited = self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and not self.transport.is_closing()
        if awaited and self.request_deadline is None:
            self.request_deadline = self.loop.call_later(self.limits.request_timeout_s, self._request_late)
        elif not awaited and self.request_deadline is not None:
            self.request_deadline.cancel()
            self.request_deadline = None

    def _request_late(self) -> None:
        self.request_deadline = None
        if self.transport.is_closing():
            return
        begun = bool(self.conn.trailing_data[0]) or self.conn.their_state is h11.SEND_BODY
        answering = self.cycle is not None and not self.cycle.response_complete
        if begun:
            timeout = f"{self.limits.request_timeout_s:g} s"
            _SAMPLED.info(
                log,
                "dashboard_request_timeout",
                client=self.address,
                detail=f"a request from {self.address} did not arrive whole within {timeout} "
                "(server.dashboard_request_timeout_ms): its connection is closed",
            )
            if self.conn.their_state is h11.IDLE and not answering:
                self.transport.write(
                    http_answer(
                        408,
                        f"the request did not arrive whole within {timeout} of the connection opening (or of "
                        "the previous answer): send each request whole, at once",
                    )
                )
        self.transport.close()  # a silent connection (a browser's spare) is closed without a word

    def pause_writing(self) -> None:
        super().pause_writing()
        if self.send_deadline is None:
            self.send_deadline = self.loop.call_later(self.limits.send_timeout_s, self._reader_stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self.send_deadline is not None:
            self.send_deadline.cancel()
            self.send_deadline = None

    def _reader_stalled(self) -> None:
        self.send_deadline = None
        _SAMPLED.info(
            log,
            "dashboard_reader_stalled",
            client=self.address,
            path=self.scope["path"] if self.scope else "",
            detail=f"{self.address} left its answer unread for {self.limits.send_timeout_s:g} s "
            "(server.dashboard_send_timeout_ms): its connection is closed",
        )
        self.transport.abort()  # what is buffered for it is dropped: it was not reading

    def connection_lost(self, exc: Exception | None) -> None:
        if self.admitted:
            self.admitted = False
            self.open_connections.release(self.address)
        if self.linger is not None:
            self.open_connections.refusing -= 1
        for timer in (self.request_deadline, self.send_deadline, self.linger):
            if timer is not None:
                timer.cancel()
        self.request_deadline = self.send_deadline = self.linger = None
        super().connection_lost(exc)


def protocol_of(open_connections: OpenConnections) -> type[GuardedH11]:
    """``GuardedH11`` within ``open_connections`` (what uvicorn's ``http`` setting takes)."""

    class Guarded(GuardedH11):
        pass

    Guarded.open_connections = open_connections
    return Guarded
