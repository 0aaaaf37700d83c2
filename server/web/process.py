"""The dashboard in a process of its own, so that no web request holds the play process's event loop or
GIL: play comes first (issue 21).

``DashboardProcess`` (in the play process) spawns the dashboard process, waits until it listens, and
watches it: a dashboard that dies (killed, out of memory) is reported in the log and in
``conquest_dashboard_restarts_total`` and started again on the same port after ``RESTART_DELAY_S``; the
games never notice. The dashboard process (``main``) opens the database itself for the records
(``server.arena.ledger.Ledger``) and follows the games being played as a client of the game server's
Arena API (``server.web.live.LiveFeed``): the play process publishes nothing of its own for it, but counts
its calls under limits of their own, known by the secret it hands it (``Settings.play_token``). It runs
at a lower CPU priority than the games (``NICENESS``). It stops on SIGTERM, and when the play process is
gone (the pipe between them closes).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

import structlog

from server.web.limits import WebLimits

log = structlog.get_logger("conquest.dashboard")

START_TIMEOUT_S = 60.0
"""Seconds the dashboard process has to start listening."""
RESTART_DELAY_S = 1.0
"""Seconds between a dashboard process's end and its restart."""
STOP_TIMEOUT_S = 5.0
"""Seconds a stopped dashboard process has to exit before it is killed."""
NICENESS = 10
"""Added to the dashboard process's nice value (and so its heavy worker's): when the cores are busy, the
operating system gives them to the games first."""


@dataclass(frozen=True)
class Settings:
    """What the dashboard process needs (passed to it pickled)."""

    port: int
    """HTTP port to listen on (0: a free one)."""
    play_address: str
    """host:port of the game server's gRPC API (its live games)."""
    play_token: str = field(default="", repr=False)
    """The secret the game server made for this dashboard at its start, shown with every Arena call (the
    feed is then counted under limits of its own, not its address's: ``server.web.live``); passed with
    these settings through multiprocessing's pipe, never on a command line ("": none)."""
    database_url: str = ""
    """The game server's database ("": none, only live games are shown)."""
    queues: tuple[str, ...] = ()
    """The names of the game server's configured queues."""
    host: str = ""
    """Interface to listen on ("": every one)."""
    log_format: str = "console"
    web_limits: WebLimits = field(default_factory=WebLimits)
    """What one client and all clients may hold of the dashboard (its ``dashboard_*`` settings)."""


def play_address(address: str, port: int) -> str:
    """Where a process on this host reaches a gRPC server bound to ``address`` (host:port) on ``port``."""
    host = address.rsplit(":", 1)[0]
    return f"{'localhost' if host in ('', '[::]', '0.0.0.0', '::') else host}:{port}"


class DashboardProcess:
    """The dashboard process of one game server, restarted when it dies. ``on_restart`` is called at each
    restart (the metrics count them)."""

    def __init__(self, settings: Settings, on_restart: Callable[[], None] = lambda: None) -> None:
        self.settings = settings
        self.on_restart = on_restart
        self.process: BaseProcess | None = None
        self.restarts = 0
        self._pipe: Connection | None = None
        self._watching: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def port(self) -> int:
        return self.settings.port

    @property
    def url(self) -> str:
        return f"http://localhost:{self.port}/"

    async def start(self) -> None:
        """Start the dashboard process and wait until it listens; then watch it.

        Raises:
            OSError: it could not listen (the message says why) or did not start in time.
        """
        await self._spawn()
        self._watching = asyncio.create_task(self._watch(), name="dashboard-watch")

    async def _spawn(self) -> None:
        context = multiprocessing.get_context("spawn")  # the play process's gRPC threads are not forked
        ours, theirs = context.Pipe()
        process = context.Process(target=main, args=(self.settings, theirs), name="conquest-dashboard")
        process.start()
        theirs.close()
        ready = await asyncio.to_thread(ours.poll, START_TIMEOUT_S)
        answer = ours.recv() if ready else "it did not start listening in time"
        if not isinstance(answer, int):
            ours.close()
            process.kill()
            await asyncio.to_thread(process.join)
            raise OSError(
                f"the dashboard could not serve on port {self.settings.port}: {answer}; choose another port "
                "(--dashboard-port, server.dashboard_port) or 0 for no dashboard"
            )
        self.settings = replace(self.settings, port=answer)  # a restart listens on the same port
        self.process, self._pipe = process, ours

    async def _watch(self) -> None:
        while True:
            assert self.process is not None
            await _exited(self.process)
            if self._stopping:
                return
            self.restarts += 1
            self.on_restart()
            log.error(
                "dashboard_stopped",
                exitcode=self.process.exitcode,
                restarts=self.restarts,
                detail=f"the dashboard process ended (exit code {self.process.exitcode}); the games go on "
                f"and it is started again in {RESTART_DELAY_S:g} s",
            )
            if self._pipe is not None:
                self._pipe.close()
            while not self._stopping:
                await asyncio.sleep(RESTART_DELAY_S)
                try:
                    await self._spawn()
                    break
                except OSError as bad:
                    log.error("dashboard_restart_failed", detail=str(bad))

    async def stop(self) -> None:
        """Stop the dashboard process (SIGTERM, then SIGKILL after ``STOP_TIMEOUT_S``)."""
        self._stopping = True
        if self._watching is not None:
            self._watching.cancel()
        if self.process is not None and self.process.is_alive():
            self.process.terminate()
            await asyncio.to_thread(self.process.join, STOP_TIMEOUT_S)
            if self.process.is_alive():
                self.process.kill()
                await asyncio.to_thread(self.process.join)
        if self._pipe is not None:
            self._pipe.close()


async def _exited(process: BaseProcess) -> None:
    """Wait (without a thread) until ``process`` has ended, and reap it."""
    loop = asyncio.get_running_loop()
    ended: asyncio.Future[None] = loop.create_future()

    def readable() -> None:
        if not ended.done():
            ended.set_result(None)

    loop.add_reader(process.sentinel, readable)
    try:
        await ended
    finally:
        loop.remove_reader(process.sentinel)
    process.join()


def main(settings: Settings, pipe: Connection) -> None:
    """The dashboard process: serve until SIGTERM or the play process's end."""
    from server.ops import runtime
    from server.ops.logs import configure_logging
    from server.web.connections import raise_open_file_limit

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the play process stops us
    os.nice(NICENESS)
    configure_logging(settings.log_format)
    raise_open_file_limit()  # each connection held is an open file
    runtime.run(_serve(settings, pipe))


async def _serve(settings: Settings, pipe: Connection) -> None:
    from server.arena.ledger import Ledger
    from server.storage import Store
    from server.web.dashboard import start_dashboard
    from server.web.live import LiveFeed

    store = Store.open(settings.database_url) if settings.database_url else None
    feed = LiveFeed(settings.play_address, token=settings.play_token)
    try:
        running = await start_dashboard(
            Ledger(store, settings.queues, feed.ids),
            feed,
            settings.port,
            settings.host,
            web_limits=settings.web_limits,
        )
    except OSError as bad:
        pipe.send(str(bad))
        await feed.close()
        return
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(pipe.fileno(), stop.set)  # the play process never writes: readable means it is gone
    pipe.send(running.port)
    await stop.wait()
    await running.stop()
    if store is not None:
        store.close()
