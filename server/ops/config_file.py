"""Reading a configuration: the documented defaults (``server.ops.config``), then a TOML file, then
``CONQUEST_*`` environment variables.

A config file looks like this (every key optional; the values shown are the defaults)::

    [server]
    address = "[::]:50051"       # host:port to listen on
    replay_dir = "replays"       # one <game_id>.json replay per finished game
    practice = true              # bots may play unranked with a name and no token
    log_format = "console"       # "console" or "json"
    shutdown_grace_ms = 30000    # on SIGTERM, in-flight games get this long to finish
    metrics_port = 9100          # Prometheus /metrics over HTTP on this port; 0 turns it off
    dashboard_port = 8080        # the read-only web dashboard over HTTP on this port; 0 turns it off
    dashboard_client_watch_limit = 4  # live games one client address may follow at once on the dashboard
    dashboard_client_connection_limit = 32  # HTTP connections one client address may hold open to it
    dashboard_connection_limit = 4000  # HTTP connections it holds open over all clients
    dashboard_request_timeout_ms = 10000  # a connection without a whole request this long is closed
    dashboard_send_timeout_ms = 30000  # an answer left unread this long is cut
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
    cluster_token = ""           # with cluster: the secret the replicas' relay connections carry
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
from pathlib import Path
from typing import Any

from engine import RulesConfigError, preset
from engine.r2210.rules import PLAYER_COUNTS, Rules2210
from server.ops.config import LOG_FORMATS, ConfigError, QueueConfig, ServerConfig, TimeControl, default_queues

_SERVER_KEYS = {f.name for f in dataclasses.fields(ServerConfig)} - {"queues"}
"""Every [server] key: each ServerConfig setting but the queues (their own table)."""
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
        dashboard_client_watch_limit=_positive(
            server, "dashboard_client_watch_limit", defaults.dashboard_client_watch_limit
        ),
        dashboard_client_connection_limit=_positive(
            server, "dashboard_client_connection_limit", defaults.dashboard_client_connection_limit
        ),
        dashboard_connection_limit=_positive(
            server, "dashboard_connection_limit", defaults.dashboard_connection_limit
        ),
        dashboard_request_timeout_ms=_positive(
            server, "dashboard_request_timeout_ms", defaults.dashboard_request_timeout_ms
        ),
        dashboard_send_timeout_ms=_positive(
            server, "dashboard_send_timeout_ms", defaults.dashboard_send_timeout_ms
        ),
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
            "by their relay connections (e.g. CONQUEST_SERVER_CLUSTER_TOKEN=$(openssl rand -hex 32))"
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
