"""deploy/conquest.toml, the config file the container images run with."""

from __future__ import annotations

from pathlib import Path

from server.ops.config_file import load_config

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def test_the_image_config_parses_and_suits_a_container():
    """Issue 6: "one TOML file with every option documented"; the images log JSON and keep replays on a
    volume."""
    config = load_config(DEPLOY / "conquest.toml")
    assert config.log_format == "json"
    assert config.replay_dir == Path("/var/lib/conquest/replays")
    assert config.address == "[::]:50051" and config.metrics_port == 9100
    assert config.dashboard_port == 8080  # docs/dashboard.md: the dashboard's default port
    assert {q.name for q in config.queues} >= {"classic-3", "classic-4", "classic-2"}
