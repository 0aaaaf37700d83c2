"""Who may open a stream: the bound on streams each client address holds open (Connect, before and after
its Hello, and WatchGame; the dashboard process has a bound of its own), the Hello deadline, and the bound
on streams waiting for their Hello.

A stream refused here is told why (``Refused``: a fatal Error on Connect, ``RESOURCE_EXHAUSTED`` on
WatchGame); what it held is given back when it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from server.ops.calls import client_of
from server.ops.config import ServerConfig

T = TypeVar("T")


class Refused(Exception):
    """A stream the server does not take; ``code`` is the Error code a Connect stream is sent."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Admission:
    """The server's open streams, per client address, and its streams waiting for a Hello."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.streams: dict[str, int] = {}
        """client address -> streams it holds open now."""
        self.waiting_hello = 0

    @contextmanager
    def stream(self, peer: str, client: str = "", limit: int = 0) -> Iterator[None]:
        """Hold one of the client's streams while the block runs. The client is ``peer``'s address, held to
        ``client_stream_limit``; or, with ``client`` and ``limit``, a client of its own limit, whatever its
        address (the dashboard process: ``server.arena.service.DashboardClient``).

        Raises:
            Refused: ``too_many_streams``, the client holds its limit of streams open already.
        """
        client = client or client_of(peer)
        held = self.streams.get(client, 0)
        if held >= (limit or self.config.client_stream_limit):
            raise Refused("too_many_streams", self._too_many(client, held, limit))
        self.streams[client] = held + 1
        try:
            yield
        finally:
            left = self.streams[client] - 1
            if left:
                self.streams[client] = left
            else:
                del self.streams[client]

    def _too_many(self, client: str, held: int, limit: int) -> str:
        """Why a stream of ``client``, holding ``held`` streams, is refused (``limit``: its own)."""
        if limit:
            return (
                f"the {client} holds {held} WatchGame streams open, the most it is given ({limit}: its live "
                "games followed at once, and a margin): retry once one of them ends"
            )
        return (
            f"{client} holds {held} streams open (Connect and WatchGame), the most one client may "
            f"(server.client_stream_limit = {self.config.client_stream_limit}): close one first, or play "
            "more games per session (Hello.capacity)"
        )

    async def hello(self, first: Awaitable[T]) -> T:
        """The stream's first message, awaited at most ``hello_timeout_ms``.

        Raises:
            Refused: ``server_busy``, ``unauthenticated_stream_limit`` streams wait for their Hello
                already; ``hello_timeout``, nothing came in time.
        """
        limit = self.config.unauthenticated_stream_limit
        if self.waiting_hello >= limit:
            if asyncio.iscoroutine(first):
                first.close()
            raise Refused(
                "server_busy",
                f"{self.waiting_hello} streams are waiting to send their Hello, the most the server takes "
                f"(server.unauthenticated_stream_limit = {limit}): connect again in a few seconds, and send "
                "Hello as soon as the stream opens",
            )
        self.waiting_hello += 1
        timeout_ms = self.config.hello_timeout_ms
        try:
            return await asyncio.wait_for(first, timeout_ms / 1000)
        except TimeoutError:
            raise Refused(
                "hello_timeout",
                f"no Hello within {timeout_ms} ms of opening the stream (server.hello_timeout_ms): send "
                "Hello as the stream's first message, at once",
            ) from None
        finally:
            self.waiting_hello -= 1
