"""Run a trained ``policy(observation, mask) -> action index`` as a bot, on the server's own messages.

The arrays are built by ``conquest_sdk.encoding`` from the GameStarted and each DecisionRequest, exactly as
``server.train`` builds them from the engine, so a policy trained there plays here unchanged:

    from conquest_sdk import run
    from conquest_sdk.policy import PolicyBot

    run(PolicyBot(my_policy, name="my-policy"))

Needs numpy: the SDK's ``train`` extra (``pip install 'sample_bots/python[train]'``), or the server's
(``conquest-server[train]``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from conquest.v1 import bot_pb2, game_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_sdk import actions
from conquest_sdk.client import Bot
from conquest_sdk.encoding import Choices, Decoded, Layout, View, view
from conquest_sdk.encoding_2210 import Layout2210
from conquest_sdk.game import Game, Turn
from conquest_sdk.r2210 import Turn2210

Policy = Callable[[npt.NDArray[np.float32], npt.NDArray[np.int8]], int]
"""A trained policy: the observation vector and the action mask in, one masked-in action index out."""


def layout_of(started: bot_pb2.GameStarted) -> Layout:
    """The encoding of the game ``started`` announces (the same as the environment's for those rules)."""
    return Layout(
        [list(t.neighbours) for t in started.map.territories],
        len(started.map.territories) + started.map.wild_cards,
        len(started.players),
        len(started.rules.missions),
        started.rules.fortify == "connected",
    )


def layout_of_2210(started: bot_pb2.GameStarted) -> Layout2210:
    """The encoding of the RISK 2210 A.D. game ``started`` announces (``server.train``'s for those rules)."""
    return Layout2210(started.r2210.rules, started.r2210.map, len(started.players))


def encode_2210(
    layout: Layout2210, request: bot_pb2.DecisionRequest
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
    """The observation vector and the action mask of the 2210 ``request``."""
    return layout.observation(request.r2210.observation), layout.mask(request.r2210.legal)


def view_of(seat: int, obs: game_pb2.Observation) -> View:
    pending = (obs.pending_source, obs.pending_target, obs.pending_count)
    return view(seat, obs, obs.phase, obs.statuses, pending)


def choices_of(legal: game_pb2.LegalActions, seats: int) -> Choices:
    return Choices(
        legal.claim,
        legal.headquarters,
        legal.place_territories,
        legal.place_min,
        legal.place_max,
        [tuple(s.cards) for s in legal.trades],
        list(
            zip(
                legal.attack_sources,
                legal.attack_targets,
                legal.attack_max_dice,
                legal.attack_source_armies,
                strict=True,
            )
        ),
        legal.defend_max,
        legal.occupy_min,
        legal.occupy_max,
        list(zip(legal.fortify_sources, legal.fortify_targets, legal.fortify_max_armies, strict=True)),
        legal.can_end,
        legal.army >= seats,
    )


def encode(
    layout: Layout, seat: int, request: bot_pb2.DecisionRequest
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], Choices]:
    """The observation vector, the action mask and the choices of ``request`` for ``seat``."""
    choices = choices_of(request.legal, layout.seats)
    observation = layout.observation(view_of(seat, request.observation), choices.third_army)
    return observation, layout.mask(choices), choices


_ACTIONS: dict[str, Callable[..., game_pb2.Action]] = {
    "claim": actions.claim,
    "choose_headquarters": actions.choose_headquarters,
    "place": actions.place,
    "trade_cards": lambda cards, bonus: actions.trade(cards, None if bonus < 0 else bonus),
    "attack": actions.attack,
    "choose_defence": actions.defend,
    "occupy": actions.occupy,
    "fortify": actions.fortify,
    "end_phase": actions.end_phase,
}


def to_action(decoded: Decoded) -> game_pb2.Action:
    """The wire Action of a decoded index."""
    kind, fields = decoded
    return _ACTIONS[kind](*fields)


class PolicyBot(Bot):
    """A bot that asks ``policy`` for every decision, classic or RISK 2210 A.D. (2210 games on
    ``conquest_sdk.encoding_2210``: the 2210 environment's arrays). An index outside the mask is logged by
    the client and answered with the safe default (``Legal.default``), like any other failing ``decide``."""

    def __init__(self, policy: Policy, name: str = "policy-bot") -> None:
        self.policy = policy
        self.name = name

    def on_game_started(self, game: Game) -> None:
        if game.r2210 is not None:
            game.notes["layout"] = layout_of_2210(game.started)
        else:
            game.notes["layout"] = layout_of(game.started)

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        """Raises:
        ValueError: the policy chose an index the mask leaves out (the message names the decision)."""
        layout: Layout = game.notes["layout"]
        observation, mask, choices = encode(layout, game.seat, turn.request)
        index = int(self.policy(observation, mask))
        if not 0 <= index < layout.actions or not mask[index]:
            allowed: Any = np.flatnonzero(mask)[:16].tolist()
            raise ValueError(
                f"{layout.describe(index)} is not legal at request {turn.request.request_id} "
                f"(phase {game_pb2.Phase.Name(turn.phase)}); masked-in actions start {allowed}"
            )
        return to_action(layout.decode(index, choices))

    def decide_2210(self, game: Game, turn: Turn2210) -> pb.Action2210:
        """Raises:
        ValueError: the policy chose an index the mask leaves out (the message names the decision)."""
        layout: Layout2210 = game.notes["layout"]
        observation, mask = encode_2210(layout, turn.request)
        index = int(self.policy(observation, mask))
        if not 0 <= index < layout.actions or not mask[index]:
            allowed: Any = np.flatnonzero(mask)[:16].tolist()
            raise ValueError(
                f"{layout.describe(index)} is not legal at request {turn.request.request_id} "
                f"(phase {pb.Phase2210.Name(turn.phase)}); masked-in actions start {allowed}"
            )
        return layout.decode(index, turn.legal)
