"""``conquest serve`` (run the game server) and ``conquest health`` (ask a server's health service)."""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
from pathlib import Path
from typing import Any

from server.ops import runtime
from server.ops.config import LOG_FORMATS, ConfigError
from server.ops.config_file import check_cluster, load_config


def cmd_serve(args: argparse.Namespace) -> int:
    from server.app import open_store, serve
    from server.ops.logs import configure_logging

    try:  # precedence: defaults < config file < CONQUEST_* environment variables < flags
        config = load_config(args.config, os.environ)
    except ConfigError as bad:
        print(f"conquest serve: {bad}", file=sys.stderr)
        return 2
    overrides: dict[str, Any] = {}
    if args.address:
        overrides["address"] = args.address
    if args.replay_dir:
        overrides["replay_dir"] = args.replay_dir
    if args.log_format:
        overrides["log_format"] = args.log_format
    if args.no_practice:
        overrides["practice"] = False
    if args.processes is not None:
        overrides["processes"] = args.processes
    config = dataclasses.replace(config, **overrides)
    try:
        check_cluster(config)
    except ConfigError as bad:
        print(f"conquest serve: {bad}", file=sys.stderr)
        return 2
    configure_logging(config.log_format)
    if config.processes > 1:
        from server.cli.processes import supervise

        return supervise(config, serve_flags(args))
    try:
        store = open_store(config)
    except ConfigError as bad:
        print(f"conquest serve: {bad}", file=sys.stderr)
        return 2
    try:
        runtime.run(serve(config, store))
    finally:
        if store is not None:
            store.close()
    return 0


def serve_flags(args: argparse.Namespace) -> list[str]:
    """The flags of this ``conquest serve``, for its children (``--processes``)."""
    flags = []
    if args.config:
        flags += ["--config", str(args.config)]
    if args.address:
        flags += ["--address", args.address]
    if args.log_format:
        flags += ["--log-format", args.log_format]
    if args.no_practice:
        flags.append("--no-practice")
    return flags


def cmd_health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(args.address) as channel:
        stub: Any = health_pb2_grpc.HealthStub(channel)  # its type stub lists no methods
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=args.timeout)
        except grpc.RpcError as bad:
            why = f"{bad.code().name}: {bad.details()}" if isinstance(bad, grpc.Call) else str(bad)
            print(f"conquest health: {args.address}: {why}", file=sys.stderr)
            return 1
    print(health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status))
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``serve`` and ``health`` on the ``conquest`` parser."""
    serve = commands.add_parser("serve", help="run the game server")
    serve.add_argument(
        "--config",
        type=Path,
        help="TOML config file (keys and CONQUEST_* environment overrides: docs/configuration.md)",
    )
    serve.add_argument("--address", help="host:port to listen on (default [::]:50051)")
    serve.add_argument("--replay-dir", type=Path, help="directory for replay files (default ./replays)")
    serve.add_argument("--log-format", choices=LOG_FORMATS, help="log output (default console)")
    serve.add_argument("--no-practice", action="store_true", help="refuse bots without a token")
    serve.add_argument(
        "--processes",
        type=int,
        help="replicas to run here on one port (server.processes; more than 1 needs PostgreSQL)",
    )
    serve.set_defaults(run=cmd_serve)

    health = commands.add_parser(
        "health", help="ask a server's gRPC health service; exit 0 only if it is SERVING"
    )
    health.add_argument("--address", default="localhost:50051", help="host:port (default localhost:50051)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds to wait (default 3)")
    health.set_defaults(run=cmd_health)
