"""The Arena API's logic: organizer and spectator operations over the store and the lobby, as protobuf.

``server/arena/service.py`` is the thin gRPC servicer over this module; it maps the errors raised here
(the store's typed errors plus ``NoDatabaseError`` and ``MissingAdminTokenError``) to status codes.
The read-only calls are the ``Ledger``'s (``server.arena.ledger``): they block on the database, and the
servicer runs them on its bounded reader thread. Methods that touch the lobby (live games, challenges,
tournaments, revocation) run on the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from conquest.v1 import arena_pb2, bot_pb2
from server.arena.competitions import Challenges, TournamentDirector
from server.arena.ledger import Ledger, as_ms, bot_message, check_name, tournament_message
from server.play.cluster import Cluster
from server.play.lobby import Lobby
from server.play.relay_watch import RelayedWatch
from server.play.runner import GameRunner
from server.play.spectators import Spectator
from server.records import HANDED_OVER, ClusterCounts, shown
from server.storage import AdminTokenError, AuthError, InvalidInputError, NotFoundError, StorageError, Store


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


class Arena(Ledger):
    """Arena operations: the ``Ledger``'s reads plus the calls that act on the lobby. ``store`` is None
    on a server without a database: only live games are served."""

    def __init__(self, lobby: Lobby, store: Store | None) -> None:
        super().__init__(store, lobby.queues, lobby.runners)
        self.lobby = lobby
        self.cluster: Cluster | None = None
        """With ``server.cluster``: this replica in the cluster (its live games are every replica's)."""
        self.challenges = Challenges(lobby, store) if store is not None else None
        self.director = TournamentDirector(lobby, store) if store is not None else None
        self._resuming: asyncio.Task[None] | None = None
        try:  # a server (not a command-line tool) carries on the tournaments a restart interrupted
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and self.director is not None:
            self._resuming = loop.create_task(self.director.resume())

    # ------------------------------------------------------------------ bots (blocking)

    def register_bot(self, name: str, admin: str) -> arena_pb2.RegisterBotResponse:
        registration = self.store.register_bot(name, admin_token=admin)
        return arena_pb2.RegisterBotResponse(bot=bot_message(registration.bot), token=registration.token)

    async def rotate_token(self, name: str, admin: str) -> arena_pb2.RotateTokenResponse:
        """A new token; the sessions opened with the old one are closed at once (``rotated_token``): the bot
        takes its seats back by reconnecting with the new token within the reconnect grace."""
        check_name(name, "RotateTokenRequest.name", "alice")
        store = self.store
        registration = await asyncio.to_thread(lambda: store.rotate_token(name, admin_token=admin))
        grace_s = max(q.time_control.reconnect_grace_ms for q in self.lobby.config.queues) / 1000
        self.lobby.close_bot_sessions(
            registration.bot.id,
            "rotated_token",
            f"the organizer gave bot {name!r} a new token, so this session (opened with the old one) is "
            f"closed; reconnect with the new token within {grace_s:g} s to take your seats back",
        )
        return arena_pb2.RotateTokenResponse(bot=bot_message(registration.bot), token=registration.token)

    async def revoke_bot(self, name: str, admin: str) -> arena_pb2.RevokeBotResponse:
        """Revoke a bot and close its sessions at once (``revoked_token``): it is seated in no new game, and
        its running games go on without it (its seats forfeit once the reconnect grace is over)."""
        check_name(name, "RevokeBotRequest.name", "alice")
        store = self.store
        bot = await asyncio.to_thread(lambda: store.revoke_bot(name, admin_token=admin))
        self.lobby.close_bot_sessions(
            bot.id,
            "revoked_token",
            f"the organizer revoked bot {name!r}: this session is closed, its token no longer works and "
            "its running games go on without it. Ask the organizer to register the bot again",
        )
        return arena_pb2.RevokeBotResponse(bot=bot_message(bot))

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
        if request.format not in _FORMATS:
            raise InvalidInputError(
                f"CreateTournamentRequest.format = {request.format} is not a format: use "
                f"{', '.join(f'{name} ({number})' for number, name in _FORMATS.items())}"
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
        return arena_pb2.CreateTournamentResponse(tournament=tournament_message(record, full=True))

    # ------------------------------------------------------------------ live games (event loop)

    def live_count(self) -> int:
        """How many games ``live_games`` lists over every queue (at most): what building it costs."""
        elsewhere = len(self.cluster.view.games) if self.cluster is not None else 0
        return len(self.lobby.runners) + elsewhere

    def live_games(self, queue: str) -> arena_pb2.ListLiveGamesResponse:
        """The games being played; with ``server.cluster`` every replica's, from the cluster's last
        heartbeat (never a database read per call), each with its host, and the replicas themselves."""
        if queue and queue not in self.lobby.queues:
            raise NotFoundError(f"no queue {shown(queue)}; queues: {', '.join(self.lobby.queues)}")
        view = self.cluster.view if self.cluster is not None else None
        here = view.replica if view is not None else ""
        handovers = {g.game_id: g.handovers for g in view.games} if view is not None else {}
        games = [
            arena_pb2.LiveGame(
                game_id=r.game_id,
                queue=r.queue.name,
                players=[bot_pb2.Player(seat=i, name=s.name) for i, s in enumerate(r.seats)],
                turn=r.state.turn if isinstance(r, GameRunner) else r.state.year,
                started_at_ms=as_ms(r.started_at),
                host=here,
                handovers=handovers.get(r.game_id, 0),
            )
            for r in self.lobby.runners.values()
        ]
        replicas: list[arena_pb2.ClusterReplica] = []
        totals = None
        if view is not None:
            games += [
                arena_pb2.LiveGame(
                    game_id=g.game_id,
                    queue=g.queue,
                    players=[bot_pb2.Player(seat=i, name=name) for i, (name, _) in enumerate(g.seats)],
                    turn=-1,  # known to its host only
                    started_at_ms=as_ms(g.started_at),
                    host=g.host,
                    handovers=g.handovers,
                )
                for g in view.games
                if g.host != here and g.game_id not in self.lobby.runners
            ]
            replicas = [
                arena_pb2.ClusterReplica(
                    id=r,
                    games=n,
                    alive=r in view.alive,
                    lease_holder=r == view.lease_holder,
                    counts=_counts(view.counts.get(r, ClusterCounts())),
                )
                for r, n in sorted(view.replicas.items())
            ]
            totals = _counts(view.totals)
        games = [g for g in games if not queue or g.queue == queue]
        games.sort(key=lambda g: (g.started_at_ms, g.game_id))
        return arena_pb2.ListLiveGamesResponse(games=games, replica=here, replicas=replicas, totals=totals)

    def watch_mailbox(self, game_id: str) -> Watching | None:
        """A new spectator's stream of a game in progress (``unwatch`` it when done): here, or with
        ``server.cluster`` relayed from the replica that plays it; None if no such game is being played.
        WatchGame writes it with ``deliver``, which ends the stream of a spectator that stopped reading.

        Raises:
            UnwatchableError: the game runs in the cluster but no replica can stream it now (being handed
                over or taken over, or its host's address not known yet); the message says to retry.
        """
        runner = self.lobby.runners.get(game_id)
        if runner is not None:
            spectator = runner.watch(self.lobby.config.send_queue_limit)
            return Watching(spectator, functools.partial(runner.unwatch, spectator))
        view = self.cluster.view if self.cluster is not None else None
        game = view.hosted_elsewhere(game_id) if view is not None else None
        if view is None or game is None:
            return None
        assert self.cluster is not None
        retry = "retry in a few seconds (WatchGame on any replica streams it once a replica plays it)"
        if not game.host:
            raise UnwatchableError(
                f"game {game_id} was handed over by its draining replica and no replica plays it yet; {retry}"
            )
        if game.host not in view.alive:
            raise UnwatchableError(
                f"game {game_id}'s replica {game.host} stopped answering and the game is being taken over by "
                f"another; {retry}"
            )
        relayed = self.cluster.relay.watches.watch(game.host, game_id)
        if relayed is None:
            raise UnwatchableError(
                f"game {game_id} is played on replica {game.host}, whose relay address replica "
                f"{view.replica} has not read yet; {retry}"
            )
        return Watching(relayed.spectator, relayed.unwatch, relayed)

    async def moved(self, relayed: RelayedWatch) -> str:
        """Why a stream relayed from another replica ended without the game's GameOver, once this replica's
        heartbeat shows where the game went (waiting at most the time a takeover takes): "" when it ended
        with GameOver."""
        if relayed.complete:
            return ""
        assert self.cluster is not None
        cluster, game_id, host = self.cluster, relayed.game_id, relayed.host
        deadline = time.monotonic() + 2 * cluster.timeout_s + MOVE_HEARTBEATS * cluster.heartbeat_s
        while True:
            game = next((g for g in cluster.view.games if g.game_id == game_id), None)
            if game is None:
                return (
                    f"game {game_id} ended on replica {host} before its end reached this stream "
                    f"({relayed.why}); call WatchGame again for its record (or GetReplay)"
                )
            if game.host and game.host != host:
                how = "handed over by its draining replica" if relayed.why == HANDED_OVER else "taken over"
                return (
                    f"game {game_id} moved from replica {host} to replica {game.host} ({how}); call "
                    "WatchGame again to watch it from there (any replica streams it)"
                )
            if time.monotonic() > deadline:
                return (
                    f"game {game_id}'s replica {host} stopped streaming it ({relayed.why}) and no other "
                    "replica plays it yet; call WatchGame again in a few seconds"
                )
            await asyncio.sleep(MOVE_POLL_S)


@dataclass(frozen=True)
class Watching:
    """A spectator's stream of a game in progress, played here or relayed from its host."""

    spectator: Spectator
    unwatch: Callable[[], None]
    """Call once the stream is done (the spectator left, or the game ended)."""
    relayed: RelayedWatch | None = None
    """The stream relayed from the host (None: the game is played here)."""


class UnwatchableError(StorageError):
    """A game running in the cluster that no replica can stream right now (the message says to retry)."""


MOVE_POLL_S = 0.1
"""Seconds between looks at the cluster view while a cut stream waits to learn where its game went."""
MOVE_HEARTBEATS = 3
"""Heartbeats beyond twice ``replica_timeout_ms`` (a dead host's games are claimed within one, plus a
heartbeat or two) a cut stream waits for its game's new host to show in this replica's view."""


_FORMATS = {
    number: name
    for name, number in arena_pb2.TournamentFormat.items()
    if number != arena_pb2.TOURNAMENT_FORMAT_UNSPECIFIED
}
"""The formats CreateTournament takes, by number (the enum's names, as in the .proto)."""


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


def _counts(counts: ClusterCounts) -> arena_pb2.ClusterCounts:
    return arena_pb2.ClusterCounts(
        games_handed_over=counts.games_handed_over,
        games_taken_over=counts.games_taken_over,
        relayed_decisions_played=counts.relayed_decisions_played,
        relayed_decisions_sent=counts.relayed_decisions_sent,
    )
