"""OpenSkill Plackett-Luce ratings from a game's full ranking: every seat a one-player team, ties allowed."""

from __future__ import annotations

from openskill.models import PlackettLuce

from server.records import INITIAL, Skill

MODEL = PlackettLuce(mu=INITIAL.mu, sigma=INITIAL.sigma)


def rate(skills: list[Skill], places: list[int]) -> list[Skill]:
    """New skills after one game; ``places[i]`` is seat i's final place (1 = best, equal places tie)."""
    teams = [[MODEL.rating(mu=s.mu, sigma=s.sigma)] for s in skills]
    rated = MODEL.rate(teams, ranks=[float(p) for p in places])
    return [Skill(team[0].mu, team[0].sigma) for team in rated]
