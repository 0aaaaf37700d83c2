"""The Arena API's logic: organizer and spectator operations over the store and the lobby, as protobuf.

``server/arena/service.py`` is the thin gRPC servicer over this module; it maps the errors raised here
(the store's typed errors plus ``NoDatabaseError`` and ``MissingAdminTokenError``) to status codes.
Methods that read the database block: the servicer runs them in a worker thread. Methods that touch the
lobby (live games) run on the event loop.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncGenerator, Iterable, Sequence
from datetime import datetime

from conquest.v1 import arena_pb2, bot_pb2
from engine.events import public_view
from engine.observe import observe
from engine.replay import Replay
from server.arena.competitions import Challenges, TournamentDirector, pure
from server.arena.tournaments import standings
from server.play import convert, wire
from server.play.lobby import Lobby
from server.play.replays import GameRecord
from server.play.runner import GameRunner
from server.play.spectators import Spectator
from server.records import ROUND_TRIP_BUCKETS, GameResult
from server.storage import (
    AdminTokenError,
    AuthError,
    Bot,
    GameSummary,
    InvalidInputError,
    NotFoundError,
    StorageError,
    Store,
    TournamentRecord,
)

DEFAULT_GAMES = 50
MAX_GAMES = 1000


class NoDatabaseError(StorageError):
    """The server runs without a database (``server.database_url = ""``)."""


class MissingAdminTokenError(AuthError):
    """An admin call without ``authorization: Bearer <admin token>`` metadata."""


def admin_token(metadata: Iterable[tuple[str, str | bytes]]) -> str:
    """The admin token of ``authorization: Bearer <token>`` request metadata.

    Raises:
        MissingAdminTokenError: no such metadata, or not in that form.
    """
    values = [v for k, v in metadata if k.lower() == "authorization"]
    value = values[0] if values else ""
    text = value.decode() if isinstance(value, bytes) else value
    scheme, _, token = text.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise MissingAdminTokenError(
            "this call needs the server's admin token: send the request metadata "
            "'authorization: Bearer <admin token>' (conquest: --admin-token or CONQUEST_ADMIN_TOKEN)"
        )
    return token.strip()


def _ms(moment: datetime | None) -> int:
    return round(moment.timestamp() * 1000) if moment is not None else 0


def _bot(bot: Bot) -> arena_pb2.Bot:
    return arena_pb2.Bot(
        id=bot.id,
        name=bot.name,
        created_at_ms=_ms(bot.created_at),
        rotated_at_ms=_ms(bot.rotated_at),
        revoked_at_ms=_ms(bot.revoked_at),
    )


def _outcome(value: str) -> bot_pb2.SeatOutcome.ValueType:
    return bot_pb2.SeatOutcome.Value(f"SEAT_OUTCOME_{value.upper()}")


def _game(game: GameSummary) -> arena_pb2.GameSummary:
    return arena_pb2.GameSummary(
        game_id=game.id,
        queue=game.queue,
        rated=game.rated,
        rules=str(game.rules.get("name", "")),
        board=game.board,
        seed=game.seed,
        seed_commitment=game.seed_commitment,
        started_at_ms=_ms(game.started_at),
        finished_at_ms=_ms(game.finished_at),
        turns=game.turns,
        reason=game.reason,
        seats=[
            arena_pb2.GameSeat(
                seat=i,
                name=s.name,
                registered=s.bot_id is not None,
                place=s.place,
                outcome=_outcome(s.outcome),
                timeouts=s.timeouts,
                rejections=s.rejections,
                crashes=s.crashes,
            )
            for i, s in enumerate(game.seats)
        ],
    )


def _record(game: GameSummary, replay: Replay) -> GameRecord:
    """The stored game as the replay writers saw it, so a download is the same file a server writes."""
    result = GameResult(
        queue=game.queue,
        seats=game.seats,
        seed_commitment=game.seed_commitment,
        started_at=game.started_at,
        finished_at=game.finished_at,
        turns=game.turns,
        reason=game.reason,
        rated=game.rated,
    )
    return GameRecord(replay, result)


def _check_name(value: str, field: str, example: str) -> None:
    if not value:
        raise InvalidInputError(f"{field} is empty: give a name, e.g. {example!r}")


class Arena:
    """Arena operations. ``store`` is None on a server without a database: only live games are served."""

    def __init__(self, lobby: Lobby, store: Store | None) -> None:
        self.lobby = lobby
        self._database = store
        self.challenges = Challenges(lobby, store) if store is not None else None
        self.director = TournamentDirector(lobby, store) if store is not None else None
        self._resuming: asyncio.Task[None] | None = None
        try:  # a server (not a command-line tool) carries on the tournaments a restart interrupted
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and self.director is not None:
            self._resuming = loop.create_task(self.director.resume())

    @property
    def store(self) -> Store:
        if self._database is None:
            raise NoDatabaseError(
                "this server runs without a database (server.database_url is empty), so it has no "
                "registered bots, ratings or recorded games; set server.database_url and restart it"
            )
        return self._database

    # ------------------------------------------------------------------ bots (blocking)

    def register_bot(self, name: str, admin: str) -> arena_pb2.RegisterBotResponse:
        registration = self.store.register_bot(name, admin_token=admin)
        return arena_pb2.RegisterBotResponse(bot=_bot(registration.bot), token=registration.token)

    async def rotate_token(self, name: str, admin: str) -> arena_pb2.RotateTokenResponse:
        """A new token; the sessions opened with the old one are closed at once (``rotated_token``): the bot
        takes its seats back by reconnecting with the new token within the reconnect grace."""
        _check_name(name, "RotateTokenRequest.name", "alice")
        store = self.store
        registration = await asyncio.to_thread(lambda: store.rotate_token(name, admin_token=admin))
        grace_s = max(q.time_control.reconnect_grace_ms for q in self.lobby.config.queues) / 1000
        self.lobby.close_bot_sessions(
            registration.bot.id,
            "rotated_token",
            f"the organizer gave bot {name!r} a new token, so this session (opened with the old one) is "
            f"closed; reconnect with the new token within {grace_s:g} s to take your seats back",
        )
        return arena_pb2.RotateTokenResponse(bot=_bot(registration.bot), token=registration.token)

    async def revoke_bot(self, name: str, admin: str) -> arena_pb2.RevokeBotResponse:
        """Revoke a bot and close its sessions at once (``revoked_token``): it is seated in no new game, and
        its running games go on without it (its seats forfeit once the reconnect grace is over)."""
        _check_name(name, "RevokeBotRequest.name", "alice")
        store = self.store
        bot = await asyncio.to_thread(lambda: store.revoke_bot(name, admin_token=admin))
        self.lobby.close_bot_sessions(
            bot.id,
            "revoked_token",
            f"the organizer revoked bot {name!r}: this session is closed, its token no longer works and "
            "its running games go on without it. Ask the organizer to register the bot again",
        )
        return arena_pb2.RevokeBotResponse(bot=_bot(bot))

    def list_bots(self) -> arena_pb2.ListBotsResponse:
        return arena_pb2.ListBotsResponse(bots=[_bot(b) for b in self.store.bots()])

    # ------------------------------------------------------------------ ratings and games (blocking)

    def leaderboard(self, queue: str, limit: int) -> arena_pb2.GetLeaderboardResponse:
        _check_name(queue, "GetLeaderboardRequest.queue", "classic-4")
        if limit < 0:
            raise InvalidInputError(f"GetLeaderboardRequest.limit = {limit}: use 0 for all rows, or more")
        self._check_queue(queue)
        standings = self.store.leaderboard(queue, limit=limit or None)
        return arena_pb2.GetLeaderboardResponse(
            queue=queue,
            standings=[
                arena_pb2.Standing(
                    rank=s.rank,
                    bot=s.bot,
                    mu=s.skill.mu,
                    sigma=s.skill.sigma,
                    score=s.skill.conservative,
                    games=s.games,
                    wins=s.wins,
                    average_place=s.average_place,
                    timeouts=s.timeouts,
                    forfeits=s.forfeits,
                )
                for s in standings
            ],
        )

    def rating_history(self, bot: str, queue: str) -> arena_pb2.GetRatingHistoryResponse:
        _check_name(bot, "GetRatingHistoryRequest.bot", "alice")
        _check_name(queue, "GetRatingHistoryRequest.queue", "classic-4")
        self._check_queue(queue)
        changes = self.store.rating_history(bot, queue)
        return arena_pb2.GetRatingHistoryResponse(
            bot=bot,
            queue=queue,
            changes=[
                arena_pb2.RatingChange(
                    game_id=c.game_id,
                    place=c.place,
                    mu_before=c.before.mu,
                    sigma_before=c.before.sigma,
                    mu_after=c.after.mu,
                    sigma_after=c.after.sigma,
                    at_ms=_ms(c.at),
                )
                for c in changes
            ],
        )

    def bot_stats(self, bot: str, queue: str) -> arena_pb2.GetBotStatsResponse:
        _check_name(bot, "GetBotStatsRequest.bot", "alice")
        stats = self.store.bot_stats(bot, queue or None)
        if queue and not stats.games:  # a queue it never played in, or no queue at all
            self._check_queue(queue)
        phases = [
            arena_pb2.PhaseRoundTrips(phase=phase, decisions=sum(counts), counts=counts)
            for phase, counts in stats.round_trips.items()
        ]
        return arena_pb2.GetBotStatsResponse(
            bot=stats.bot,
            queue=queue,
            games=stats.games,
            bucket_bounds_ms=[bound * 1000 for bound in ROUND_TRIP_BUCKETS],
            phases=phases,
            decisions=sum(p.decisions for p in phases),
            timeouts=stats.timeouts,
            rejections=stats.rejections,
            crashes=stats.crashes,
        )

    def list_games(self, queue: str, bot: str, limit: int) -> arena_pb2.ListGamesResponse:
        if not 0 <= limit <= MAX_GAMES:
            raise InvalidInputError(
                f"ListGamesRequest.limit = {limit}: use 1 to {MAX_GAMES}, or 0 for {DEFAULT_GAMES}"
            )
        games = self.store.games(queue=queue or None, bot=bot or None, limit=limit or DEFAULT_GAMES)
        if queue and not games:  # unrated queues (tournaments, challenges) are known by their games
            self._check_queue(queue)
        return arena_pb2.ListGamesResponse(games=[_game(g) for g in games])

    def game(self, game_id: str) -> arena_pb2.GetGameResponse:
        return arena_pb2.GetGameResponse(game=_game(self._finished(game_id)))

    def replay_json(self, game_id: str) -> arena_pb2.GetReplayResponse:
        record = _record(self._finished(game_id), self.store.replay(game_id))
        return arena_pb2.GetReplayResponse(game_id=game_id, replay_json=json.dumps(record.to_dict()))

    def recorded_stream(self, game_id: str) -> list[arena_pb2.WatchGameResponse]:
        """A finished game as a spectator stream from its start: the board as its setup left it (what each
        bot's GameStarted showed), the setup's events from sequence 0 (the roll for the first player, the
        deal), one event batch per action, GameOver."""
        game = self._finished(game_id)
        replay = self.store.replay(game_id)
        state, setup = replay.start()
        seats = len(replay.seats)
        messages = [
            arena_pb2.WatchGameResponse(
                snapshot=arena_pb2.GameSnapshot(
                    game_id=game_id,
                    queue=game.queue,
                    players=[bot_pb2.Player(seat=i, name=n) for i, n in enumerate(replay.seats)],
                    rules=convert.rules_info(replay.rules, seats),
                    map=convert.map_info(state.board),
                    observation=wire.observation(observe(state, -1)),
                    next_sequence=0,
                    live=False,
                )
            )
        ]
        sequence = 0
        for events in itertools.chain([setup], (state.apply(action) for action in replay.actions)):
            batch = [wire.event_to_pb(public_view(e, None), sequence + i) for i, e in enumerate(events)]
            sequence += len(events)
            if batch:
                messages.append(
                    arena_pb2.WatchGameResponse(events=bot_pb2.GameEvents(game_id=game_id, events=batch))
                )
        results = [
            bot_pb2.SeatResult(seat=i, name=s.name, place=s.place, outcome=_outcome(s.outcome))
            for i, s in enumerate(game.seats)
        ]
        over = bot_pb2.GameOver(
            game_id=game_id, results=results, seed=game.seed, reason=game.reason, turns=game.turns
        )
        messages.append(arena_pb2.WatchGameResponse(game_over=over))
        return messages

    def _finished(self, game_id: str) -> GameSummary:
        if not game_id:
            raise InvalidInputError("game_id is empty: give a game id from ListGames or ListLiveGames")
        try:
            return self.store.game(game_id)
        except NotFoundError:
            if game_id in self.lobby.runners:
                raise NotFoundError(
                    f"game {game_id!r} is still being played: WatchGame streams it; its record and replay "
                    "exist once it is over"
                ) from None
            raise

    def _check_queue(self, queue: str) -> None:
        """Raises NotFoundError unless ``queue`` is configured, has ratings or is a tournament's."""
        if queue in self.lobby.queues or queue in self.store.queues():
            return
        tournaments = {r.queue for r in self.store.tournaments()}
        if queue not in tournaments:
            known = sorted(set(self.lobby.queues) | set(self.store.queues()) | tournaments)
            raise NotFoundError(f"no queue {queue!r}; queues: {', '.join(known)}")

    # ------------------------------------------------------------------ challenges, tournaments (event loop)

    async def create_challenge(
        self, request: arena_pb2.CreateChallengeRequest, metadata: Iterable[tuple[str, str | bytes]]
    ) -> arena_pb2.CreateChallengeResponse:
        store, challenges = self.store, self.challenges
        assert challenges is not None
        token = admin_token(metadata)
        challenger = ""  # the admin's challenge is nobody's to withdraw
        if not store.is_admin(token):
            challenger = await asyncio.to_thread(_check_bot_token, store, token, request.bots)
        challenge_id, queue = await challenges.create(
            list(request.bots), request.queue, request.rules, request.games, challenger
        )
        return arena_pb2.CreateChallengeResponse(
            challenge_id=challenge_id, queue=queue.name, games=request.games or 1
        )

    async def create_tournament(
        self, request: arena_pb2.CreateTournamentRequest, metadata: Iterable[tuple[str, str | bytes]]
    ) -> arena_pb2.CreateTournamentResponse:
        store, director = self.store, self.director
        assert director is not None
        token = admin_token(metadata)
        if not store.is_admin(token):
            raise AdminTokenError(
                "wrong admin token: creating a tournament needs the admin token from the server config"
            )
        if request.format == arena_pb2.TOURNAMENT_FORMAT_UNSPECIFIED:
            raise InvalidInputError(
                "CreateTournamentRequest.format is not set: use ROUND_ROBIN, SWISS or SINGLE_ELIMINATION"
            )
        name = arena_pb2.TournamentFormat.Name(request.format).removeprefix("TOURNAMENT_FORMAT_").lower()
        record = await director.create(
            request.name,
            name,
            list(request.bots),
            request.queue,
            request.rules,
            request.table_size,
            request.rounds,
        )
        return arena_pb2.CreateTournamentResponse(tournament=_tournament(record, full=True))

    def tournament(self, name: str) -> arena_pb2.GetTournamentResponse:
        _check_name(name, "GetTournamentRequest.name", "spring-cup")
        return arena_pb2.GetTournamentResponse(tournament=_tournament(self.store.tournament(name), full=True))

    def tournaments(self) -> arena_pb2.ListTournamentsResponse:
        return arena_pb2.ListTournamentsResponse(
            tournaments=[_tournament(r, full=False) for r in self.store.tournaments()]
        )

    # ------------------------------------------------------------------ live games (event loop)

    def live_games(self, queue: str) -> arena_pb2.ListLiveGamesResponse:
        if queue and queue not in self.lobby.queues:
            raise NotFoundError(f"no queue {queue!r}; queues: {', '.join(self.lobby.queues)}")
        runners = sorted(self.lobby.runners.values(), key=lambda r: r.started_at)
        return arena_pb2.ListLiveGamesResponse(
            games=[
                arena_pb2.LiveGame(
                    game_id=r.game_id,
                    queue=r.queue.name,
                    players=[bot_pb2.Player(seat=i, name=s.name) for i, s in enumerate(r.seats)],
                    turn=r.state.turn,
                    started_at_ms=_ms(r.started_at),
                )
                for r in runners
                if not queue or r.queue.name == queue
            ]
        )

    def watch_live(self, game_id: str) -> AsyncGenerator[arena_pb2.WatchGameResponse] | None:
        """The spectator stream of a game in progress, or None if no such game is being played."""
        runner = self.lobby.runners.get(game_id)
        if runner is None:
            return None
        return _follow(runner, runner.watch())  # watching from now, not from the stream's first read


async def _follow(runner: GameRunner, spectator: Spectator) -> AsyncGenerator[arena_pb2.WatchGameResponse]:
    try:
        while (message := await spectator.get()) is not None:
            yield message
    finally:
        runner.unwatch(spectator)


def _check_bot_token(store: Store, token: str, bots: Sequence[str]) -> str:
    """A challenge by a bot's author: the token must be one of the named bots'; returns that bot's name.

    Raises:
        AdminTokenError: it is neither the admin token nor a named bot's token.
    """
    try:
        bot = store.authenticate(token)
    except AuthError:
        bot = None
    if bot is None or bot.name not in bots:
        raise AdminTokenError(
            "a challenge needs the admin token, or the token of one of the challenged bots, as "
            "'authorization: Bearer <token>'"
        )
    return bot.name


def _tournament(record: TournamentRecord, *, full: bool) -> arena_pb2.Tournament:
    spec, entrants, tables = pure(record)
    message = arena_pb2.Tournament(
        name=record.name,
        format=arena_pb2.TournamentFormat.Value(f"TOURNAMENT_FORMAT_{record.format.upper()}"),
        table_size=record.table_size,
        planned_rounds=record.rounds,
        rules=str(record.rules.get("name", "")),
        queue=record.queue,
        created_at_ms=_ms(record.created_at),
        finished_at_ms=_ms(record.finished_at),
        current_round=max((t.round for t in record.tables), default=0),
        entrants=len(record.entrants),
    )
    if not full:
        return message
    seeds = {e.name: e.seed for e in record.entrants}
    message.standings.extend(
        arena_pb2.TournamentStanding(
            rank=s.rank,
            bot=s.name,
            seed=seeds[s.name],
            score=s.score,
            games=s.games,
            byes=s.byes,
            buchholz=s.buchholz,
            head_to_head=s.head_to_head,
            rating=s.rating,
            eliminated_in=s.eliminated_in,
        )
        for s in standings(spec, entrants, tables)
    )
    for round_ in sorted({t.round for t in record.tables}):
        message.rounds.append(
            arena_pb2.TournamentRound(
                round=round_,
                tables=[
                    arena_pb2.TournamentTable(
                        number=t.number, bots=t.bots, game_id=t.game_id or "", places=t.places or []
                    )
                    for t in record.tables
                    if t.round == round_
                ],
            )
        )
    return message
