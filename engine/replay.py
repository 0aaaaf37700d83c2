"""Replays: a game is (rules, board, seed, dice version, seats, actions); re-simulating one reproduces every
state.

The recorded result (places and the final state's fingerprint) lets ``verify`` prove a replay honest.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from engine.actions import Action
from engine.board import Board
from engine.classic_map import CLASSIC
from engine.codec import decode_action, encode_action
from engine.dice import DICE_VERSION, DICE_VERSIONS
from engine.errors import ActionError
from engine.events import Event
from engine.game import new_game
from engine.rules import Rules
from engine.state import GameState

BOARDS: dict[str, Board] = {CLASSIC.name: CLASSIC}
FORMAT_VERSION = 1


class ReplayError(ValueError):
    """A replay that cannot be read, or whose re-simulation does not match what it records."""


@dataclass(slots=True)
class Replay:
    rules: Rules
    seed: int
    seats: list[str]
    """A name per seat, in seat order."""
    actions: list[Action] = field(default_factory=list)
    board: str = CLASSIC.name
    game_id: str = ""
    places: list[int] = field(default_factory=list)
    """Recorded final places (1 = best), empty while the game runs."""
    fingerprint: str = ""
    """Recorded ``GameState.fingerprint()`` of the final state."""
    annotations: dict[int, str] = field(default_factory=dict)
    """Bot-written notes by action index (shown by replay viewers)."""
    dice_version: int = DICE_VERSION
    """How the game's randomness derives from ``seed`` (``engine.dice``); a file without the field
    predates version 2 and is version 1."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "game_id": self.game_id,
            "board": self.board,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "dice_version": self.dice_version,
            "seats": list(self.seats),
            "actions": [encode_action(a) for a in self.actions],
            "places": list(self.places),
            "fingerprint": self.fingerprint,
            "annotations": {str(k): v for k, v in self.annotations.items()},
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Replay:
        """Raises: ReplayError, naming the field that is missing or wrong."""
        try:
            if data.get("format") != FORMAT_VERSION:
                raise ReplayError(f"replay format {data.get('format')!r} is not {FORMAT_VERSION}")
            dice_version = data.get("dice_version", 1)
            if dice_version not in DICE_VERSIONS:
                versions = ", ".join(str(v) for v in DICE_VERSIONS)
                raise ReplayError(f"replay dice_version {dice_version!r} is not one of {versions}")
            if data["board"] not in BOARDS:
                raise ReplayError(f"unknown board {data['board']!r}; boards: {', '.join(BOARDS)}")
            return Replay(
                rules=Rules.from_dict(data["rules"]),
                seed=int(data["seed"]),
                seats=[str(s) for s in data["seats"]],
                actions=[decode_action(a) for a in data["actions"]],
                board=data["board"],
                game_id=str(data.get("game_id", "")),
                places=[int(p) for p in data.get("places", [])],
                fingerprint=str(data.get("fingerprint", "")),
                annotations={int(k): str(v) for k, v in data.get("annotations", {}).items()},
                dice_version=dice_version,
            )
        except KeyError as missing:
            raise ReplayError(f"replay is missing the field {missing}") from None
        except (TypeError, ValueError) as bad:
            if isinstance(bad, ReplayError):
                raise
            raise ReplayError(f"replay has a malformed field: {bad}") from None

    @staticmethod
    def from_json(text: str) -> Replay:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as bad:
            raise ReplayError(f"replay is not valid JSON: {bad}") from None
        if not isinstance(data, dict):
            raise ReplayError("a replay is a JSON object")
        return Replay.from_dict(data)

    def start(self) -> tuple[GameState, list[Event]]:
        """Raises: RulesConfigError (seats, seed or dice version the rules do not take)."""
        return new_game(self.rules, len(self.seats), self.seed, BOARDS[self.board], self.dice_version)


def simulate(replay: Replay) -> tuple[GameState, list[Event]]:
    """Re-apply every action (checked) and return the final state and all events.

    Raises:
        ReplayError: an action is illegal where the replay puts it.
    """
    state, events = replay.start()
    for i, action in enumerate(replay.actions):
        try:
            events.extend(state.apply(action))
        except ActionError as bad:
            raise ReplayError(f"action {i} {encode_action(action)} is illegal: {bad}") from None
    return state, events


def verify(replay: Replay) -> GameState:
    """Re-simulate and check the recorded places and final fingerprint.

    Raises:
        ReplayError: an illegal action, or a result that differs from the recording.
    """
    state, _ = simulate(replay)
    check_recorded(list(state.places), state.fingerprint(), replay.places, replay.fingerprint)
    return state


def check_recorded(places: list[int], fingerprint: str, recorded_places: list[int], recorded: str) -> None:
    """A re-simulated game's ``places`` and final ``fingerprint`` against the recorded ones (either kind of
    game; an empty recording is not checked).

    Raises:
        ReplayError: they differ.
    """
    if recorded_places and places != recorded_places:
        raise ReplayError(f"re-simulated places {places} differ from recorded {recorded_places}")
    if recorded and fingerprint != recorded:
        raise ReplayError("re-simulated final state differs from the recorded fingerprint")
