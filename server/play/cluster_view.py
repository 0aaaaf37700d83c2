"""The cluster as one replica saw it at its last heartbeat (``server.play.cluster``): what its bots are
told of the queues (QueueStatus) and what its Arena lists of the games being played (ListLiveGames), both
read from memory, so no request waits on the database and none adds a query."""

from __future__ import annotations

from dataclasses import dataclass, field

from server.records import ClusterCounts, QueueCount, RunningGame


@dataclass(frozen=True)
class ClusterView:
    replica: str
    """This replica's id."""
    replicas: dict[str, int] = field(default_factory=dict)
    """Every registered replica's id and the games it hosts (as it published them)."""
    alive: frozenset[str] = frozenset()
    """The registered replicas not presumed dead (this one included)."""
    lease_holder: str = ""
    """The replica holding the matchmaker lease ("": none)."""
    games: tuple[RunningGame, ...] = ()
    """Every game in the action log, oldest first."""
    waiting: dict[tuple[str, str], QueueCount] = field(default_factory=dict)
    """By (replica, queue): that replica's bots waiting in the queue."""
    counts: dict[str, ClusterCounts] = field(default_factory=dict)
    """Each replica's counts over its process's lifetime, as of its last heartbeat (of ``replicas``)."""
    totals: ClusterCounts = field(default_factory=ClusterCounts)
    """The cluster's counts since its database was created: every replica's, those gone included."""

    def waiting_elsewhere(self, queue: str) -> QueueCount:
        """The bots waiting in ``queue`` on the other live replicas."""
        counts = [
            count
            for (replica, name), count in self.waiting.items()
            if name == queue and replica != self.replica and replica in self.alive
        ]
        return QueueCount(sum(c.waiting for c in counts), sum(c.ready for c in counts))

    def games_by_bot(self) -> dict[str, list[tuple[str, str]]]:
        """Each bot's running games (by identity key), as (game id, host replica)."""
        games: dict[str, list[tuple[str, str]]] = {}
        for game in self.games:
            for _, key in game.seats:
                if key:
                    games.setdefault(key, []).append((game.game_id, game.host))
        return games

    def hosted_elsewhere(self, game_id: str) -> RunningGame | None:
        """The running game ``game_id`` if another replica (or, handed over, none yet) plays it."""
        return next((g for g in self.games if g.game_id == game_id and g.host != self.replica), None)
