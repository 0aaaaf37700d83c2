"""Challenges and tournaments on a running server: what the Arena API's CreateChallenge and tournament
calls do between the store (persistence, quotas) and the lobby (seating games by bot name).

Both run on the event loop; database work goes to a worker thread. The tournament director is the only
writer of a tournament's rounds: it stores a round before seating it, links each table to its game once the
game is recorded, and on start resumes every unfinished tournament from the database (docs/tournaments.md).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any

import structlog

from engine import Rules, RulesConfigError, preset
from engine.r2210.replay import rules_from_dict, rules_to_dict
from engine.r2210.rules import PLAYER_COUNTS, Rules2210
from server.arena.tournaments import (
    Entrant,
    Spec,
    Table,
    TournamentError,
    default_rounds,
    next_round,
    validate,
)
from server.ops.config import QueueConfig, ServerConfig, TimeControl
from server.play.lobby import Lobby
from server.play.players import Appointment
from server.play.runner_2210 import AnyRunner
from server.records import HANDED_OVER, NAME_FORM, NAME_PATTERN, SHUTDOWN, shown
from server.storage import (
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    StorageError,
    Store,
    TournamentRecord,
)

log = structlog.get_logger("conquest.competitions")


class NotConnectedError(StorageError):
    """A challenged bot has no open session (FAILED_PRECONDITION)."""


def game_queue(config: ServerConfig, queue: str, rules: str, field: str) -> QueueConfig:
    """The queue config a challenge or tournament plays under: a configured queue by name, or a rules
    preset with the time control of the server's first queue of that preset (else of its first queue).

    Raises:
        InvalidInputError: neither or both given, or an unknown name (the message lists the known ones).
    """
    if bool(queue) == bool(rules):
        raise InvalidInputError(f"{field}: give either queue (e.g. 'classic-4') or rules (e.g. 'classic')")
    if queue:
        found = config.queue(queue)
        if found is None:
            raise NotFoundError(
                f"no queue {shown(queue)}; queues: {', '.join(q.name for q in config.queues)}"
            )
        return found
    try:
        chosen = preset(rules)
    except RulesConfigError as bad:
        raise InvalidInputError(f"{field}.rules: {bad}") from None
    like = next((q for q in config.queues if q.rules_name == rules), config.queues[0])
    return QueueConfig(f"challenge-{rules}", chosen, min(chosen.player_counts()), like.time_control)


@dataclasses.dataclass(eq=False)
class Challenge:
    """A challenge being played: its games are appointed one after another."""

    id: int
    queue: QueueConfig
    bots: tuple[str, ...]
    games_left: int
    """Games not appointed yet."""
    challenger: str
    """The bot whose token asked for it ("" for the admin): the challenge ends if it goes away."""


class Challenges:
    """Challenges reserve nothing a challenger can hold: a bot is named in at most
    ``server.challenge_open_limit`` unfinished challenges; a challenge's games are appointed one at a time,
    each cancelled with the rest of the challenge if it has not started ``server.challenge_expiry_ms`` after
    it was appointed, or once the challenging bot has no open session left."""

    def __init__(self, lobby: Lobby, store: Store) -> None:
        self.lobby = lobby
        self.store = store
        self.open: dict[int, Challenge] = {}
        """Unfinished challenges by id."""

    async def create(
        self, bots: Sequence[str], queue: str, rules: str, games: int, challenger: str = ""
    ) -> tuple[int, QueueConfig]:
        """Check, record (quota) and appoint a challenge; returns its id and the queue its games use.
        ``challenger``: the bot whose token asked for it ("" for the admin).

        Raises:
            InvalidInputError, NotFoundError, NotConnectedError, QuotaExceededError.
        """
        config = game_queue(self.lobby.config, queue, rules, "CreateChallengeRequest")
        if len(bots) < 2 or len(set(bots)) != len(bots):
            raise InvalidInputError(
                f"CreateChallengeRequest.bots = {shown(', '.join(bots))}: name 2 or more bots, each once"
            )
        # A named queue fixes the player count (a 2210 queue's is not its classic rules' own range).
        if queue and len(bots) != config.players:
            raise InvalidInputError(
                f"queue {shown(queue)} plays {config.players}-player games; {len(bots)} bots named"
            )
        if not queue and len(bots) not in config.rules.player_counts():
            counts = ", ".join(str(c) for c in config.rules.player_counts())
            raise InvalidInputError(
                f"{len(bots)} bots cannot play rules {config.rules.name!r}: it allows {counts} players"
            )
        if not 0 <= games <= 100:
            raise InvalidInputError(f"CreateChallengeRequest.games = {games}: use 1 to 100, or 0 for 1")
        games = games or 1
        for name in bots:
            await asyncio.to_thread(self.store.bot, name)  # NotFoundError for an unknown bot
            if not self.lobby.connected(name):
                raise NotConnectedError(
                    f"bot {name!r} is not connected: a challenge needs every named bot connected "
                    "(it is seated when it has a free game slot); try again once it is"
                )
        server = self.lobby.config
        for name in bots:
            waiting = [c.id for c in self.open.values() if name in c.bots]
            if len(waiting) >= server.challenge_open_limit:
                raise QuotaExceededError(
                    f"bot {name!r} is already named in {len(waiting)} unfinished challenges "
                    f"({', '.join(map(str, sorted(waiting)))}; at most {server.challenge_open_limit} at "
                    "once): try again once one is played out, or has expired "
                    f"({server.challenge_expiry_ms / 1000:g} s after its next game was due)"
                )
        challenge_id = await asyncio.to_thread(
            lambda: self.store.create_challenge(
                bots,
                config.name,
                games,
                quota=server.challenge_quota,
                period=timedelta(milliseconds=server.challenge_period_ms),
            )
        )
        played = dataclasses.replace(config, players=len(bots), rated=False)
        log.info("challenge_created", challenge=challenge_id, bots=list(bots), queue=config.name, games=games)
        challenge = Challenge(challenge_id, played, tuple(bots), games, challenger)
        self.open[challenge_id] = challenge
        self._appoint_next(challenge)  # ended at once if the challenger left while the quota was counted
        return challenge_id, played

    def _appoint_next(self, challenge: Challenge) -> None:
        if challenge.games_left == 0 or not self.lobby.accepting:
            self._end(challenge, "")
            return
        if challenge.challenger and not self.lobby.connected(challenge.challenger):  # left during a game
            self._end(challenge, f"{challenge.challenger} disconnected")
            return
        challenge.games_left -= 1

        def over(runner: AnyRunner) -> None:
            if runner.reason == SHUTDOWN:
                self._end(challenge, "the server is shutting down")
            else:
                self._appoint_next(challenge)

        appointment = Appointment(
            challenge.queue,
            challenge.bots,
            over,
            owner=challenge.challenger,
            on_withdrawn=lambda why: self._end(challenge, why),
        )
        expiry_s = self.lobby.config.challenge_expiry_ms / 1000
        asyncio.get_running_loop().call_later(
            expiry_s, self.lobby.withdraw, appointment, f"its game did not start within {expiry_s:g} s"
        )  # a no-op once the game has started
        self.lobby.appoint(appointment)

    def _end(self, challenge: Challenge, why: str) -> None:
        """The challenge is played out (``why`` empty) or cancelled (why, in words)."""
        if self.open.pop(challenge.id, None) is None:
            return
        if why:
            log.info("challenge_cancelled", challenge=challenge.id, why=why)
        else:
            log.info("challenge_finished", challenge=challenge.id)


class TournamentDirector:
    """Seats the tables of every running tournament and advances rounds as games finish. In a cluster
    (``server.cluster``) only the replica holding the matchmaker lease directs (``directs``), so that a
    table is seated once: ``direct`` carries on every unfinished tournament while it does (created on
    another replica, a game finished on another replica, or the lease just taken)."""

    def __init__(self, lobby: Lobby, store: Store) -> None:
        self.lobby = lobby
        self.store = store
        self._appointed: dict[int, Appointment] = {}
        """Tournament tables (by id) waiting in the lobby, being played, or whose game is being linked."""
        self._lock = asyncio.Lock()
        self.directs: Callable[[], bool] = lambda: not lobby.config.cluster
        """Whether this server directs the tournaments now: always alone; in a cluster, while it holds the
        matchmaker lease (the server wires it)."""

    async def create(
        self,
        name: str,
        format: str,
        bots: Sequence[str],
        queue: str,
        rules: str,
        table_size: int,
        rounds: int,
    ) -> TournamentRecord:
        """Store a new tournament and seat its first round.

        Raises:
            InvalidInputError (with what would work), NotFoundError, AlreadyExistsError.
        """
        if not NAME_PATTERN.fullmatch(name):
            raise InvalidInputError(f"CreateTournamentRequest.name {shown(name)}: use {NAME_FORM}")
        if table_size < 0 or rounds < 0:
            field, value = ("table_size", table_size) if table_size < 0 else ("rounds", rounds)
            raise InvalidInputError(
                f"CreateTournamentRequest.{field} = {value}: use 1 or more, or 0 for the default "
                "(table_size: the queue's player count; rounds: ceil(log2(entrants)))"
            )
        config = game_queue(self.lobby.config, queue, rules, "CreateTournamentRequest")
        size = table_size or (config.players if queue else 0)
        stored_rules = stored(config)
        counts = player_counts(stored_rules)
        if not size and len(counts) == 1:
            size = counts[0]
        if not size:
            raise InvalidInputError(
                f"CreateTournamentRequest.table_size: rules {config.rules_name!r} allow "
                f"{', '.join(str(c) for c in counts)} players; say how many seats a table has"
            )
        spec = Spec(format, size, counts, rounds or default_rounds(len(bots)) if format == "swiss" else 0)
        try:
            validate(spec, len(bots))
        except TournamentError as bad:
            raise InvalidInputError(f"CreateTournamentRequest: {bad}") from None
        rated_queue = next(
            (
                q.name
                for q in self.lobby.config.queues
                if q.r2210 == config.r2210 and q.rules == config.rules and q.players == size
            ),
            None,
        )
        await asyncio.to_thread(
            lambda: self.store.create_tournament(
                name,
                format=format,
                table_size=size,
                rounds=spec.rounds,
                rules=stored_rules,
                time_control=dataclasses.asdict(config.time_control),
                bots=bots,
                rating_queue=rated_queue,
            )
        )
        log.info("tournament_created", tournament=name, format=format, entrants=len(bots), table_size=size)
        await self.advance(name)
        return await asyncio.to_thread(self.store.tournament, name)

    async def resume(self) -> None:
        """Carry on every unfinished tournament of the database (after a restart)."""
        for record in await asyncio.to_thread(self.store.tournaments):
            if record.finished_at is None:
                await self.advance(record.name)

    async def direct(self, interval_s: float) -> None:
        """Until cancelled (in a cluster): every ``interval_s`` while this replica directs, carry on every
        unfinished tournament; once it no longer does, withdraw the tables it appointed that have not
        started (the new director seats them)."""
        failing = False
        while True:
            await asyncio.sleep(interval_s)
            if not self.directs():
                for table_id, appointment in list(self._appointed.items()):
                    if self.lobby.withdraw(appointment, "the tournament director moved to another replica"):
                        del self._appointed[table_id]
                continue
            try:
                await self.resume()
                failing = False
            except Exception as error:  # the database did not answer: tried again at the next round
                if failing:  # the traceback once per outage, not every heartbeat
                    log.warning("tournaments_not_directed", error=str(error)[:200])
                else:
                    log.exception("tournaments_not_directed")
                failing = True

    async def advance(self, name: str) -> None:
        """Seat the current round's unplayed tables; once all are played, store and seat the next round, or
        finish the tournament. Nothing while this server does not direct (``directs``)."""
        if not self.directs():
            return
        async with self._lock:
            while True:
                record = await asyncio.to_thread(self.store.tournament, name)
                if record.finished_at is not None:
                    return
                spec, entrants, tables = pure(record)
                current = max((t.round for t in record.tables), default=0)
                unplayed = [
                    t for t in record.tables if t.round == current and len(t.bots) > 1 and not t.game_id
                ]
                if unplayed:
                    playing = await self._playing([t.playing for t in unplayed if t.playing])
                    for table in unplayed:
                        if table.playing not in playing:
                            self._appoint(record, table.id, table.bots)
                    return
                groups = next_round(spec, entrants, tables, random.Random())
                if groups is None:
                    await asyncio.to_thread(self.store.finish_tournament, name)
                    log.info("tournament_finished", tournament=name, rounds=current)
                    return
                await asyncio.to_thread(self.store.add_round, name, current + 1, groups)
                log.info("tournament_round", tournament=name, round=current + 1, tables=len(groups))

    async def _playing(self, games: list[str]) -> set[str]:
        """Which of ``games`` (seated for tables, not recorded) are being played: here, or in the action
        log (on another replica, or handed over); the others were lost, and their tables are seated
        again."""
        here = {game for game in games if game in self.lobby.runners}
        if len(here) == len(games):
            return here
        live = {game_id for game_id, _, _, _ in await asyncio.to_thread(self.store.live_games)}
        return here | (set(games) & live)

    def _appoint(self, record: TournamentRecord, table_id: int, bots: list[str]) -> None:
        if table_id in self._appointed:
            return
        queue = table_queue(record, len(bots))

        def over(runner: AnyRunner) -> None:
            if runner.reason in (SHUTDOWN, HANDED_OVER):  # cut short by a stop (the table is played again
                # after the restart), or played on elsewhere (the director sees it once it is recorded)
                self._appointed.pop(table_id, None)
                return
            # Tracked by the lobby: a shutdown waits until the game is linked and the next round stored,
            # so a restart resumes the tournament where it stands.
            self.lobby.track(asyncio.create_task(self._played(record.name, table_id, runner.game_id)))

        def started(runner: AnyRunner) -> None:
            """Kept at once: a director (on any replica) leaves the table alone while its game is
            played, wherever that is, and counts it once recorded."""
            self.lobby.track(asyncio.create_task(self._link(table_id, runner.game_id)))

        appointment = Appointment(queue, tuple(bots), over, on_started=started)
        self._appointed[table_id] = appointment
        self.lobby.appoint(appointment)

    def queue(self, name: str, players: int) -> QueueConfig | None:
        """The queue of a tournament's table of ``players`` by the queue's name (``tournament-<name>``), for
        a game of it taken over from another replica; None when no tournament plays it (blocking)."""
        tournament = name.removeprefix("tournament-")
        try:
            record = self.store.tournament(tournament)
        except NotFoundError:
            return None
        return table_queue(record, players) if record.queue == name else None

    async def _link(self, table_id: int, game_id: str) -> None:
        try:
            await asyncio.to_thread(self.store.start_table, table_id, game_id)
        except Exception:  # linked as the game ends here; else seated again once found lost
            log.exception("tournament_table_not_linked", table=table_id, game_id=game_id)

    async def _played(self, name: str, table_id: int, game_id: str) -> None:
        try:
            try:
                await asyncio.to_thread(self.store.link_table, table_id, game_id)
            finally:  # once linked, and under the lock: an advance that read the tournament before the
                async with self._lock:  # link must still see the table as appointed, or it seats it again
                    self._appointed.pop(table_id, None)
            await self.advance(name)
        except Exception:
            log.exception("tournament_advance_failed", tournament=name, table=table_id, game_id=game_id)


def table_queue(record: TournamentRecord, players: int) -> QueueConfig:
    """The queue a table of ``players`` of the tournament plays under (unrated)."""
    rules, r2210 = played_rules(record.rules)
    return QueueConfig(
        record.queue, rules, players, TimeControl(**record.time_control), rated=False, r2210=r2210
    )


def pure(record: TournamentRecord) -> tuple[Spec, list[Entrant], list[Table]]:
    """A stored tournament as ``server.arena.tournaments`` values (tables with a linked game are played)."""
    spec = Spec(record.format, record.table_size, player_counts(record.rules), record.rounds)
    entrants = [Entrant(e.name, e.seed, e.rating) for e in record.entrants]
    tables = [
        Table(t.round, tuple(t.bots), tuple(t.places) if t.places is not None else None)
        for t in record.tables
    ]
    return spec, entrants, tables


R2210_KEY = "r2210"
"""A RISK 2210 A.D. tournament's stored rules: ``{"r2210": <its Rules2210 as in a replay>}``; a classic
tournament's are its ``Rules.to_dict()``."""


def stored(queue: QueueConfig) -> dict[str, Any]:
    """The rules a tournament on ``queue`` stores (its games are played under them, after a restart too)."""
    return {R2210_KEY: rules_to_dict(queue.r2210)} if queue.r2210 is not None else queue.rules.to_dict()


def played_rules(data: dict[str, Any]) -> tuple[Rules, Rules2210 | None]:
    """Stored rules as a queue's: the classic rules and, for a 2210 tournament, its 2210 rules."""
    if R2210_KEY in data:
        return preset("classic"), rules_from_dict(data[R2210_KEY])
    return Rules.from_dict(data), None


def player_counts(data: dict[str, Any]) -> tuple[int, ...]:
    """How many players a table of these stored rules may seat."""
    return PLAYER_COUNTS if R2210_KEY in data else Rules.from_dict(data).player_counts()


def rules_name(data: dict[str, Any]) -> str:
    """The name of stored rules: a classic preset's, or "2210"."""
    return str(data[R2210_KEY].get("name", "2210") if R2210_KEY in data else data.get("name", ""))
