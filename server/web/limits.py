"""What one client, and all clients together, may hold of the dashboard: live views, connections, and how
long a connection may take to send its request or to read its answer (issue 33: "no one client can
starve the others").

Each is a ``[server]`` setting (``dashboard_*``, docs/configuration.md) with the default below; the play
process hands them to the dashboard's process (``server.web.process.Settings``). This module imports
nothing heavy: the play process reads it without loading the web stack.
"""

from __future__ import annotations

from dataclasses import dataclass

CLIENT_WATCHES = 4
"""Live games (``/api/games/<id>/watch`` streams) one client address may follow at once: a visitor's
tabs. The dashboard follows at most ``server.web.live.MAX_WATCHERS`` over all clients, so no one address
can take them all."""
CLIENT_CONNECTIONS = 32
"""HTTP connections one client address may hold open at once: a browser opens up to six to a site, so
this leaves room for a few visitors behind one address (a home, an office)."""
CONNECTIONS = 4000
"""HTTP connections the dashboard holds open at once over all clients (fewer when its open-file limit is
lower: ``server.web.connections.within_open_files``)."""
REQUEST_TIMEOUT_S = 10.0
"""Seconds a connection has to send a whole request once it opens, or once its last answer is sent: a
browser sends one at once; a client sending its request head a byte a second (slowloris), or nothing,
is cut."""
SEND_TIMEOUT_S = 30.0
"""Seconds an answer may stand unread (the dashboard's send buffer full all that time) before its
connection is cut: a live view nobody reads frees its slot."""


@dataclass(frozen=True)
class WebLimits:
    """The dashboard's limits (the ``[server]`` settings ``dashboard_*``), by default the documented ones."""

    client_watches: int = CLIENT_WATCHES
    client_connections: int = CLIENT_CONNECTIONS
    connections: int = CONNECTIONS
    request_timeout_s: float = REQUEST_TIMEOUT_S
    send_timeout_s: float = SEND_TIMEOUT_S
