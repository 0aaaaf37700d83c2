"""The Arena API's logic: organizer and spectator operations over the store and the lobby, as protobuf.

``server/arena_service.py`` is the thin gRPC servicer over this module; it maps the errors raised here
(the store's typed errors plus ``NoDatabaseError`` and ``MissingAdminTokenError``) to status codes.
Methods that read the database block: the servicer runs them in a worker thread. Methods that touch the
lobby (live games) run on the event loop.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Iterable
from datetime import datetime

from conquest.v1 import arena_pb2, bot_pb2
from engine.events import public_view
from engine.observe import observe
from engine.replay import Replay
from server import wire
from server.lobby import Lobby
from server.replays import GameRecord
from server.runner import GameRunner, Spectator
from server.storage import (
    AuthError,
    Bot,
    GameResult,
    GameSummary,
    InvalidInputError,
    NotFoundError,
    StorageError,
    Store,
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

    def rotate_token(self, name: str, admin: str) -> arena_pb2.RotateTokenResponse:
        _check_name(name, "RotateTokenRequest.name", "alice")
        registration = self.store.rotate_token(name, admin_token=admin)
        return arena_pb2.RotateTokenResponse(bot=_bot(registration.bot), token=registration.token)

    def revoke_bot(self, name: str, admin: str) -> arena_pb2.RevokeBotResponse:
        _check_name(name, "RevokeBotRequest.name", "alice")
        return arena_pb2.RevokeBotResponse(bot=_bot(self.store.revoke_bot(name, admin_token=admin)))

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

    def list_games(self, queue: str, bot: str, limit: int) -> arena_pb2.ListGamesResponse:
        if not 0 <= limit <= MAX_GAMES:
            raise InvalidInputError(
                f"ListGamesRequest.limit = {limit}: use 1 to {MAX_GAMES}, or 0 for {DEFAULT_GAMES}"
            )
        if queue:
            self._check_queue(queue)
        games = self.store.games(queue=queue or None, bot=bot or None, limit=limit or DEFAULT_GAMES)
        return arena_pb2.ListGamesResponse(games=[_game(g) for g in games])

    def game(self, game_id: str) -> arena_pb2.GetGameResponse:
        return arena_pb2.GetGameResponse(game=_game(self._finished(game_id)))

    def replay_json(self, game_id: str) -> arena_pb2.GetReplayResponse:
        record = _record(self._finished(game_id), self.store.replay(game_id))
        return arena_pb2.GetReplayResponse(game_id=game_id, replay_json=json.dumps(record.to_dict()))

    def recorded_stream(self, game_id: str) -> list[arena_pb2.WatchGameResponse]:
        """A finished game as a spectator stream: its start, one event batch per action, GameOver."""
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
                    rules=wire.rules_info(replay.rules, seats),
                    map=wire.map_info(state.board),
                    observation=wire.observation(observe(state, -1)),
                    next_sequence=len(setup),
                    live=False,
                )
            )
        ]
        sequence = len(setup)
        for action in replay.actions:
            events = state.apply(action)
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
        if queue not in self.lobby.queues and queue not in self.store.queues():
            known = sorted(set(self.lobby.queues) | set(self.store.queues()))
            raise NotFoundError(f"no queue {queue!r}; queues: {', '.join(known)}")

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
