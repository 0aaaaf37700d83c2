"""The Arena's records: what the Arena API and the dashboard read from the database, as protobuf.

``Ledger`` answers the read-only calls (bots, leaderboards, rating histories, statistics, finished games,
replays, tournaments) from the store alone; what it knows of the play process is the names of the
configured queues and whether a game is being played. Every method blocks on the database: the gRPC
servicer (``server.arena.service``) runs them on its bounded reader thread, the dashboard in its own
process (``server.web.process``). ``server.arena.api.Arena`` adds the calls that act on the lobby.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Collection, Container
from datetime import datetime

from conquest.v1 import arena_pb2, bot_pb2
from engine.events import public_view
from engine.observe import observe
from engine.r2210.replay import Replay2210, replayed
from engine.replay import Replay
from server.arena.competitions import pure, rules_name
from server.arena.tournaments import standings
from server.play import convert, convert_2210, wire
from server.play.replays import GameRecord
from server.records import ROUND_TRIP_BUCKETS, GameResult, shown
from server.storage import (
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


def as_ms(moment: datetime | None) -> int:
    return round(moment.timestamp() * 1000) if moment is not None else 0


def bot_message(bot: Bot) -> arena_pb2.Bot:
    return arena_pb2.Bot(
        id=bot.id,
        name=bot.name,
        created_at_ms=as_ms(bot.created_at),
        rotated_at_ms=as_ms(bot.rotated_at),
        revoked_at_ms=as_ms(bot.revoked_at),
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
        started_at_ms=as_ms(game.started_at),
        finished_at_ms=as_ms(game.finished_at),
        turns=game.turns,
        reason=game.reason,
        dice_version=game.dice_version,
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


def _record(game: GameSummary, replay: Replay | Replay2210) -> GameRecord:
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


def check_name(value: str, field: str, example: str) -> None:
    if not value:
        raise InvalidInputError(f"{field} is empty: give a name, e.g. {example!r}")


class Ledger:
    """The read-only Arena calls over ``store`` (None on a server without a database: each call raises
    ``NoDatabaseError``). ``queues``: the names of the configured queues; ``live``: the ids of the games
    being played (both read at each call, so a live view of the play process's state may be given)."""

    def __init__(self, store: Store | None, queues: Collection[str], live: Container[str]) -> None:
        self._database = store
        self.queues = queues
        self.live = live

    @property
    def version(self) -> int:
        """Changes whenever this process writes to the database (answers may be kept while it does not)."""
        return self._database.writes if self._database is not None else 0

    @property
    def store(self) -> Store:
        if self._database is None:
            raise NoDatabaseError(
                "this server runs without a database (server.database_url is empty), so it has no "
                "registered bots, ratings or recorded games; set server.database_url and restart it"
            )
        return self._database

    def list_bots(self) -> arena_pb2.ListBotsResponse:
        return arena_pb2.ListBotsResponse(bots=[bot_message(b) for b in self.store.bots()])

    # ------------------------------------------------------------------ ratings and games (blocking)

    def leaderboard(self, queue: str, limit: int) -> arena_pb2.GetLeaderboardResponse:
        check_name(queue, "GetLeaderboardRequest.queue", "classic-4")
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
        check_name(bot, "GetRatingHistoryRequest.bot", "alice")
        check_name(queue, "GetRatingHistoryRequest.queue", "classic-4")
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
                    at_ms=as_ms(c.at),
                )
                for c in changes
            ],
        )

    def bot_stats(self, bot: str, queue: str) -> arena_pb2.GetBotStatsResponse:
        check_name(bot, "GetBotStatsRequest.bot", "alice")
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
        deal), one event batch per action, GameOver. A RISK 2210 A.D. game's batches are
        ``WatchEvents2210``, each with the board after it, as its live stream's."""
        game = self._finished(game_id)
        replay = self.store.replay(game_id)
        snapshot = arena_pb2.GameSnapshot(
            game_id=game_id,
            queue=game.queue,
            players=[bot_pb2.Player(seat=i, name=n) for i, n in enumerate(replay.seats)],
            next_sequence=0,
            live=False,
        )
        if isinstance(replay, Replay2210):
            messages = _recorded_2210(snapshot, replay)
        else:
            messages = _recorded_classic(snapshot, replay)
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
            if game_id in self.live:
                raise NotFoundError(
                    f"game {shown(game_id)} is still being played: WatchGame streams it; its record and "
                    "replay exist once it is over"
                ) from None
            raise

    def _check_queue(self, queue: str) -> None:
        """Raises NotFoundError unless ``queue`` is configured, has ratings or is a tournament's."""
        if queue in self.queues or queue in self.store.queues():
            return
        tournaments = {r.queue for r in self.store.tournaments()}
        if queue not in tournaments:
            known = sorted(set(self.queues) | set(self.store.queues()) | tournaments)
            raise NotFoundError(f"no queue {shown(queue)}; queues: {', '.join(known)}")

    def tournament(self, name: str) -> arena_pb2.GetTournamentResponse:
        check_name(name, "GetTournamentRequest.name", "spring-cup")
        return arena_pb2.GetTournamentResponse(
            tournament=tournament_message(self.store.tournament(name), full=True)
        )

    def tournaments(self) -> arena_pb2.ListTournamentsResponse:
        return arena_pb2.ListTournamentsResponse(
            tournaments=[tournament_message(r, full=False) for r in self.store.tournaments()]
        )


def _recorded_classic(snapshot: arena_pb2.GameSnapshot, replay: Replay) -> list[arena_pb2.WatchGameResponse]:
    """A finished classic game's snapshot (``snapshot`` with the board as its setup left it) and its event
    batches."""
    state, setup = replay.start()
    snapshot.rules.CopyFrom(convert.rules_info(replay.rules, len(replay.seats)))
    snapshot.map.CopyFrom(convert.map_info(state.board))
    snapshot.observation.CopyFrom(wire.observation(observe(state, -1)))
    messages = [arena_pb2.WatchGameResponse(snapshot=snapshot)]
    sequence = 0
    for events in itertools.chain([setup], (state.apply(action) for action in replay.actions)):
        batch = [wire.event_to_pb(public_view(e, None), sequence + i) for i, e in enumerate(events)]
        sequence += len(events)
        if batch:
            messages.append(
                arena_pb2.WatchGameResponse(events=bot_pb2.GameEvents(game_id=snapshot.game_id, events=batch))
            )
    return messages


def _recorded_2210(snapshot: arena_pb2.GameSnapshot, replay: Replay2210) -> list[arena_pb2.WatchGameResponse]:
    """A finished RISK 2210 A.D. game's snapshot (``snapshot`` with the board as its setup left it), then
    one ``WatchEvents2210`` for the setup's events and one per action.

    Raises:
        ReplayError: a recorded action the engine refuses (a corrupt record).
    """
    steps = replayed(replay)
    start, setup = next(steps)
    snapshot.r2210.CopyFrom(convert_2210.start_2210(replay.rules, start, -1))
    messages = [arena_pb2.WatchGameResponse(snapshot=snapshot)]
    sequence = 0
    for state, events in itertools.chain([(start, setup)], steps):
        batch = list(enumerate(events, sequence))
        messages.append(convert_2210.watch_events_2210(snapshot.game_id, batch, state))
        sequence += len(events)
    return messages


def tournament_message(record: TournamentRecord, *, full: bool) -> arena_pb2.Tournament:
    spec, entrants, tables = pure(record)
    message = arena_pb2.Tournament(
        name=record.name,
        format=arena_pb2.TournamentFormat.Value(f"TOURNAMENT_FORMAT_{record.format.upper()}"),
        table_size=record.table_size,
        planned_rounds=record.rounds,
        rules=rules_name(record.rules),
        queue=record.queue,
        created_at_ms=as_ms(record.created_at),
        finished_at_ms=as_ms(record.finished_at),
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
