"""No game lost when its server dies: servers on one database take over each other's running games.

With ``server.takeover`` on, each server is a replica: it beats in the database's replica registry every
``replica_heartbeat_ms``, and in the same transaction logs the actions its running games played since the last
beat (``ActionLog.beat``; a game's rules, seed, seats, host and epoch go ahead of them, before its first
request: ``ActionLog.open_games``) instead of writing ``.live`` files. That transaction also reads the
registry and the running games of the other replicas: a replica whose heartbeat count has not moved for
``replica_timeout_ms`` of this server's clock (or that is not registered) is presumed dead, and each of its
games is claimed (its epoch one up: exactly one claimer wins), rebuilt by replaying its logged actions,
continued with a fresh seed (``engine.replay.Reseed``: nothing a bot saw of the old dice after the last logged
action tells it anything; for a RISK 2210 A.D. game ``engine.r2210.replay.reseed_2210``, which also withdraws
unrevealed bids) and played on here; its bots resume their seats by reconnecting (docs/protocol.md,
"Disconnects and reconnects"). The old host, if it comes back, finds its writes refused (``GameHandedOver``)
and drops the game. docs/storage.md, "Games taken over".
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import time
from collections.abc import Callable

import structlog

from engine import Rules
from engine.codec import decode_action
from engine.r2210.replay import GAME as GAME_2210
from engine.r2210.replay import decode_action as decode_action_2210
from engine.r2210.replay import rules_from_dict
from engine.replay import Reseed, advance
from server.ops.config import QueueConfig
from server.play.clock import SeatClock
from server.play.live_records import Batch
from server.play.lobby import Lobby
from server.play.ports import ActionLog
from server.play.recorder import Recorder
from server.play.replays import reseed_commitment
from server.play.runner_2210 import AnyRunner, Runner2210
from server.play.seats import HOUSE_POLICIES, HouseSeat, RemoteSeat, Seat
from server.play.session import Session
from server.records import HANDED_OVER, DatabaseUnavailable, LiveGame

log = structlog.get_logger("conquest.takeover")


def abandon(lobby: Lobby, game_id: str) -> None:
    """Another server took ``game_id`` over (the Recorder's ``on_handed_over``, on the event loop): stop
    it here at once, recording nothing (its task is cancelled), and tell its bots (``game_handed_over``)."""
    runner = lobby.runners.get(game_id)
    if runner is None:
        return
    runner.reason = HANDED_OVER
    why = f"game {game_id} was taken over by another server: reconnect to resume your seat"
    for seat in runner.seats:
        if isinstance(seat, RemoteSeat) and isinstance(seat.connection, Session):
            seat.connection.error("game_handed_over", why, game_id=game_id)
    for task in lobby.game_tasks({game_id}):
        task.cancel()


def adopt(lobby: Lobby, runner: AnyRunner) -> None:
    """The bots connected now take their seats of a game taken over back at once, as on a reconnect
    (called once the game's task has begun)."""
    for session in list(lobby.sessions):
        for index in range(len(runner.seats)):
            if runner.game_id not in session.games and runner.is_resumable(index, session.identity.key):
                session.games[runner.game_id] = index
                runner.attach(index, session)


class Takeover:
    """One replica's heartbeat and its takeover of the games of replicas presumed dead."""

    def __init__(
        self,
        lobby: Lobby,
        recorder: Recorder,
        action_log: ActionLog,
        replica: str,
        heartbeat_s: float,
        timeout_s: float,
    ) -> None:
        self.lobby = lobby
        self.recorder = recorder
        self.action_log = action_log
        self.replica = replica
        self.heartbeat_s = heartbeat_s
        self.timeout_s = timeout_s
        self._seen: dict[str, tuple[int, float]] = {}
        """Each other replica's heartbeat count and when this server first saw it (``time.monotonic``)."""
        self._beating: set[str] = set()
        """The replicas seen beating since this server started."""
        self.dead: set[str] = set()
        """The registered replicas presumed dead, as of the last heartbeat."""
        self.alive: set[str] = set()
        """The registered replicas not presumed dead (this one included), as of the last heartbeat."""
        self.queue_of: Callable[[str, int], QueueConfig | None] = lambda name, players: None
        """The queue of a game taken over that is not configured here (a tournament's, with this many
        players), looked up in a worker thread; None: none."""
        self.on_adopted: Callable[[AnyRunner], None] = lambda runner: None
        """Told of each game taken over, once ``adopt`` seated the bots connected here (the cluster
        re-attaches those connected to other replicas)."""

    def _scan(self, batches: list[Batch]) -> tuple[list[tuple[str, int, int]], bool]:
        """Beat with the running games' ``batches``, and find the games of replicas presumed dead (worker
        thread): (game id, epoch, actions logged) each; and whether the fate of some other game's host is
        still undecided (it has not been seen beating since this server started, nor been silent for the
        timeout yet)."""
        heartbeat = self.recorder.live.log(batches)
        beats = heartbeat.beats
        now = time.monotonic()
        for replica, count in beats.items():
            seen = self._seen.get(replica)
            if seen is None or seen[0] != count:
                self._seen[replica] = (count, now)
                if seen is not None:
                    self._beating.add(replica)
        dead = {r for r in beats if now - self._seen[r][1] >= self.timeout_s} - {self.replica}
        self.dead, self.alive = dead, set(beats) - dead
        self.lobby.metrics.replicas_alive.set(len(self.alive))
        orphans: list[tuple[str, int, int]] = []
        undecided = False
        for game_id, host, epoch, actions in heartbeat.games:
            if host not in beats or host in dead:
                orphans.append((game_id, epoch, actions))
            elif host not in self._beating:
                undecided = True
        return orphans, undecided

    def _claim(self, game_id: str, epoch: int, actions: int) -> tuple[LiveGame, list[str]] | None:
        seed = secrets.randbits(63)
        return self.action_log.claim_game(
            game_id, epoch, actions, self.replica, seed, reseed_commitment(seed, game_id, actions)
        )

    async def scan(self) -> bool:
        """One heartbeat and takeover round; True while some other host's fate is undecided."""
        batches = self.recorder.live.batches(logged=True)
        orphans, undecided = await asyncio.to_thread(self._scan, batches)
        for game_id, epoch, actions in orphans:
            if game_id in self.lobby.runners:
                continue
            claimed = await asyncio.to_thread(self._claim, game_id, epoch, actions)
            if claimed is None:
                continue
            game, logged = claimed
            config = self.lobby.queues.get(game.queue) or await asyncio.to_thread(
                self.queue_of, game.queue, len(game.seats)
            )
            try:
                self._resume(game, logged, config)
            except Exception:  # a log the engine does not replay: this game is lost, the others are not
                log.exception(
                    "game_not_taken_over",
                    game_id=game_id,
                    why="its logged actions do not replay; it stays in live_games for the operator to remove",
                )
        return undecided

    async def start(self) -> None:
        """Before the server takes bots: beat, and take over the games of every host found dead, waiting
        (at most the timeout and a heartbeat) until each other host has either beaten or been silent too
        long, so that a bot reconnecting after its server died finds its game here."""
        deadline = time.monotonic() + self.timeout_s + self.heartbeat_s
        while await self.scan() and time.monotonic() < deadline:
            await asyncio.sleep(self.heartbeat_s)

    async def run(self) -> None:
        """Until cancelled: a scan every heartbeat (a database that does not answer is logged and tried
        again at the next; the Recorder reports it in health)."""
        while True:
            await asyncio.sleep(self.heartbeat_s)
            try:
                await self.scan()
            except DatabaseUnavailable as down:
                log.warning("heartbeat_failed", replica=self.replica, error=str(down))

    def stop(self) -> None:
        """The server stopped cleanly (its games are over): it leaves the registry."""
        try:
            self.action_log.leave(self.replica, self.lobby.metrics.cluster_counts())
        except DatabaseUnavailable as down:
            log.warning("replica_not_removed", replica=self.replica, error=str(down))

    def _resume(self, game: LiveGame, batches: list[str], config: QueueConfig | None) -> None:
        """Rebuild a claimed game of queue ``config`` from its logged actions and play it on here."""
        if config is None:
            log.error(
                "game_not_taken_over",
                game_id=game.game_id,
                why=f"this server has no queue {game.queue!r}: give every replica the same queues",
            )
            return
        # Its own rules and ratedness (a challenge's game on a rated queue stays unrated), and the kind of
        # game the log holds, whatever the queue of that name is here.
        if game.board == GAME_2210:
            queue = dataclasses.replace(config, r2210=rules_from_dict(dict(game.rules)), rated=game.rated)
        else:
            queue = dataclasses.replace(
                config, rules=Rules.from_dict(dict(game.rules)), r2210=None, rated=game.rated
            )
        logged = [a for batch in batches for a in json.loads(batch)]
        reseeds = [Reseed(at, seed, commitment) for at, seed, commitment in game.reseeds]

        def prepare(runner: AnyRunner) -> None:
            """Where the log ends: its actions played (their events are not sent: a seat resumes with
            GameStarted and the game as it is now), each takeover's fresh seed applied where drawn."""
            runner.started_at = game.started_at
            if isinstance(runner, Runner2210):
                runner.catch_up([decode_action_2210(a) for a in logged], reseeds)
            else:
                actions = [decode_action(a) for a in logged]
                advance(runner.state, actions, reseeds)
                runner.replay.actions.extend(actions)
                runner.replay.reseeds = reseeds
            self.recorder.adopted(runner, game.epoch, batches, len(logged))

        seats = [_seat(s.name, s.key, s.bot_id, s.house, queue) for s in game.seats]
        runner = self.lobby.take_over(game.game_id, queue, seats, game.seed, prepare)
        asyncio.get_running_loop().call_soon(adopt, self.lobby, runner)
        asyncio.get_running_loop().call_soon(self.on_adopted, runner)
        self.lobby.metrics.games_taken_over.inc()
        log.warning(
            "game_taken_over", game_id=game.game_id, epoch=game.epoch, actions=len(logged), queue=game.queue
        )


def _seat(name: str, key: str, bot_id: int | None, house: str, queue: QueueConfig) -> Seat:
    """A seat of a game taken over: its house policy afresh, or its bot, away until it reconnects (its
    grace window starts now)."""
    if house:
        return HouseSeat(name, HOUSE_POLICIES[house]())
    clock = SeatClock.start(queue.time_control)
    return RemoteSeat(key, name, None, clock, bot_id=bot_id, disconnected_at=time.monotonic())
