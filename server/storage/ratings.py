"""OpenSkill Plackett-Luce ratings from a game's full ranking: every seat a one-player team, ties allowed."""

from __future__ import annotations

from typing import NamedTuple

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""OpenSkill's defaults: a new bot starts at μ = 25, σ = 25/3."""
LEADERBOARD_SIGMAS = 3.0
"""Leaderboards order by μ − 3σ: a bot ranks high only once the rating is both good and certain."""


class Skill(NamedTuple):
    mu: float
    sigma: float

    @property
    def conservative(self) -> float:
        """μ − 3σ, the leaderboard score."""
        return self.mu - LEADERBOARD_SIGMAS * self.sigma


INITIAL = Skill(MODEL.mu, MODEL.sigma)


def rate(skills: list[Skill], places: list[int]) -> list[Skill]:
    """New skills after one game; ``places[i]`` is seat i's final place (1 = best, equal places tie)."""
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
