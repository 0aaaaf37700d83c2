"""What every HTTP request of the dashboard passes first: a per-client rate limit, a per-client bound on the
live games followed, and the security headers.

All are one ASGI middleware around the Starlette app (``Guard``), so they cover every route, the static
files and the errors alike. A client is its address as the socket sees it (behind a reverse proxy every
visitor shares the proxy's: docs/dashboard.md). The limit is a token bucket per address
(``server.ops.ratelimit``): ``BURST`` requests at once, refilled at ``RATE`` a second; a heavy request
(``is_heavy``) costs ``HEAVY_COST`` of them. A client over its limit gets 429 with Retry-After, in whole
seconds, and nothing is computed. A live view (``is_live_view``: a stream as long as the game) is held
from its request to its end, and one address may hold ``watch_limit`` at once (issue 33, item 2: "One
address can take all 200 live-view slots of the dashboard"); one more gets 429.

What a connection passes before its request (deadlines, bounds on connections) is
``server.web.connections``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from server.ops.ratelimit import RateLimit
from server.web.limits import CLIENT_WATCHES

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
"""The pages run only the dashboard's own script files (no inline script, no eval), load nothing from
elsewhere and may not be framed; inline ``style`` attributes carry the seats' colours."""
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
]
HEAVY_COST = 5
"""Tokens a request that may compute (``is_heavy``) costs."""
RATE = 10.0
"""Requests a second a client may keep up (tokens refilled a second)."""
BURST = 60
"""Requests a client may make at once (a page load takes about ten)."""
WATCH_RETRY_S = 10
"""The Retry-After of a live view refused for the client's bound (seconds)."""


def is_heavy(path: str) -> bool:
    """Whether a request may compute: the odds, a replay's steps."""
    return path == "/api/odds" or (path.startswith("/api/games/") and path.endswith("/replay"))


def is_live_view(path: str) -> bool:
    """Whether a request is a live game's stream (server-sent events for as long as the game lasts)."""
    return path.startswith("/api/games/") and path.endswith("/watch")


class Guard:
    """The ASGI middleware: rate limit, then the bound on live views, then the app, every response with
    ``SECURITY_HEADERS``."""

    def __init__(
        self, app: ASGIApp, limit: RateLimit | None = None, watch_limit: int = CLIENT_WATCHES
    ) -> None:
        self.app = app
        self.limit = limit or RateLimit(RATE, BURST)
        self.watch_limit = watch_limit
        self.watching: dict[str, int] = {}
        """Live views open, by client address (addresses with none are dropped)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        client = scope.get("client")
        address = client[0] if client else ""
        wait = self.limit.take(address, HEAVY_COST if is_heavy(scope["path"]) else 1)
        if wait:
            seconds = max(1, math.ceil(wait))
            await refuse(
                send_with_headers,
                429,
                f"too many requests from {address}: at most {self.limit.burst} at once and "
                f"{self.limit.rate:g} a second (the odds and replays count {HEAVY_COST} each); "
                f"retry in {seconds} s",
                seconds,
            )
            return
        if not is_live_view(scope["path"]):
            await self.app(scope, receive, send_with_headers)
            return
        watching = self.watching.get(address, 0)
        if watching >= self.watch_limit:
            await refuse(
                send_with_headers,
                429,
                f"too many live games followed from {address}: {watching} are open, at most "
                f"{self.watch_limit} at once; close one (each page following a live game holds one) and "
                f"retry in {WATCH_RETRY_S} s",
                WATCH_RETRY_S,
            )
            return
        self.watching[address] = watching + 1  # counted now: the stream starts after an await
        try:
            await self.app(scope, receive, send_with_headers)  # as long as the stream lasts
        finally:
            left = self.watching.pop(address) - 1
            if left:
                self.watching[address] = left


async def refuse(send: Send, status: int, error: str, retry_after: int) -> None:
    """Answer ``{"error": error}`` with ``status`` and Retry-After ``retry_after`` seconds."""
    body = json.dumps({"error": error}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", str(retry_after).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
