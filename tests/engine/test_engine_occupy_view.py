"""docs/protocol.md: "During `PHASE_OCCUPY` the captured territory already shows its new owner and **0
armies** in the observation" (issue 23: "A captured territory shows 0 armies during `PHASE_OCCUPY`:
undocumented")."""

from __future__ import annotations

from engine import Phase, new_game, observe, preset
from engine.policies import aggressive_policy


def test_a_captured_territory_shows_its_new_owner_and_no_armies_until_the_occupy() -> None:
    checked = 0
    for seed in range(1, 6):
        state, _ = new_game(preset("classic"), 4, seed=seed)
        while not state.is_over() and checked < 50:
            seat = state.to_act
            view = observe(state, seat)
            if view.phase == Phase.OCCUPY:
                source, target, _ = view.pending_occupy
                assert view.owners[target] == view.owners[source] == seat
                assert view.armies[target] == 0
                checked += 1
            state.apply(aggressive_policy(state))
    assert checked == 50
