"""The sample bots play whole games in-process through the server's own message shapes.

``server.play.offline.play`` builds every DecisionRequest with ``server.play.wire`` and applies every
answer with the engine's checked ``state.apply``: an illegal action raises, so a game that finishes is
a game without a rejected action.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conquest.v1 import game_pb2
from conquest_bots.aggressive import AggressiveBot
from conquest_bots.random_bot import RandomBot
from conquest_bots.roster import BOTS, MATCHUPS
from conquest_bots.strategist import StrategistBot
from conquest_sdk import Bot, Game, Turn
from conquest_sdk.odds import capture_odds
from engine.odds import battle_odds
from server.play.offline import measure, play

KINDS = sorted(BOTS)
ALL_PHASES = {
    game_pb2.PHASE_SETUP_CLAIM,
    game_pb2.PHASE_SETUP_PLACE,
    game_pb2.PHASE_REINFORCE,
    game_pb2.PHASE_ATTACK,
    game_pb2.PHASE_DEFEND,
    game_pb2.PHASE_OCCUPY,
    game_pb2.PHASE_FORTIFY,
}


class Recorder(Bot):
    """Wraps a bot and records what it was asked: phases, neutral placements, forced trades."""

    def __init__(self, inner: Bot) -> None:
        self.inner = inner
        self.phases: set[int] = set()
        self.neutral_places = 0
        self.forced_trades = 0

    def decide(self, game: Game, turn: Turn) -> game_pb2.Action:
        self.phases.add(turn.phase)
        legal = turn.legal
        if legal.place_territories and turn.owners[legal.place_territories[0]] == game.neutral:
            self.neutral_places += 1
        if legal.must_trade:
            self.forced_trades += 1
        return self.inner.decide(game, turn)

    def __str__(self) -> str:
        return self.inner.name


def make(kind: str, seat: int) -> Recorder:
    return Recorder(BOTS[kind](seat))


@pytest.mark.parametrize("kind", KINDS)
def test_each_bot_finishes_classic_four_player_games_with_defence_choices(kind: str) -> None:
    """Issue 3: "Each handles every phase in the protocol (claim, setup place incl. neutral placement,
    reinforce/trade incl. must_trade and the bonus territory, attack, defend, occupy, fortify)"."""
    seen: set[int] = set()
    forced = 0
    for seed in (1, 2, 3):
        bots = [make(kind, seat) for seat in range(4)]
        result = play(bots, "classic", seed, defender_dice="choose", turn_cap=150)
        assert sorted(result.places)[0] == 1
        for bot in bots:
            seen |= bot.phases
            forced += bot.forced_trades
    assert seen == ALL_PHASES
    assert forced > 0, "no game reached a forced trade"


@pytest.mark.parametrize("kind", KINDS)
def test_each_bot_finishes_two_player_neutral_games(kind: str) -> None:
    """Issue 3: the two-player neutral game, neutral placement included, without a rejected action."""
    for seed in (1, 2):
        bots = [make(kind, 0), make("strategist", 1)]
        result = play(bots, "classic_two_player", seed)
        assert sorted(result.places) == [1, 2]
        assert bots[0].neutral_places > 0
        assert game_pb2.PHASE_SETUP_PLACE in bots[0].phases


@pytest.mark.parametrize("kind", KINDS)
def test_each_bot_handles_connected_fortify_and_per_set_bonus(kind: str) -> None:
    """Rule variants change the legal actions, not the protocol: the bots play them unchanged."""
    bots = [make(kind, seat) for seat in range(3)]
    result = play(bots, "classic_dealt", 5, fortify="connected", territory_bonus_mode="per_set", turn_cap=120)
    assert 1 in result.places


def test_strategist_beats_random_in_the_two_player_game() -> None:
    """Issue 3: "the strategist must beat random in at least 90% of two-player neutral games".

    40 seeded games, seats alternating; at a true rate of 90% the chance of 34 or fewer wins is
    about 10%, so requiring >= 85% here (the full figure is in docs/benchmarks.md) fails only when
    the strategist is clearly worse than the bar."""
    wins, _ = measure(MATCHUPS[0], games=40, processes=1)
    assert wins >= 34, f"strategist won {wins} of 40 games against random"


def test_strategist_beats_aggressive_in_four_player_games() -> None:
    """Issue 3: the strategist must "beat aggressive more often than its fair share in 4-player games":
    one strategist against three aggressive bots must win more than a quarter of 24 games."""
    matchup = MATCHUPS[2]
    assert matchup.kinds == ("strategist", "aggressive", "aggressive", "aggressive")
    wins, _ = measure(matchup, games=24, processes=1)
    assert wins > 24 / 4, f"strategist won {wins} of 24 games against three aggressive bots"


def test_capture_odds_match_the_engines_exact_odds() -> None:
    """The strategist's odds table (``conquest_sdk.odds``: a bot cannot import the engine) agrees with
    engine.odds."""
    for attackers in range(1, 12):
        for defenders in range(1, 12):
            exact = battle_odds(attackers + 1, defenders).capture
            assert capture_odds(attackers, defenders) == pytest.approx(float(exact), abs=1e-9)


def test_bots_are_independent_of_engine_and_server() -> None:
    """Bot authors copy the SDK and the bots: they need neither the engine nor the server."""
    root = Path(__file__).parents[2] / "sample_bots" / "python"
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = (
                    [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                )
                for name in names:
                    assert name.split(".")[0] not in ("engine", "server"), f"{path} imports {name}"


def test_random_and_aggressive_bots_are_what_they_say() -> None:
    """Sanity: aggressive beats random players almost always; random plays legal but aimless games."""
    assert isinstance(BOTS["random"](1), RandomBot)
    assert isinstance(BOTS["aggressive"](1), AggressiveBot)
    assert isinstance(BOTS["strategist"](1), StrategistBot)
    wins, _ = measure(MATCHUPS[3], games=8, processes=1)
    assert wins >= 6


def test_readme_bot_plays_whole_games() -> None:
    """Issue 3: the README's "working Python bot in about 20 lines" really plays (and stays short)."""
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    code = readme.split("## Write a bot", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 25
    namespace: dict[str, object] = {"__name__": "readme_bot"}
    exec(compile(code, "README.md", "exec"), namespace)
    bot_class = namespace["Greedy"]
    assert isinstance(bot_class, type) and issubclass(bot_class, Bot)
    for preset_name, seats in (("classic", 4), ("classic_two_player", 2)):
        bots: list[str | Bot] = [bot_class() for _ in range(seats - 1)]
        result = play([*bots, "random"], preset_name, 3, turn_cap=100)
        assert 1 in result.places
