"""Server and queue configuration: documented defaults, overridable from a TOML file.

A config file looks like this (every key optional; the values shown are the defaults)::

    [server]
    address = "[::]:50051"       # host:port to listen on
    replay_dir = "replays"       # one <game_id>.json replay per finished game
    practice = true              # bots may play unranked with a name and no token
    log_format = "console"       # "console" or "json"
    shutdown_grace_ms = 30000    # on SIGTERM, in-flight games get this long to finish
    metrics_port = 9100          # Prometheus /metrics over HTTP on this port; 0 turns it off
    dashboard_port = 8080        # the read-only web dashboard over HTTP on this port; 0 turns it off
    database_url = "sqlite:///conquest.sqlite3"  # bots, ratings, games, replays; "" = replay files only
    admin_token = ""             # needed by the Arena API's register/rotate/revoke; "" turns them off
    challenge_quota = 20         # challenge games a bot may be named in per challenge period
    challenge_period_ms = 86400000  # the rolling window of that quota (one day)
    challenge_open_limit = 3     # unfinished challenges a bot may be named in at once
    challenge_expiry_ms = 120000 # a challenge game not started this long after it is due is cancelled
    hello_timeout_ms = 5000      # a Connect stream without a Hello this long after opening is closed
    unauthenticated_stream_limit = 1000  # Connect streams waiting for their Hello at once
    client_stream_limit = 256    # Connect and WatchGame streams one client address may hold open
    send_queue_limit = 1000      # messages a stream may have unread; one more closes it
    session_message_rate = 500   # messages a second a bot's session may send unasked (answers are free)
    takeover = false             # log running games in the database; take over those of dead servers
    replica_heartbeat_ms = 1000  # with takeover: how often this server beats, logs games, looks for dead ones
    replica_timeout_ms = 5000    # with takeover: a server silent this long is presumed dead
    cluster = false              # share queues with the replicas on this PostgreSQL (implies takeover)
    cluster_token = ""           # with cluster: the secret the replicas' relay streams carry
    relay_port = 0               # with cluster: this replica's relay port (0: any free port)
    advertise_host = ""          # with cluster: the host other replicas reach the relay at ("": own IP)
    processes = 1                # replicas `conquest serve` runs on this machine, sharing the port

    [time_control]               # defaults for every queue
    decision_ms = 1000
    first_decision_ms = 5000
    initial_timebank_ms = 10000
    increment_ms = 200
    max_timebank_ms = 30000
    max_strikes = 3
    reconnect_grace_ms = 30000
    defend_decision_ms = 300     # a defence-dice decision's allowance (defender_dice = "choose")

    [queues.classic-4]           # a [queues] table replaces the default queue list
    rules = "classic"            # a rules preset (engine.rules.PRESETS), e.g. classic, capital
    players = 4
    rules_options = { turn_cap = 300 }
    time_control = { decision_ms = 500 }

Environment variables override the file, one per ``[server]`` and ``[time_control]`` key, named
``CONQUEST_<TABLE>_<KEY>`` in capitals (``CONQUEST_SERVER_METRICS_PORT``,
``CONQUEST_TIME_CONTROL_DECISION_MS``); ``CONQUEST_DATABASE_URL`` and ``CONQUEST_ADMIN_TOKEN`` are short
names for the two storage keys. docs/configuration.md documents every key and its variable.

Bad values fail at start with ``ConfigError``, naming the key (or variable) and what is allowed.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conquest.v1 import bot_pb2
from engine import Rules, RulesConfigError, preset
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
    """With ``cluster``: the shared secret every relay stream between replicas must carry."""
    relay_port: int = 0
    """With ``cluster``: the port of this replica's relay service (0: any free port)."""
    advertise_host: str = ""
    """With ``cluster``: the host name or IP the other replicas reach this one's relay at ("": this
    host's IP; in Kubernetes, the pod IP)."""
    processes: int = 1
    """Replicas ``conquest serve`` runs on this machine (``server.cli.processes``), all in cluster mode on
    the bots' one port; more than 1 needs PostgreSQL."""
    queues: tuple[QueueConfig, ...] = field(default_factory=default_queues)

    def queue(self, name: str) -> QueueConfig | None:
        return next((q for q in self.queues if q.name == name), None)


_SERVER_KEYS = {
    "address",
    "replay_dir",
    "practice",
    "log_format",
    "shutdown_grace_ms",
    "metrics_port",
    "dashboard_port",
    "database_url",
    "admin_token",
    "challenge_quota",
    "challenge_period_ms",
    "challenge_open_limit",
    "challenge_expiry_ms",
    "hello_timeout_ms",
    "unauthenticated_stream_limit",
    "client_stream_limit",
    "send_queue_limit",
    "session_message_rate",
    "takeover",
    "replica_heartbeat_ms",
    "replica_timeout_ms",
    "cluster",
    "cluster_token",
    "relay_port",
    "advertise_host",
    "processes",
}
_TOP_KEYS = {"server", "time_control", "queues"}
_QUEUE_KEYS = {"rules", "players", "rules_options", "time_control"}
ENV_PREFIX = "CONQUEST_"
_ENV_TABLES = ("server", "time_control")
"""The tables whose every key has an environment variable (queues are structured: file only)."""
ENV_ALIASES = {
    "CONQUEST_DATABASE_URL": "CONQUEST_SERVER_DATABASE_URL",
    "CONQUEST_ADMIN_TOKEN": "CONQUEST_SERVER_ADMIN_TOKEN",
}
"""Short names of the storage keys, as deployments and the ``conquest bot`` commands use them."""


def env_variables() -> dict[str, tuple[str, str, type]]:
    """Every override variable -> (table, key, the TOML type its text is read as)."""
    defaults = {"server": ServerConfig(), "time_control": TimeControl()}
    keys = {"server": _SERVER_KEYS, "time_control": {f.name for f in dataclasses.fields(TimeControl)}}
    variables = {}
    for table in _ENV_TABLES:
        for key in sorted(keys[table]):
            default = getattr(defaults[table], key)
            kind = str if isinstance(default, Path) else type(default)  # a path is a TOML string
            variables[f"{ENV_PREFIX}{table}_{key}".upper()] = (table, key, kind)
    return variables


def load_config(path: Path | None, environ: Mapping[str, str] | None = None) -> ServerConfig:
    """The defaults, then the TOML file at ``path`` (if any), then the ``CONQUEST_*`` variables of
    ``environ`` (if given) on top.

    Raises:
        ConfigError: unreadable file, unknown key or variable, or bad value (the message names which).
    """
    data: dict[str, Any] = {}
    if path is not None:
        try:
            data = tomllib.loads(path.read_text())
        except OSError as bad:
            raise ConfigError(f"cannot read config file {path}: {bad.strerror}") from None
        except tomllib.TOMLDecodeError as bad:
            raise ConfigError(f"config file {path} is not valid TOML: {bad}") from None
    if environ is not None:
        data = with_environment(data, environ)
    return parse_config(data)


def with_environment(data: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Parsed TOML ``data`` with the overrides in ``environ`` applied, each checked on its own so a bad
    one is reported under its variable's name.

    Raises:
        ConfigError: a misspelt ``CONQUEST_SERVER_*`` or ``CONQUEST_TIME_CONTROL_*`` variable, or a bad value.
    """
    known = env_variables()
    merged = {name: dict(table) if isinstance(table, dict) else table for name, table in data.items()}
    for short, variable in ENV_ALIASES.items():
        if short in environ and variable in environ and environ[short] != environ[variable]:
            raise ConfigError(f"{short} and {variable} set the same key differently: set only one")
    for variable, text in sorted(environ.items()):
        variable = ENV_ALIASES.get(variable, variable)
        if variable not in known:
            if variable.startswith(tuple(f"{ENV_PREFIX}{t}_".upper() for t in _ENV_TABLES)):
                raise ConfigError(
                    f"unknown environment variable {variable}; allowed: {', '.join(sorted(known))}"
                )
            continue  # other CONQUEST_* variables belong to other parts (database, tests)
        table, key, kind = known[variable]
        value = _env_value(variable, text, kind)
        try:
            parse_config({table: {key: value}})
        except ConfigError as bad:
            raise ConfigError(f"environment variable {variable}: {bad}") from None
        section = merged.setdefault(table, {})
        if isinstance(section, dict):  # a non-table is reported by parse_config under its key
            section[key] = value
    return merged


def _env_value(variable: str, text: str, kind: type) -> Any:
    """The text of ``variable`` read as the TOML type ``kind`` (str, bool or int)."""
    if kind is bool:
        if text.strip().lower() not in ("true", "false"):
            raise ConfigError(f"environment variable {variable} = {text!r} must be true or false")
        return text.strip().lower() == "true"
    if kind is int:
        try:
            return int(text.strip())
        except ValueError:
            raise ConfigError(
                f"environment variable {variable} = {text!r} must be a whole number of at least 0"
            ) from None
    return text


def parse_config(data: dict[str, Any]) -> ServerConfig:
    """A ServerConfig from parsed TOML.

    Raises:
        ConfigError: unknown key or bad value.
    """
    _check_keys(data, _TOP_KEYS, "the config file")
    server = _table(data, "server")
    _check_keys(server, _SERVER_KEYS, "[server]")
    time_control = parse_time_control(_table(data, "time_control"), TimeControl(), "[time_control]")
    queues = default_queues(time_control)
    if "queues" in data:
        queues = tuple(
            _parse_queue(name, table, time_control) for name, table in _table(data, "queues").items()
        )
        if not queues:
            raise ConfigError("[queues] is empty: configure at least one queue, or drop [queues]")
    defaults = ServerConfig()
    log_format = server.get("log_format", defaults.log_format)
    if log_format not in LOG_FORMATS:
        raise ConfigError(f"server.log_format = {log_format!r} is not one of: {', '.join(LOG_FORMATS)}")
    cluster = _typed(server, "cluster", bool, defaults.cluster, "server")
    cluster_token = _typed(server, "cluster_token", str, defaults.cluster_token, "server")
    processes = _positive(server, "processes", defaults.processes)
    takeover = cluster or _typed(server, "takeover", bool, defaults.takeover, "server")
    if takeover and not _typed(server, "database_url", str, defaults.database_url, "server"):
        raise ConfigError(
            "server.takeover = true keeps running games in the database, but server.database_url is empty: "
            "set a database URL (PostgreSQL for several servers), or turn takeover off"
        )
    heartbeat = _positive(server, "replica_heartbeat_ms", defaults.replica_heartbeat_ms)
    timeout = _positive(server, "replica_timeout_ms", defaults.replica_timeout_ms)
    if timeout < 2 * heartbeat:
        raise ConfigError(
            f"server.replica_timeout_ms = {timeout} must be at least twice server.replica_heartbeat_ms "
            f"({heartbeat}): a live server would be presumed dead between two of its heartbeats"
        )
    return ServerConfig(
        address=_typed(server, "address", str, defaults.address, "server"),
        replay_dir=Path(_typed(server, "replay_dir", str, str(defaults.replay_dir), "server")),
        practice=_typed(server, "practice", bool, defaults.practice, "server"),
        log_format=log_format,
        shutdown_grace_ms=_count(server, "shutdown_grace_ms", defaults.shutdown_grace_ms, "server"),
        metrics_port=_port(server, "metrics_port", defaults.metrics_port),
        dashboard_port=_port(server, "dashboard_port", defaults.dashboard_port),
        database_url=_typed(server, "database_url", str, defaults.database_url, "server"),
        admin_token=_typed(server, "admin_token", str, defaults.admin_token, "server"),
        challenge_quota=_count(server, "challenge_quota", defaults.challenge_quota, "server"),
        challenge_period_ms=_count(server, "challenge_period_ms", defaults.challenge_period_ms, "server"),
        challenge_open_limit=_count(server, "challenge_open_limit", defaults.challenge_open_limit, "server"),
        challenge_expiry_ms=_count(server, "challenge_expiry_ms", defaults.challenge_expiry_ms, "server"),
        hello_timeout_ms=_positive(server, "hello_timeout_ms", defaults.hello_timeout_ms),
        unauthenticated_stream_limit=_positive(
            server, "unauthenticated_stream_limit", defaults.unauthenticated_stream_limit
        ),
        client_stream_limit=_positive(server, "client_stream_limit", defaults.client_stream_limit),
        send_queue_limit=_positive(server, "send_queue_limit", defaults.send_queue_limit),
        session_message_rate=_positive(server, "session_message_rate", defaults.session_message_rate),
        takeover=takeover,
        replica_heartbeat_ms=heartbeat,
        replica_timeout_ms=timeout,
        cluster=cluster,
        cluster_token=cluster_token,
        relay_port=_port(server, "relay_port", defaults.relay_port),
        advertise_host=_typed(server, "advertise_host", str, defaults.advertise_host, "server"),
        processes=processes,
        queues=queues,
    )


def check_cluster(config: ServerConfig) -> None:
    """The whole configuration, as ``conquest serve`` runs it (file, variables and flags): ``cluster`` and
    ``processes`` > 1 need PostgreSQL; a cluster of separately started replicas needs their shared token
    (``processes`` makes one for its own children). Raises: ConfigError."""
    processes, database_url = config.processes, config.database_url
    if processes < 1:
        raise ConfigError(f"--processes {processes} must be at least 1")
    if not config.cluster and processes == 1:
        return
    what = "server.cluster = true" if processes == 1 else f"server.processes = {processes}"
    if not database_url.startswith("postgresql"):
        raise ConfigError(
            f"{what} needs PostgreSQL: more than one server shares one ladder only through it, and "
            f"server.database_url is {database_url.split(':')[0] or 'empty'!r}; set database_url = "
            '"postgresql+psycopg://user:password@host:5432/conquest" (or CONQUEST_DATABASE_URL), or run one '
            "process on SQLite"
        )
    if processes == 1 and not config.cluster_token:
        raise ConfigError(
            "server.cluster = true needs server.cluster_token: the same secret on every replica, carried "
            "by their relay streams (e.g. CONQUEST_SERVER_CLUSTER_TOKEN=$(openssl rand -hex 32))"
        )


def parse_time_control(table: dict[str, Any], base: TimeControl, where: str) -> TimeControl:
    """``base`` with the values of ``table`` (a [time_control] table) applied.

    Raises:
        ConfigError: unknown key, or a value that is not a whole number in range.
    """
    names = {f.name for f in dataclasses.fields(TimeControl)}
    _check_keys(table, names, where)
    prefix = where.strip("[]")
    values = {name: _count(table, name, getattr(base, name), prefix) for name in names}
    for name in ("decision_ms", "first_decision_ms", "defend_decision_ms"):
        if values[name] < 1:
            raise ConfigError(f"{prefix}.{name} = {values[name]} must be at least 1 (milliseconds)")
    if values["max_strikes"] < 1:
        raise ConfigError(f"{prefix}.max_strikes must be at least 1 (the timeouts that forfeit a seat)")
    return TimeControl(**values)


def _parse_queue(name: str, table: Any, time_control: TimeControl) -> QueueConfig:
    where = f"queues.{name}"
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table with keys: {', '.join(sorted(_QUEUE_KEYS))}")
    _check_keys(table, _QUEUE_KEYS, f"[{where}]")
    rules_name = table.get("rules")
    if not isinstance(rules_name, str):
        raise ConfigError(f"{where}.rules is required: a rules preset name such as 'classic'")
    options = _table(table, "rules_options", where)
    if rules_name == "2210":
        return _parse_queue_2210(name, table, options, time_control)
    try:
        rules = preset(rules_name, **options)
    except RulesConfigError as bad:
        raise ConfigError(f"{where}: {bad}") from None
    players = table.get("players")
    allowed = rules.player_counts()
    if isinstance(players, bool) or players not in allowed:
        counts = ", ".join(str(c) for c in allowed)
        raise ConfigError(f"{where}.players = {players!r}: rules {rules_name!r} allow {counts}")
    control = parse_time_control(
        _table(table, "time_control", where), time_control, f"[{where}.time_control]"
    )
    return QueueConfig(name, rules, players, control)


def _parse_queue_2210(
    name: str, table: dict[str, Any], options: dict[str, Any], time_control: TimeControl
) -> QueueConfig:
    where = f"queues.{name}"
    known = {f.name for f in dataclasses.fields(Rules2210)} - {"name", "defender_dice"}
    _check_keys(options, known, f"{where}.rules_options")
    players = table.get("players")
    if isinstance(players, bool) or players not in PLAYER_COUNTS:
        counts = ", ".join(str(c) for c in PLAYER_COUNTS)
        raise ConfigError(f"{where}.players = {players!r}: rules '2210' allow {counts}")
    control = parse_time_control(
        _table(table, "time_control", where), time_control, f"[{where}.time_control]"
    )
    return QueueConfig(name, preset("classic"), players, control, r2210=Rules2210(**options))


def _check_keys(table: dict[str, Any], allowed: set[str], where: str) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(f"unknown key {key!r} in {where}; allowed keys: {', '.join(sorted(allowed))}")


def _table(data: dict[str, Any], key: str, where: str = "") -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where + '.' if where else ''}{key} must be a table")
    return value


def _typed(table: dict[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    value = table.get(key, default)
    if not isinstance(value, kind):
        raise ConfigError(f"{where}.{key} = {value!r} must be a {kind.__name__}")
    return value


def _count(table: dict[str, Any], key: str, default: int, where: str) -> int:
    value = table.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 2**31 - 1:
        raise ConfigError(f"{where}.{key} = {value!r} must be a whole number of at least 0")
    return value


def _positive(table: dict[str, Any], key: str, default: int) -> int:
    value = _count(table, key, default, "server")
    if value < 1:
        raise ConfigError(f"server.{key} = {value} must be at least 1")
    return value


def _port(table: dict[str, Any], key: str, default: int) -> int:
    value = _count(table, key, default, "server")
    if value > 65535:
        raise ConfigError(f"server.{key} = {value} is not a TCP port: use 1..65535, or 0 to turn it off")
    return value
