"""The server's state between the servicer and the games: sessions, queues, running games.

The servicer hands every message here; this module decides who it concerns (a session, the matchmaker or
a game) and never touches the engine itself. Whether a Hello lets a bot in, and the Welcome it gets, is
``server.play.hello``'s.
"""

from __future__ import annotations

import asyncio
import functools
import secrets
from collections.abc import Awaitable, Callable, Sequence, Set

import structlog

from conquest.v1 import bot_pb2
from server.ops.calls import SMALL_REQUEST_BYTES
from server.ops.config import QueueConfig, ServerConfig
from server.ops.logs import SAMPLED
from server.ops.metrics import Metrics
from server.play.admission import Admission
from server.play.hello import admit, queue_infos, welcome
from server.play.mailbox import Mailbox
from server.play.matchmaker import Matchmaker
from server.play.pairing import LADDER, MatchPolicy
from server.play.players import Appointment, BotPlayer, Shared
from server.play.ports import Authenticator, Ratings
from server.play.refusals import EndedGames, refuse_decision
from server.play.replays import ReplayWriter
from server.play.runner import GameRunner
from server.play.runner_2210 import AnyRunner, Runner2210
from server.play.seats import HouseSeat, RemoteSeat, Seat, house_seats
from server.play.session import PracticeAuthenticator, Session
from server.play.stream import NO_SEAT, TAKEN
from server.play.waiting import QueueNews
from server.records import INITIAL, SHUTTING_DOWN, Identity, Skill, shown

log = structlog.get_logger("conquest.lobby")
MATCH_RETRY_S = 1.0
"""How often a queue whose ready bots are too far apart in rating is matched again (windows widen)."""


class Lobby:
    def __init__(
        self,
        config: ServerConfig,
        writer: ReplayWriter,
        authenticator: Authenticator | None = None,
        metrics: Metrics | None = None,
        ratings: Ratings | None = None,
        policy: MatchPolicy = LADDER,
    ) -> None:
        self.config = config
        self.writer = writer
        self.metrics = metrics or Metrics()
        self.authenticator = authenticator or PracticeAuthenticator(allow_names=config.practice)
        self.queues = {q.name: q for q in config.queues}
        self.ratings = ratings
        """The ladder's ratings and recent games (None: no store, every bot has the default rating)."""
        self.matchmaker: Matchmaker[Session] = Matchmaker(
            {q.name: q.players - len(q.house_opponents) for q in config.queues},
            policy=policy,
            skills=self._skill,
        )
        if ratings is not None:
            for queue in self.queues:
                self.matchmaker.remember(queue, ratings.recent_tables(queue, policy.memory))
        self.runners: dict[str, AnyRunner] = {}
        self.classic_runners: dict[str, GameRunner] = {}
        """The classic games among ``runners``: the streams hand their Decisions straight to these
        (``server.play.stream``); a 2210 game's Decisions come through ``handle``."""
        self.ended = EndedGames()
        """The latest ended games: a late Decision for one is told its game is over."""
        self.appointments: list[Appointment] = []
        """Games waiting for their named bots, oldest first."""
        self._appointed: dict[str, Appointment] = {}
        """game id -> the appointment it plays."""
        self._retries: dict[str, asyncio.TimerHandle] = {}
        """Queues whose ready bots could not be matched yet: matched again when the timer fires."""
        self.news = QueueNews(self.matchmaker)
        """The QueueStatus messages the waiting bots are sent."""
        self.tasks: set[asyncio.Task[None]] = set()
        self.sessions: set[Session] = set()
        self.admission = Admission(config)
        """Which streams the server takes (per client, and before their Hello): bot and spectator streams."""
        self.accepting = True
        self.paused = ""
        """Why no new games are seated now ("": they are): the database or replay_dir does not take
        finished games (``server.play.recorder``), or a cluster's database does not answer. Bots stay
        in their queues and games in progress play on; ``resume`` seats the waiting ones."""
        self.games_left: int | None = None
        """Seat at most this many more games from the queues (None: no limit): local matches stop here."""
        self.on_game_over: Callable[[AnyRunner], None] = lambda runner: None
        """Told of every game that ended, once it is recorded (practice and match print results)."""
        self.on_game_start: Callable[[AnyRunner], Awaitable[None]] = _kept_nowhere
        """Awaited by every game as it starts, before its first request (the server keeps a record of it
        running: ``Recorder.started``)."""
        self._welcome_queues = queue_infos(config.queues)
        self.shared: Shared | None = None
        """With ``server.cluster``: the shared queues and the relay (None: this server alone)."""

    # ------------------------------------------------------------------ sessions

    def open_session(self, first: bot_pb2.ConnectRequest | None) -> Session | bot_pb2.Error:
        """A session for the stream's first message (a Hello), or the fatal Error to answer it with."""
        if not self.accepting:
            return bot_pb2.Error(code="shutting_down", message=SHUTTING_DOWN, fatal=True)
        admitted = admit(first, self.authenticator, self.sessions)
        if isinstance(admitted, bot_pb2.Error):
            return admitted
        identity, capacity = admitted
        assert first is not None  # admit took it as a Hello
        session = Session(
            identity,
            capacity,
            live_events=first.hello.live_events,
            outbox=Mailbox(self.config.send_queue_limit),
        )
        self.sessions.add(session)
        self.metrics.bots_connected.inc()
        resumed = [
            (runner, seat)
            for runner in self.runners.values()
            for seat in range(len(runner.seats))
            if runner.is_resumable(seat, identity.key)
        ]
        taken: dict[str, AnyRunner] = {}
        for runner, seat in resumed:
            if runner.game_id not in taken:  # one seat per game and session
                taken[runner.game_id] = runner
                session.games[runner.game_id] = seat
        elsewhere = self.shared.elsewhere(identity.key) if self.shared is not None else []
        session.send(welcome(session, self._welcome_queues, [*taken, *(game_id for game_id, _ in elsewhere)]))
        for game_id, runner in taken.items():
            runner.attach(session.games[game_id], session)
            self.metrics.reconnects.inc()
        self._seat_appointments()
        if self.shared is not None:
            self.shared.opened(session, elsewhere)
        SAMPLED.info(
            log,
            "session_opened",
            bot=identity.name,
            session_id=session.session_id,
            client=shown(f"{first.hello.client_name}/{first.hello.client_version}"),
            capacity=capacity,
            resumed=list(taken),
        )
        return session

    def handle(self, session: Session, request: bot_pb2.ConnectRequest, received_at: float) -> bool:
        """One message from an open session that ``server.play.stream.read_stream`` did not hand to a game,
        read at ``received_at`` (``time.monotonic()``): a Decision here is for a 2210 game of the bot's, a
        game hosted on another replica, or no game of its. True: a Decision that answers the seat's open
        request (its rate token is given back)."""
        kind = request.WhichOneof("message")
        if kind == "decision":
            decision = request.decision
            runner = self.runners.get(decision.game_id)
            seat = session.games.get(decision.game_id)
            if isinstance(runner, Runner2210) and seat is not None:
                return runner.submit(seat, decision, received_at)
            forwarded = NO_SEAT if self.shared is None else self.shared.forward(session, decision)
            if forwarded == NO_SEAT:
                refuse_decision(session, decision, self.ended, self.metrics)
            return forwarded == TAKEN
        elif kind in ("join_queue", "leave_queue"):
            joining = kind == "join_queue"
            name = request.join_queue.queue if joining else request.leave_queue.queue
            if (size := request.ByteSize()) > SMALL_REQUEST_BYTES:
                session.error(
                    "invalid_argument",
                    f"the {kind} message is {size} bytes; at most {SMALL_REQUEST_BYTES} are taken (a queue "
                    f"name: {', '.join(self.queues)})",
                )
                return False
            if name not in self.queues:
                session.error("unknown_queue", f"no queue {shown(name)}; queues: {', '.join(self.queues)}")
                return False
            if joining and request.join_queue.games < 0:
                session.error(
                    "invalid_argument",
                    f"JoinQueue.games = {request.join_queue.games}: use 1 or more to be seated in at most "
                    "that many games of the queue, or 0 for no limit",
                )
                return False
            if joining:
                self.matchmaker.join(name, session, request.join_queue.games)
                session.queues.add(name)
                if self.shared is not None:
                    self.shared.joined(name, session, request.join_queue.games)
            else:
                self.matchmaker.leave(name, session)
                session.queues.discard(name)
                if self.shared is not None:
                    self.shared.left(name, session)
            SAMPLED.info(log, kind, bot=session.identity.name, session_id=session.session_id, queue=name)
            self.metrics.queue_depth.labels(name).set(self.matchmaker.waiting_count(name))
            session.send(self.news.status(name, session, joining))
            if joining:  # its free slots may go to this queue or, if owed more, to another of its queues
                self._match(*sorted(session.queues))
                if self.accepting:
                    self.news.watch()
        elif kind == "hello":
            session.error("unexpected_hello", "this session is already open; send Hello only once")
        else:
            session.error(
                "empty_message", "a ConnectRequest must set hello, join_queue, leave_queue or decision"
            )
        return False

    def close_session(self, session: Session) -> None:
        """The stream ended: leave the queues; the session's seats wait out their reconnect grace."""
        session.close()
        if session in self.sessions:
            self.sessions.discard(session)
            self.metrics.bots_connected.dec()
        self.matchmaker.leave_all(session)
        for queue in session.queues:
            self.metrics.queue_depth.labels(queue).set(self.matchmaker.waiting_count(queue))
        for game_id, seat in session.games.items():
            runner = self.runners.get(game_id)
            held = runner.seats[seat] if runner is not None else None
            if runner is not None and isinstance(held, RemoteSeat) and held.connection is session:
                runner.detach(seat)
        self._withdraw_owned(session.identity)
        if self.shared is not None:
            self.shared.closed(session)
        SAMPLED.info(log, "session_closed", bot=session.identity.name, session_id=session.session_id)

    def close_bot_sessions(self, bot_id: int, code: str, message: str) -> int:
        """End every open session of the registered bot ``bot_id`` at once (it was revoked, or its token
        rotated) with a fatal ``Error{code}``: it leaves the queues, no appointment seats it, and its seats
        go on by the disconnect rules (a reconnect within the grace takes them back, else they forfeit).
        Returns how many sessions were closed."""
        closing = [s for s in self.sessions if s.identity.bot_id == bot_id]
        for session in closing:
            session.error(code, message, fatal=True)
            self.close_session(session)
        log.info("bot_sessions_closed", bot_id=bot_id, code=code, sessions=len(closing))
        return len(closing)

    # ------------------------------------------------------------------ games

    def appoint(self, appointment: Appointment) -> None:
        """Start ``appointment``'s game as soon as its bots have free slots (now, if they have)."""
        self.appointments.append(appointment)
        if self.shared is not None:
            self.shared.appointed(appointment)
        self._seat_appointments()

    def withdraw(self, appointment: Appointment, why: str) -> bool:
        """Drop ``appointment`` if its game has not started (False if it has, or was dropped already): the
        free slots it kept go back to the queues."""
        if appointment not in self.appointments:
            return False
        self.appointments.remove(appointment)
        if self.shared is not None:
            self.shared.withdrawn(appointment)
        appointment.on_withdrawn(why)
        log.info("appointment_withdrawn", bots=list(appointment.bots), why=why)
        named = {s for s in self.sessions if s.identity.name in appointment.bots}
        self._match(*sorted({q for s in named for q in s.queues}))
        return True

    def _withdraw_owned(self, identity: Identity) -> None:
        """The bot's last session closed: withdraw the appointments it asked for."""
        if identity.ranked and not self.connected(identity.name):
            for appointment in [a for a in self.appointments if a.owner == identity.name]:
                self.withdraw(appointment, f"{identity.name} disconnected")

    def connected(self, name: str) -> bool:
        """A bot of that name has an open session (here, or with ``server.cluster`` on any replica)."""
        here = any(s.identity.name == name and not s.closed for s in self.sessions)
        return here or (self.shared is not None and self.shared.connected(name))

    def _seat_appointments(self) -> None:
        if self.shared is not None:  # the cluster's matchmaker seats them, from any replica
            return
        for appointment in list(self.appointments):
            if not self.accepting or self.paused:
                return
            sessions: list[Session] = []
            for name in appointment.bots:
                free = [
                    s
                    for s in self.sessions
                    if s.identity.name == name and s.identity.ranked and not s.closed and s.free_slots() > 0
                ]
                if not free:
                    break
                sessions.append(free[0])
            else:
                self.start_appointment(appointment, sessions)

    def start_appointment(
        self, appointment: Appointment, players: Sequence[BotPlayer], game_id: str = ""
    ) -> AnyRunner:
        """Start the game of ``appointment`` (waiting here) with these bots in its seat order."""
        self.appointments.remove(appointment)
        runner = self.start_game(appointment.queue, players, game_id)
        self._appointed[runner.game_id] = appointment
        appointment.on_started(runner)
        return runner

    def _held(self) -> set[Session]:
        """Sessions whose free slots wait for an appointment: the queues leave them alone meanwhile."""
        names = {name for appointment in self.appointments for name in appointment.bots}
        return {s for s in self.sessions if s.identity.ranked and s.identity.name in names}

    def _match(self, *queues: str) -> None:
        """Seat the games these queues can form now, the bots' free slots shared among their queues
        (``Matchmaker.next_games``: one game at a time, to the queue owed one most)."""
        if self.shared is not None:  # the cluster's matchmaker seats the shared queues
            return
        held = self._held()
        seatings = self.matchmaker.next_games(queues, held, self._playing)
        while (
            self.accepting
            and not self.paused
            and self.games_left != 0
            and (found := next(seatings, None)) is not None
        ):
            queue, seating = found
            for waited in seating.waited_s:
                self.metrics.queue_wait.labels(queue).observe(waited)
            self.metrics.queue_depth.labels(queue).set(self.matchmaker.waiting_count(queue))
            for session in seating.done:  # reached its JoinQueue.games limit
                self.left_queue(queue, session)
            if self.games_left is not None:
                self.games_left -= 1
            self.seat_bots(self.queues[queue], seating.sessions)
        if self.paused or not self.accepting:
            return
        for queue in queues:
            if queue not in self._retries and self.matchmaker.stalled(queue, held):
                self._retries[queue] = asyncio.get_running_loop().call_later(
                    MATCH_RETRY_S, self._retry, queue
                )

    def _playing(self, queue: str, session: Session) -> int:
        """How many of ``session``'s running games are of ``queue``."""
        runners = self.runners
        return sum(
            1
            for game_id in session.games
            if (r := runners.get(game_id)) is not None and r.queue.name == queue
        )

    def seat_bots(self, config: QueueConfig, bots: Sequence[BotPlayer], game_id: str = "") -> AnyRunner:
        """Start a game of ``config`` the matchmaker seated: these bots in this order, with the queue's
        house opponents among them at random."""
        players: list[BotPlayer | HouseSeat] = [*bots, *house_seats(config.house_opponents)]
        if config.house_opponents:
            secrets.SystemRandom().shuffle(players)  # the bots' seats among the house's are random too
        return self.start_game(config, players, game_id)

    def left_queue(self, queue: str, session: Session) -> None:
        """``session`` reached its JoinQueue.games limit in ``queue``: it is told it left."""
        self.matchmaker.leave(queue, session)
        session.queues.discard(queue)
        session.send(self.news.status(queue, session, False))

    def slot_freed(self, session: Session) -> None:
        """A game of ``session``'s hosted by another replica ended: it may wait in its queues again."""
        if self.accepting and session.queues:
            self.news.watch()

    def _retry(self, queue: str) -> None:
        del self._retries[queue]
        self._match(queue)

    def start_game(
        self, queue: QueueConfig, players: Sequence[BotPlayer | HouseSeat], game_id: str = ""
    ) -> AnyRunner:
        """Start a game of ``queue`` with these players in seat order (sessions play remotely, house seats
        in process) and return its runner. ``game_id``: the id the cluster's matchmaker gave it ("": a
        new one)."""
        game_id = game_id or secrets.token_hex(8)
        seats: list[Seat] = [
            p if isinstance(p, HouseSeat) else RemoteSeat.for_bot(p.identity, p, queue.time_control)
            for p in players
        ]
        for index, player in enumerate(players):
            if not isinstance(player, HouseSeat):
                player.games[game_id] = index
        runner = self._new_runner(game_id, queue, seats, secrets.randbits(63))
        self.metrics.games_started.labels(queue.name).inc()
        self._run(runner, functools.partial(self.on_game_start, runner))
        return runner

    def take_over(
        self,
        game_id: str,
        queue: QueueConfig,
        seats: Sequence[Seat],
        seed: int,
        catch_up: Callable[[AnyRunner], None],
    ) -> AnyRunner:
        """Play on a game another server hosted (``server.play.takeover``): ``catch_up`` brings its runner to
        where the game got before its task starts."""
        runner = self._new_runner(game_id, queue, seats, seed)
        catch_up(runner)
        self._run(runner)
        return runner

    def _new_runner(self, game_id: str, queue: QueueConfig, seats: Sequence[Seat], seed: int) -> AnyRunner:
        """The runner of a game of ``queue``: classic, or RISK 2210 A.D. when the queue's ``r2210`` is set."""
        kind = GameRunner if queue.r2210 is None else Runner2210
        return kind(game_id, queue, seats, seed, self.writer, self._game_ended, self.metrics)

    def _run(self, runner: AnyRunner, opening: Callable[[], Awaitable[None]] | None = None) -> None:
        """Play ``runner``'s game in a task of its own; ``opening``: what its task awaits first."""
        self.runners[runner.game_id] = runner
        if isinstance(runner, GameRunner):
            self.classic_runners[runner.game_id] = runner
        self.metrics.games_in_progress.labels(runner.queue.name).inc()
        self.track(asyncio.create_task(runner.run(opening), name=_task_name(runner.game_id)))

    def game_tasks(self, game_ids: Set[str]) -> list[asyncio.Task[None]]:
        """The running tasks of these games (each named by ``_run`` after its game)."""
        names = {_task_name(game_id) for game_id in game_ids}
        return [task for task in self.tasks if task.get_name() in names]

    def pause(self, why: str) -> None:
        """Seat no new games (from queues or appointments) until ``resume``; ``why`` is logged. Safe from
        a worker thread (the Recorder's writer): it only sets the flag the seating reads."""
        if not self.paused:
            log.warning("seating_paused", why=why)
        self.paused = why

    def resume(self) -> None:
        """Seat games again, the bots that waited meanwhile first."""
        if not self.paused:
            return
        self.paused = ""
        log.info("seating_resumed")
        self._seat_appointments()
        self._match(*self.queues)

    def track(self, task: asyncio.Task[None]) -> None:
        """Count ``task`` (a game, or the recording a finished game sets off, such as a tournament's next
        round) among what ``shutdown`` waits for."""
        self.tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task: asyncio.Task[None]) -> None:
        self.tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("game_crashed", task=task.get_name(), exc_info=task.exception())

    def _skill(self, queue: str, session: Session) -> Skill:
        return self.ratings.skill(queue, session.identity) if self.ratings is not None else INITIAL

    def _game_ended(self, runner: AnyRunner) -> None:
        del self.runners[runner.game_id]
        self.classic_runners.pop(runner.game_id, None)
        holders = frozenset(s.name for s in runner.seats if isinstance(s, RemoteSeat))
        self.ended.add(runner.game_id, runner.reason or "unfinished", holders)
        if self.ratings is not None:
            bot_ids = [s.bot_id for s in runner.seats if isinstance(s, RemoteSeat) and s.bot_id is not None]
            self.ratings.forget(runner.queue.name, bot_ids)
        self.metrics.games_in_progress.labels(runner.queue.name).dec()
        self.metrics.games_finished.labels(runner.queue.name, runner.reason or "unfinished").inc()
        queues: set[str] = set()
        for seat in runner.seats:
            session = seat.connection if isinstance(seat, RemoteSeat) else None
            if isinstance(session, Session):
                session.games.pop(runner.game_id, None)
                queues |= session.queues
        if self.shared is not None:
            self.shared.ended(runner)
        self.on_game_over(runner)
        appointment = self._appointed.pop(runner.game_id, None)
        if appointment is not None:
            appointment.on_over(runner)
        self._seat_appointments()  # a freed slot goes to a waiting appointment first
        self._match(*sorted(queues))  # then to the queue owed a game most
        if self.accepting:
            self.news.watch()  # its bots may wait in their queues now

    async def shutdown(self, grace_s: float) -> None:
        """Stop seating bots, let running games finish for ``grace_s``, then end the rest (recorded as cut
        short by the shutdown) and close every session."""
        self.accepting = False
        for retry in self._retries.values():
            retry.cancel()
        self._retries.clear()
        self.news.stop()
        if self.tasks:
            await asyncio.wait(set(self.tasks), timeout=grace_s)
        for runner in list(self.runners.values()):
            runner.stop()
        while self.tasks:  # games ending now may set off more (tournament bookkeeping): wait for that too
            await asyncio.wait(set(self.tasks))
        for session in list(self.sessions):
            session.error("shutting_down", SHUTTING_DOWN, fatal=True)
            session.close()
        log.info("lobby_stopped")


def _task_name(game_id: str) -> str:
    return f"game-{game_id}"


async def _kept_nowhere(runner: AnyRunner) -> None:
    """``Lobby.on_game_start`` of a lobby that keeps no record of its running games."""
