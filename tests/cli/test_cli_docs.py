"""The command reference cannot drift from the parser: docs/cli.md and server/cli/main.py's module docstring
list every subcommand ``build_parser`` registers (serve, health, practice, match, demo, replay
show|verify|render|download, bot, leaderboard, games, challenge, tournament ...), each with every option
and choice it takes, and nothing the parser does not have."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

import server.cli.main
from server.cli.main import build_parser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def commands(parser: argparse.ArgumentParser, path: str = "conquest") -> dict[str, argparse.ArgumentParser]:
    """Every runnable command (a parser without subcommands) by its full name, e.g. "conquest bot list"."""
    found: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found |= commands(sub, f"{path} {name}")
    return found or {path: parser}


def synopsis(text: str) -> dict[str, str]:
    """The synopsis block of ``text`` (its first run of lines starting with "conquest", up to a blank line):
    each entry's arguments, continuation lines (indented deeper) included, by command name (the words
    before the first argument)."""
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.lstrip().startswith("conquest "))
    indent = len(lines[first]) - len(lines[first].lstrip())
    entries: dict[str, str] = {}
    name = ""
    for line in lines[first:]:
        if not line.strip():
            break
        if len(line) - len(line.lstrip()) > indent:
            entries[name] += " " + line.strip()
            continue
        match = re.fullmatch(r"(conquest(?: [a-z][a-z-]*)*)(.*)", line.strip())
        assert match, f"not a synopsis line: {line!r}"
        name = match.group(1)
        assert name not in entries, f"{name} twice in the synopsis"
        entries[name] = match.group(2)
    return entries


SOURCES = {
    "docs/cli.md": synopsis(DOCS.read_text()),
    "server/cli/main.py docstring": synopsis(server.cli.main.__doc__ or ""),
}


@pytest.mark.parametrize("source", SOURCES)
def test_every_registered_subcommand_is_documented_with_its_options(source: str) -> None:
    """The brief: "docs/cli.md list every subcommand ... make the docs match exactly"."""
    documented = SOURCES[source]
    registered = commands(build_parser())
    assert set(documented) == set(registered), f"{source} and build_parser differ"
    for name, parser in registered.items():
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for flag in action.option_strings:
                assert re.search(rf"(?<![\w-]){flag}(?![\w-])", documented[name]), (
                    f"{name}: {flag} in {source}"
                )
            for choice in action.choices or ():
                assert str(choice) in documented[name], f"{name}: {action.dest} choice {choice} in {source}"


def test_the_command_list_is_complete() -> None:
    """The helper itself finds the nested commands (a broken walk would make the test above vacuous)."""
    names = set(commands(build_parser()))
    assert {
        "conquest serve",
        "conquest replay download",
        "conquest bot rotate",
        "conquest tournament create",
    } <= names
    assert "conquest replay" not in names and len(names) == 20
