"""Issue 33, item 1: a volume fills under a running ladder, in each layout of the database and
``replay_dir`` (tests/support/chaos.py's ``conquest serve``, honest bots on a ladder beside 250 ms duels).

The volume is a small tmpfs that only the server sees: ``conquest serve`` runs in a mount namespace of its
own (``unshare --user --mount``: no privilege beyond user namespaces, and nothing left mounted if the test
dies), and the test fills and frees it through ``/proc/<pid>/root``.

Issue 33: "A finished game must survive any single full or failing volume: the result reaches the
database (or a journal it is rebuilt from) even when the replay file cannot be written, the file is written
later, and while results cannot be made durable the server stops seating new games, says why (health, a
metric, a log line), and resumes by itself when space returns. Test it in CI on a small volume you fill
..., for every combination of database and replay directory on the full volume."
"""

from __future__ import annotations

import contextlib
import errno
import shutil
import subprocess
from pathlib import Path

import grpc
from chaos import ChaosServer, Honest, Verdict, arena, until
from chaos_faults import Ladder, _account, _down_then_up, _ladder

from conquest.v1 import arena_pb2
from engine.replay import ReplayError
from server.play.replays import load_any_replay_file, verify_record

VOLUME_MIB = 32
"""The small volume's size: room for the database and some hundred replay files before it is filled."""

LAYOUTS = {"replays": (False, True), "database": (True, False), "both": (True, True)}
"""Which of (the SQLite database, ``replay_dir``) each layout puts on the volume that fills."""
GAUGE = {
    "replays": "conquest_replay_dir_up",
    "database": "conquest_database_up",
    "both": "conquest_replay_dir_up",
}
"""The gauge that must say 0 while the volume is full (with both on it, replay_dir is the first to fail: a
running game's record is appended to every second)."""


class SmallVolume:
    """A tmpfs of ``VOLUME_MIB`` at ``mount``, mounted in the mount namespace of the command ``prefix()``
    runs; seen from outside at ``seen(pid)``."""

    def __init__(self, directory: Path) -> None:
        self.mount = directory / "volume"
        self.mount.mkdir(parents=True)

    def prefix(self) -> tuple[str, ...]:
        """``unshare`` then ``sh``, which mounts the tmpfs and execs the command after them in its place."""
        unshare = shutil.which("unshare")
        assert unshare, "unshare (util-linux) is needed to mount the test's small volume"
        mounted = subprocess.run(self._mounted(unshare, "true"), capture_output=True, text=True)
        assert mounted.returncode == 0, (
            f"cannot mount a tmpfs in a user namespace here ({mounted.stderr.strip()}): the disk-full tests "
            "need user namespaces (sysctl kernel.unprivileged_userns_clone=1, or run as root)"
        )
        return self._mounted(unshare, 'exec "$@"')

    def _mounted(self, unshare: str, then: str) -> tuple[str, ...]:
        """``unshare`` into a user and mount namespace, mount the tmpfs at ``mount``, then ``then`` (sh)."""
        return (
            unshare,
            "--user",
            "--map-root-user",
            "--mount",
            "sh",
            "-c",
            f"{_MOUNT} && {then}",
            str(self.mount),
        )

    def seen(self, pid: int) -> Path:
        """The volume as the process ``pid`` (the server) sees it."""
        return Path(f"/proc/{pid}/root") / self.mount.relative_to("/")

    @staticmethod
    def fill(seen: Path) -> int:
        """Fill the volume to its last byte with a file of its own; the bytes written."""
        written = 0
        chunk = bytes(1024 * 1024)
        with (seen / "filler").open("wb", buffering=0) as filler:
            try:
                while True:
                    written += filler.write(chunk)
            except OSError as full:
                assert full.errno == errno.ENOSPC, full
            for size in (65536, 4096, 512, 1):  # what the megabytes left
                try:
                    while True:
                        written += filler.write(bytes(size))
                except OSError:
                    pass
        return written

    @staticmethod
    def free(seen: Path) -> None:
        (seen / "filler").unlink()


_MOUNT = f'mount -t tmpfs -o size={VOLUME_MIB}m tmpfs "$0"'


async def full_volume(directory: Path, layout: str, seconds: float = 20, pairs: int = 2) -> Verdict:
    """The volume of ``layout`` (``LAYOUTS``) filled for ``seconds`` mid-ladder, then freed: health, gauges
    and log say why seating stopped, no game is seated meanwhile, seating resumes by itself, and afterwards
    every finished game has its row and its replay file."""
    database_on, replays_on = LAYOUTS[layout]
    title = f"volume of the {' and '.join(_names(layout))} full for {seconds:.0f} s"
    verdict = Verdict(f"disk-{layout}", title)
    volume = SmallVolume(directory)
    server = ChaosServer(
        directory,
        database=volume.mount / "conquest.sqlite3" if database_on else None,
        replays=volume.mount / "replays" if replays_on else None,
        prefix=volume.prefix(),
    ).start()
    honest: Honest | None = None
    players: Ladder | None = None
    try:
        idle = server.idle_rss_mib()
        honest = Honest(server.port).start()
        players = await _ladder(server, pairs, 4)
        seen = volume.seen(server.process.pid)
        verdict.figures["filled_mib"] = SmallVolume.fill(seen) / 2**20
        fault = "the volume is full"
        await _down_then_up(
            verdict, server, players, seconds, lambda: SmallVolume.free(seen), GAUGE[layout], fault
        )
        events = {record["event"] for record in server.records()}
        why = {"replay_dir_unwritable", "database_unavailable"} & events
        verdict.check(
            bool(why) and "seating_paused" in events, f"a log line says why seating paused ({events})"
        )
        await players.stop()
        await honest.stop()
        listed = await _settled(server, players.started)  # the games cut short by the bots' leaving too
        _account(verdict, players, listed)
        replays = seen / "replays" if replays_on else server.replays
        files = {path.stem for path in replays.glob("*.json")}
        without = players.finished - files
        verdict.figures["without_replay"] = len(without)
        verdict.check(
            not without, f"{len(without)} finished games have no replay file: {sorted(without)[:3]}"
        )
        broken = [
            game for game in sorted(files & players.finished) if not _verifies(replays / f"{game}.json")
        ]
        verdict.check(not broken, f"replay files that do not verify (a gap in a record?): {broken[:3]}")
        missed = await honest.missed(server.address)
        verdict.figures["missed"] = missed
        verdict.check(missed == 0, f"honest bots missed {missed} deadlines of 250 ms")
        peak = server.rss_mib()[1]
        verdict.figures.update(rss_idle_mib=idle, rss_peak_mib=peak)
        verdict.check(peak < 2 * idle, f"peak RSS {peak:.0f} MiB is not under twice idle ({idle:.0f} MiB)")
    finally:
        if players is not None:
            await players.stop()
        if honest is not None:
            await honest.stop()
        server.stop()
    return verdict


def _verifies(path: Path) -> bool:
    """Whether the replay file re-simulates to its recorded result (``conquest replay verify``'s check)."""
    try:
        verify_record(*load_any_replay_file(path))
    except ReplayError:
        return False
    return True


def _names(layout: str) -> list[str]:
    database_on, replays_on = LAYOUTS[layout]
    return [name for name, on in (("database", database_on), ("replay_dir", replays_on)) if on]


async def _settled(server: ChaosServer, games: set[str], timeout: float = 60) -> dict[str, str]:
    """Every recorded game (id -> reason) once ``games`` are all listed and nothing is owed (or after
    ``timeout``: what is listed then)."""
    listed: dict[str, str] = {}

    async def settled() -> bool:
        async with grpc.aio.insecure_channel(server.address) as channel:
            answer = await arena(channel).ListGames(arena_pb2.ListGamesRequest(limit=1000), timeout=30)
        listed.update({g.game_id: g.reason for g in answer.games})
        return games <= listed.keys() and server.metric("conquest_results_pending") == 0

    with contextlib.suppress(TimeoutError):  # ListGames(limit=1000) costs 10 of 50 tokens a second
        await until(settled, timeout, step=0.5)
    return listed
