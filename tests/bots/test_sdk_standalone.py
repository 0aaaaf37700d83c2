"""The Python SDK on its own: installed alone in a clean virtualenv with one pip command, it plays a game.

Issue 23: "Make the SDK its own small distribution (`sample_bots/python/pyproject.toml`: grpcio, protobuf
and the generated stubs, nothing of the server), installable alone in a clean virtualenv with one pip
command, with a test that does exactly that and plays a game against a server".

It needs PyPI (or pip's cache, which it shares with the user's: a second run downloads nothing).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sample_bots" / "python"
ADDRESS = re.compile(r"practice server on (\S+);")
INSTALL_TIMEOUT_S = 300
"""A clean install fetches grpcio and protobuf wheels (a few MB); from pip's cache it takes seconds."""


def _pip_env() -> dict[str, str]:
    """The user's environment with pip's cache on (the test reuses it) and no project on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PIP_NO_CACHE_DIR", "PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def test_the_sdk_installs_alone_in_a_clean_virtualenv_and_plays_a_game(tmp_path: Path):
    """Issue 23: "installable alone in a clean virtualenv with one pip command ... and plays a game
    against a server" (the server from the project's virtualenv, the bot from the clean one)."""
    # pip builds a local directory in place (build/, *.egg-info): build a copy so the tree stays clean.
    source = tmp_path / "python"
    shutil.copytree(SDK, source, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info", "*.so"))
    clean = tmp_path / "venv"
    venv.create(clean, with_pip=True)
    python = str(clean / "bin" / "python")
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(source)],
        capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=_pip_env(), cwd=tmp_path,
    )  # fmt: skip
    assert install.returncode == 0, install.stderr
    installed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze"], capture_output=True, text=True, check=True
    ).stdout.lower()
    assert "conquest-sdk==" in installed
    for server_part in ("sqlalchemy", "structlog", "openskill", "mypy", "starlette"):
        assert server_part not in installed, f"the SDK's install pulled in {server_part}: {installed}"
    probe = "import importlib.util as u; print(u.find_spec('engine'), u.find_spec('server'))"
    alone = subprocess.run([python, "-c", probe], capture_output=True, text=True, cwd=tmp_path, check=True)
    assert alone.stdout.split() == ["None", "None"], "the clean virtualenv can import the server"

    practice_cmd = [sys.executable, "-m", "server.cli.main", "practice", "--address", "localhost:0"]
    practice_cmd += ["--queue", "classic-2", "--opponent", "random", "--games", "1", "--turn-cap", "6"]
    server = subprocess.Popen(practice_cmd, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        address = ADDRESS.search(server.stdout.readline())
        assert address, "practice printed no address"
        bot_cmd = [python, "-m", "conquest_bots.random_bot", "--address", address.group(1)]
        bot = subprocess.run(
            [*bot_cmd, "--queue", "classic-2", "--games", "1", "--name", "standalone"],
            capture_output=True, text=True, timeout=60, cwd=tmp_path, env=_pip_env(),
        )  # fmt: skip
        assert bot.returncode == 0, bot.stderr
        rest, _ = server.communicate(timeout=30)
    finally:
        server.kill()
    assert re.search(r"^game \w+: 1\. .*standalone \(\w+\).* after \d+ turns$", bot.stdout, re.M), bot.stdout
    assert "standalone" in rest
