"""What a server configuration is: the server's settings, its queues and their time controls, with the
documented defaults. ``server.ops.config_file`` reads a TOML file and ``CONQUEST_*`` environment variables
over them (its docstring shows the file); docs/configuration.md documents every key and its variable.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from conquest.v1 import bot_pb2
from engine import Rules, preset
from engine.r2210.rules import PLAYER_COUNTS, Rules2210

LOG_FORMATS = ("console", "json")


class ConfigError(ValueError):
    """A configuration value that does not exist or is out of range; the message names the key."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """Per-decision deadlines of a queue (all in milliseconds, except ``max_strikes``)."""

    decision_ms: int = 1000
    first_decision_ms: int = 5000
    initial_timebank_ms: int = 10_000
    increment_ms: int = 200
    max_timebank_ms: int = 30_000
    max_strikes: int = 3
    reconnect_grace_ms: int = 30_000
    defend_decision_ms: int = 300
    """Allowance of a PHASE_DEFEND decision instead of ``decision_ms`` (the timebank still applies): the
    defender's dice are asked in the middle of the attacker's turn, so they get a short deadline."""

    def to_pb(self) -> bot_pb2.TimeControl:
        return bot_pb2.TimeControl(**dataclasses.asdict(self))


@dataclass(frozen=True, slots=True)
class QueueConfig:
    """A queue: games of ``players`` seats under ``rules`` and ``time_control``."""

    name: str
    rules: Rules
    players: int
    time_control: TimeControl = TimeControl()
    rated: bool = True
    """Games move ratings when every seat is a distinct registered bot; False for challenges and
    tournament games, which are recorded unrated."""
    house_opponents: tuple[str, ...] = ()
    """Built-in opponents (``server.play.seats.HOUSE_POLICIES`` names) seated in every game of the queue: it
    matches ``players - len(house_opponents)`` bots (practice servers and local matches)."""
    r2210: Rules2210 | None = None
    """Set for a RISK 2210 A.D. queue (``rules = "2210"`` in a config file): its games are played by
    ``server.play.runner_2210`` under these rules, and ``rules`` (classic's) is not used."""

    @property
    def rules_name(self) -> str:
        """The name of the rules its games are played under ("2210" for a RISK 2210 A.D. queue)."""
        return self.r2210.name if self.r2210 is not None else self.rules.name

    def __post_init__(self) -> None:
        if len(self.house_opponents) >= self.players:
            raise ConfigError(
                f"queue {self.name}: {len(self.house_opponents)} house opponents leave no seat for a bot "
                f"in a {self.players}-player game"
            )


def default_queues(time_control: TimeControl = TimeControl()) -> tuple[QueueConfig, ...]:
    """classic-3..6 (claim setup), classic-dealt-4, the two-player neutral game classic-2, one queue
    per further rule set: classic-defend-4 (the defender chooses its dice), older-4, capital-4,
    mission-4 and the Allied Army game allied-2; and RISK 2210 A.D.'s 2210-2..2210-5."""
    classic = preset("classic")
    queues = [QueueConfig(f"classic-{n}", classic, n, time_control) for n in (3, 4, 5, 6)]
    queues.append(QueueConfig("classic-dealt-4", preset("classic_dealt"), 4, time_control))
    queues.append(QueueConfig("classic-2", preset("classic_two_player"), 2, time_control))
    queues.append(QueueConfig("classic-defend-4", preset("classic", defender_dice="choose"), 4, time_control))
    queues.append(QueueConfig("older-4", preset("older_edition"), 4, time_control))
    queues.append(QueueConfig("capital-4", preset("capital"), 4, time_control))
    queues.append(QueueConfig("mission-4", preset("secret_mission"), 4, time_control))
    queues.append(QueueConfig("allied-2", preset("allied_two_player"), 2, time_control))
    queues.extend(queue_2210(n, time_control) for n in PLAYER_COUNTS)
    return tuple(queues)


def queue_2210(
    players: int, time_control: TimeControl = TimeControl(), rules: Rules2210 | None = None
) -> QueueConfig:
    """The RISK 2210 A.D. queue ``2210-<players>`` (rated, as every default queue)."""
    return QueueConfig(
        f"2210-{players}", preset("classic"), players, time_control, r2210=rules or Rules2210()
    )


@dataclass(frozen=True, slots=True)
class ServerConfig:
    address: str = "[::]:50051"
    replay_dir: Path = Path("replays")
    practice: bool = True
    """Bots without a token may play unranked under a name."""
    log_format: str = "console"
    shutdown_grace_ms: int = 30_000
    metrics_port: int = 9100
    """Prometheus ``/metrics`` is served over HTTP on this port; 0 turns it off."""
    dashboard_port: int = 8080
    """The web dashboard (server/web/dashboard.py) is served over HTTP on this port; 0 turns it off."""
    dashboard_client_watch_limit: int = 4
    """Live games one client address may follow at once on the dashboard; one more is refused (429)."""
    dashboard_client_connection_limit: int = 32
    """HTTP connections one client address may hold open to the dashboard; one more is refused (429)."""
    dashboard_connection_limit: int = 4000
    """HTTP connections the dashboard holds open over all clients (fewer under its open-file limit); one
    more is refused (503) and logged."""
    dashboard_request_timeout_ms: int = 10_000
    """A dashboard connection that has not sent a whole request this long after it opened (or after its
    last answer) is closed: slow and silent clients."""
    dashboard_send_timeout_ms: int = 30_000
    """A dashboard answer (a live game's stream) left unread this long is cut and its connection closed."""
    database_url: str = "sqlite:///conquest.sqlite3"
    """SQLAlchemy URL of the store (relative SQLite paths are from the working directory); "" runs
    without a database: practice play only, replays as files in ``replay_dir``."""
    admin_token: str = ""
    """The Arena API's register, rotate and revoke calls need this token; "" refuses them."""
    challenge_quota: int = 20
    """Challenge games a bot may be named in per ``challenge_period_ms`` (CreateChallenge)."""
    challenge_period_ms: int = 86_400_000
    """The rolling window of the challenge quota, in milliseconds."""
    challenge_open_limit: int = 3
    """Unfinished challenges a bot may be named in at once; CreateChallenge refuses one more."""
    challenge_expiry_ms: int = 120_000
    """How long a challenge's next game waits for its bots' free slots (keeping the slots it has from the
    queues meanwhile), in milliseconds; then the rest of the challenge is cancelled."""
    hello_timeout_ms: int = 5_000
    """A Connect stream that has not sent its Hello this long after opening is closed (``hello_timeout``)."""
    unauthenticated_stream_limit: int = 1_000
    """Connect streams that may wait for their Hello at once, from all clients; one more is refused."""
    client_stream_limit: int = 256
    """Streams (Connect, authenticated or not, and WatchGame) one client address may hold open at once."""
    send_queue_limit: int = 1_000
    """Messages a stream (a bot's or a spectator's) may have waiting for its reader; one more and the
    stream is closed: its reader has stopped reading."""
    session_message_rate: int = 500
    """Messages a second a bot's session may send unasked (a token bucket holding one second's worth; an
    answer to a DecisionRequest gives its token back); the rest are dropped with an Error, and a second's
    worth dropped before the bucket fills again closes it. Each message taken costs a read, its handling
    and mostly an answer, a few hundred microseconds on the pure-Python build: the rate bounds the share
    of the server one flooding session takes, and must stay well below what the server can take, or a
    flood is never cut and the honest bots' decisions wait behind it."""
    takeover: bool = False
    """Keep running games in the database (``server.play.takeover``) and take over the games of servers on
    the same database presumed dead; needs a database (docs/storage.md, "Games taken over")."""
    replica_heartbeat_ms: int = 1_000
    """With ``takeover``: how often this server beats in the replica registry, logs its running games' new
    actions (in the same transaction) and looks for dead ones."""
    replica_timeout_ms: int = 5_000
    """With ``takeover``: a server whose heartbeat has not moved this long is presumed dead."""
    cluster: bool = False
    """Serve one ladder with the other replicas on the same PostgreSQL (``server.play.cluster``): shared
    queues, one matchmaker holding a lease, seats relayed between replicas; implies ``takeover``."""
    cluster_token: str = ""
    """With ``cluster``: the shared secret every relay connection between replicas must carry."""
    relay_port: int = 0
    """With ``cluster``: the TCP port of this replica's relay (0: any free port)."""
    advertise_host: str = ""
    """With ``cluster``: the host name or IP the other replicas reach this one's relay at ("": this
    host's IP; in Kubernetes, the pod IP)."""
    processes: int = 1
    """Replicas ``conquest serve`` runs on this machine (``server.cli.processes``), all in cluster mode on
    the bots' one port; more than 1 needs PostgreSQL."""
    queues: tuple[QueueConfig, ...] = field(default_factory=default_queues)

    def queue(self, name: str) -> QueueConfig | None:
        return next((q for q in self.queues if q.name == name), None)
