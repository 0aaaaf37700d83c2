"""Conquest's rules engine: pure, deterministic, no I/O.

A game is (rules, board, seed, dice version, seats, actions): re-applying the actions reproduces every
state. ``engine.dice`` derives every roll and shuffle from the seed (docs/protocol.md, "Randomness").

    >>> from engine import new_game, preset, aggressive_policy, play_game
    >>> state, _ = new_game(preset("classic"), seats=4, seed=7)
    >>> _ = play_game(state, [aggressive_policy] * 4)
    >>> state.is_over()
    True
"""

from engine.actions import (
    Action,
    Attack,
    ChooseDefence,
    ChooseHeadquarters,
    Claim,
    EndPhase,
    Fortify,
    Occupy,
    Phase,
    Place,
    PlayerStatus,
    TradeCards,
)
from engine.board import Board, CardDesign, Territory
from engine.classic_map import CLASSIC
from engine.errors import (
    ActionError,
    IllegalActionError,
    MalformedActionError,
    NotYourTurnError,
    RulesConfigError,
)
from engine.game import new_game
from engine.goals import MISSIONS, Mission
from engine.legal import AttackOption, FortifyOption, LegalActions, default_action
from engine.observe import Observation, observe
from engine.policies import Policy, aggressive_policy, play_game, random_legal_action, random_policy
from engine.rules import (
    PRESETS,
    CapitalGoal,
    DefenderDice,
    FortifyMode,
    Objective,
    Rules,
    SetupMode,
    TerritoryBonus,
    preset,
)
from engine.state import GameState, Termination

__all__ = [
    "CLASSIC",
    "MISSIONS",
    "PRESETS",
    "Action",
    "ActionError",
    "Attack",
    "AttackOption",
    "Board",
    "CapitalGoal",
    "CardDesign",
    "ChooseDefence",
    "ChooseHeadquarters",
    "Claim",
    "DefenderDice",
    "EndPhase",
    "Fortify",
    "FortifyMode",
    "FortifyOption",
    "GameState",
    "IllegalActionError",
    "LegalActions",
    "MalformedActionError",
    "Mission",
    "NotYourTurnError",
    "Objective",
    "Observation",
    "Occupy",
    "Phase",
    "Place",
    "PlayerStatus",
    "Policy",
    "Rules",
    "RulesConfigError",
    "SetupMode",
    "Termination",
    "Territory",
    "TerritoryBonus",
    "TradeCards",
    "aggressive_policy",
    "default_action",
    "new_game",
    "observe",
    "play_game",
    "preset",
    "random_legal_action",
    "random_policy",
]
