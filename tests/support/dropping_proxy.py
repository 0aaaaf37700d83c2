"""A loopback TCP relay to a server whose connections can all be cut at once, as a network failure would:
how tests make a bot lose its connection mid-game and reconnect."""

from __future__ import annotations

import asyncio
import contextlib


class DroppingProxy:
    """Relays every connection made to its own port (``start()``) to ``server_port`` on 127.0.0.1."""

    def __init__(self, server_port: int) -> None:
        self.server_port = server_port
        self.pipes: list[asyncio.StreamWriter] = []
        self.drops = 0
        """How many times ``drop()`` cut the connections."""

    async def start(self, port: int = 0) -> int:
        """Listen on ``port`` of 127.0.0.1 (0: a free one; the port it had, to open again after ``close``);
        returns it."""
        self.listener = await asyncio.start_server(self._accept, "127.0.0.1", port)
        port: int = self.listener.sockets[0].getsockname()[1]
        return port

    async def _accept(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        server_r, server_w = await asyncio.open_connection("127.0.0.1", self.server_port)
        self.pipes += [client_w, server_w]
        await asyncio.gather(self._pump(client_r, server_w), self._pump(server_r, client_w))

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):  # the other side, or drop(), ended the connection
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    def drop(self) -> None:
        """Cut every open connection (both ends, at once)."""
        self.drops += 1
        for writer in self.pipes:
            writer.transport.abort()
        self.pipes.clear()

    def close(self) -> None:
        """Stop accepting connections."""
        self.listener.close()
