"""Issue 32: "the reference data the tests check the engine against lives in the repository with its sources
named; the generator lives with the tooling and reads only in-repo files; no file refers to [the folder
beside the checkout], and a test fails if one does"."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = ("../" + "shared", "shared/" + "rules", "shared/" + "design")
"""A folder beside the checkout that a user's clone does not have (spelt in two parts so this file passes)."""
NOT_OURS = {
    ".git",
    ".venv",
    "build",
    "node_modules",
    "target",
    "gen",
    "dist",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".hypothesis",
}
"""Folders of installed, built or cached files, not the project's own."""


def project_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        if path.is_file() and not NOT_OURS.intersection(path.relative_to(ROOT).parts):
            files.append(path)
    return files


def test_no_file_refers_to_a_folder_outside_the_repository() -> None:
    offenders = []
    for path in project_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # binary: no path to follow
        for number, line in enumerate(text.splitlines(), 1):
            if any(outside in line for outside in OUTSIDE):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not offenders, (
        "refers outside the repository (copy the fact into tests/reference/):\n" + "\n".join(offenders)
    )


def test_every_reference_file_is_listed_with_its_sources() -> None:
    reference = ROOT / "tests" / "reference"
    readme = (reference / "README.md").read_text()
    data = sorted(
        p.name for p in reference.iterdir() if p.suffix in (".json", ".md") and p.name != "README.md"
    )
    assert data == ["2210_NOTES.md", "2210_board.json", "2210_command_cards.json", "classic_map.json"]
    for name in data:
        assert f"`{name}`" in readme, f"tests/reference/README.md does not list {name}"
    for name in ("2210_board.json", "2210_command_cards.json"):
        assert json.loads((reference / name).read_text())["sources"], f"{name} names no sources"
    assert json.loads((reference / "classic_map.json").read_text())["source"]


def test_every_install_line_in_the_docs_installs_from_the_clone() -> None:
    """Issue 32: "`pip install 'conquest[train]'` (README, `docs/training.md`) resolves outside `.venv` to
    an unrelated project on the public index"; "every install line in the docs works as written". Nothing
    of the project is published on the index, so a `pip install` in the docs names a folder of the clone
    (run from the repository's root), with its extras."""
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    docs += sorted((ROOT / "sample_bots").glob("*/README.md"))
    lines = []
    for doc in docs:
        text = doc.read_text().replace("`\n", "` ").replace("\n", " ")
        for command in re.findall(r"pip install ([^`#;)]*)", text):
            targets = [word.strip("'\"") for word in command.split() if not word.startswith("-")]
            for target in targets[:1]:  # what follows the first argument is prose
                folder = ROOT / re.sub(r"\[[a-z,]+\]$", "", target)
                lines.append(target)
                assert (folder / "pyproject.toml").is_file(), f"{doc.relative_to(ROOT)}: pip install {target}"
    assert "'sample_bots/python[train]'".strip("'") in lines and ".[train]" in lines
    with (ROOT / "pyproject.toml").open("rb") as file:
        assert tomllib.load(file)["project"]["name"] == "conquest-server"  # "conquest" is someone else's
