"""Paths and loaders for the files under deploy/, shared by the deploy tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from server.ops.config import ServerConfig
from server.ops.config_file import load_config

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def image_config() -> ServerConfig:
    """deploy/conquest.toml, the config the images and the ConfigMap carry."""
    return load_config(DEPLOY / "conquest.toml")


def yaml_file(relative: str) -> Any:
    return yaml.safe_load((DEPLOY / relative).read_text())


def manifests() -> dict[str, dict[str, Any]]:
    """Every Kubernetes object under deploy/k8s, by kind."""
    objects = {}
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            assert document["kind"] not in objects, f"two {document['kind']} objects"
            objects[document["kind"]] = document
    return objects


def port_of(address: str) -> int:
    """The port of a ``host:port`` address (``[::]:50051`` included)."""
    return int(address.rsplit(":", 1)[1])
