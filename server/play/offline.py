"""Plays SDK bots in-process through the same messages the server sends: no network, no clock.

Each game runs on the engine; every decision goes to the bot exactly as the server would send it
(``wire`` builds the Observation and LegalActions) and the bot's Action comes back through
``convert.action_from_pb`` and the checked ``state.apply``, so an illegal action fails loudly. The sample
bots' win rates (``make bench-bots``) and their tests play here.

RISK 2210 A.D. games (``play_2210``, the preset name ``"2210"`` in a ``Matchup``) go the same way through
``convert_2210``: each seat the engine asks (every living seat in turn for the secret bids, the defender
or a reacting seat mid-turn) gets the ``GameStarted`` and ``DecisionRequest`` ``runner_2210`` would send
(without events or a clock), and its ``Action2210`` is applied with the checked ``engine.r2210.game.apply``.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from conquest.v1 import bot_pb2
from conquest.v1 import r2210_pb2 as pb
from conquest_bots.roster import BOTS, Matchup
from conquest_sdk import Bot, Game, Turn, Turn2210
from engine import GameState, new_game, observe, preset
from engine.r2210.game import apply, new_game_2210
from engine.r2210.legal import legal_for
from engine.r2210.observe import observe_2210
from engine.r2210.replay import Replay2210
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from server.play import convert, convert_2210, wire

R2210 = "2210"
"""The preset name of a RISK 2210 A.D. matchup (``Rules2210().name``): its games are ``play_2210``'s."""


@dataclass(frozen=True)
class GameResult:
    places: tuple[int, ...]
    """Final place of each seat, 1 = best."""
    turns: int
    """Turns played (a 2210 game: years)."""
    decisions: int
    reason: str


def play(kinds: Sequence[str | Bot], preset_name: str, seed: int, **rules_options: Any) -> GameResult:
    """One game between ``kinds`` (sample bot names of ``conquest_bots.roster.BOTS`` or bots, in seat
    order) on the engine, every action checked; ``rules_options`` change the preset.

    Raises:
        engine.ActionError: a bot chose an illegal action.
    """
    rules = preset(preset_name, **rules_options)
    seats = len(kinds)
    state, _ = new_game(rules, seats, seed)
    games = seat_games(state, [str(k) for k in kinds], f"eval-{seed}")
    bots = [BOTS[k](seed * 10 + s) if isinstance(k, str) else k for s, k in enumerate(kinds)]
    for bot, game in zip(bots, games, strict=True):
        bot.on_game_started(game)
    decisions = 0
    while not state.is_over():
        seat = state.to_act
        action = bots[seat].decide(games[seat], Turn(decision_request(state, games[seat], decisions)))
        state.apply(convert.action_from_pb(action), seat)
        decisions += 1
    return GameResult(state.places, state.turn, decisions, state.end_reason)


def seat_games(state: GameState, names: Sequence[str], game_id: str) -> list[Game]:
    """Each seat's ``Game``, from the GameStarted the server would send it for ``state``'s game."""
    seats = state.seats
    started = {
        "game_id": game_id,
        "players": [bot_pb2.Player(seat=s, name=name) for s, name in enumerate(names)],
        "rules": convert.rules_info(state.rules, seats, state.board),
        "map": convert.map_info(state.board),
    }
    return [Game(bot_pb2.GameStarted(seat=s, **started)) for s in range(seats)]  # type: ignore[arg-type]


def decision_request(state: GameState, game: Game, request_id: int) -> bot_pb2.DecisionRequest:
    """The DecisionRequest the server would send the seat to act in ``state`` (no clock, no events)."""
    return bot_pb2.DecisionRequest(
        game_id=game.game_id,
        request_id=request_id,
        observation=wire.observation(observe(state, state.to_act)),
        legal=wire.legal_actions(state.legal_actions()),
    )


def play_2210(
    kinds: Sequence[str | Bot], seed: int, rules: Rules2210 | None = None
) -> tuple[GameResult, Replay2210]:
    """One RISK 2210 A.D. game between ``kinds`` (as ``play``) under ``rules`` (default ``Rules2210()``),
    every answer checked; returns the result and the game's replay (``engine.r2210.replay.verify`` it).

    Raises:
        engine.ActionError: a bot chose an illegal action.
    """
    rules = rules or Rules2210()
    state, _ = new_game_2210(rules, len(kinds), seed)
    names = [str(k) for k in kinds]
    replay = Replay2210(rules, seed, names, game_id=f"eval-2210-{seed}")
    games = seat_games_2210(state, names, replay.game_id)
    bots = [BOTS[k](seed * 10 + s) if isinstance(k, str) else k for s, k in enumerate(kinds)]
    for bot, game in zip(bots, games, strict=True):
        bot.on_game_started(game)
    decisions = 0
    while not state.is_over():
        seat = state.asked[0]  # in the bids every living seat is asked: each in turn, none sees another's
        request = decision_request_2210(state, games[seat], seat, decisions)
        action = convert_2210.action_from_pb_2210(bots[seat].decide_2210(games[seat], Turn2210(request)))
        apply(state, action, seat)
        replay.actions.append((seat, action))
        decisions += 1
    replay.places, replay.fingerprint = list(state.places), state.fingerprint()
    return GameResult(state.places, state.year, decisions, state.end_reason), replay


def seat_games_2210(state: GameState2210, names: Sequence[str], game_id: str) -> list[Game]:
    """Each seat's ``Game``, from the 2210 GameStarted ``runner_2210`` would send it for ``state``'s game."""
    seats = state.seats
    rules = convert_2210.rules_info_2210(state.rules, seats)
    board = convert_2210.map_2210(state.board, state.rules)
    players = [bot_pb2.Player(seat=s, name=name) for s, name in enumerate(names)]
    return [
        Game(
            bot_pb2.GameStarted(
                game_id=game_id,
                seat=s,
                players=players,
                r2210=pb.Start2210(
                    rules=rules, map=board, observation=convert_2210.observation_2210(observe_2210(state, s))
                ),
            )
        )
        for s in range(seats)
    ]


def decision_request_2210(
    state: GameState2210, game: Game, seat: int, request_id: int
) -> bot_pb2.DecisionRequest:
    """The 2210 DecisionRequest the server would send ``seat`` now (no clock, no events)."""
    legal = legal_for(state, seat)
    return convert_2210.decision_request_2210(game.game_id, request_id, state, seat, legal, [], 0, 0)


def _hero_game(args: tuple[Matchup, int]) -> tuple[bool, GameResult]:
    """Game ``seed`` of a matchup with seats rotated by the seed; whether the hero won outright."""
    matchup, seed = args
    n = len(matchup.kinds)
    shift = seed % n
    kinds = matchup.kinds[shift:] + matchup.kinds[:shift]
    result = play_2210(kinds, seed)[0] if matchup.preset == R2210 else play(kinds, matchup.preset, seed)
    hero_seat = (matchup.hero - shift) % n
    won = result.places[hero_seat] == 1 and result.places.count(1) == 1
    return won, result


def measure(matchup: Matchup, games: int, first_seed: int = 1, processes: int = 2) -> tuple[int, float]:
    """Wins of the hero over ``games`` seeded games, and the mean turns per game."""
    jobs = [(matchup, seed) for seed in range(first_seed, first_seed + games)]
    with multiprocessing.Pool(processes) as pool:
        outcomes = pool.map(_hero_game, jobs, chunksize=4)
    wins = sum(won for won, _ in outcomes)
    return wins, sum(r.turns for _, r in outcomes) / games
