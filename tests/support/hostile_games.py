"""Games that bots could play to hurt the web side (issue 21): two colluding bots piling their armies for
one pile-against-pile attack, and strings that try to break out of a page."""

from __future__ import annotations

from engine import Attack, preset
from engine.actions import ChooseDefence, EndPhase, Occupy, Phase, Place, TradeCards
from engine.policies import aggressive_policy
from engine.replay import Replay

HOSTILE = (
    "</script><script>window.__pwned = 1</script>",
    "<!--<script>",
    '<img src=x onerror="window.__pwned = 2">',
    "\"'`${window.__pwned = 3}`&amp;\u2028",
)
"""Annotations (and, in a replay file, seat names) that must show as text and run nothing."""


def piled_duel(turns: int = 200, notes: tuple[str, ...] = ()) -> Replay:
    """Issue 21: "a 200-turn duel, armies stacked on two territories, one pile-against-pile attack": each
    seat places every army on one territory bordering the other's, nobody attacks until the last turn's
    seat 0 rolls its pile against seat 1's until one is gone. Action k carries ``notes[k % len(notes)]``."""
    rules = preset("classic_two_player", turn_cap=turns)
    replay = Replay(rules, 7, ["pile-a", "pile-b"], game_id="piled")
    state, _ = replay.start()
    piles: list[int] = []
    attacked = False
    while not state.is_over():
        legal = state.legal_actions()
        if state.phase in (Phase.SETUP_CLAIM, Phase.SETUP_PLACE):
            action = aggressive_policy(state)
        else:
            if not piles:
                piles = _facing(state)
            seat = state.to_act
            if legal.must_trade or (legal.trades and state.phase == Phase.REINFORCE):
                action = TradeCards(legal.trades[0])
            elif legal.place_territories and piles[seat] in legal.place_territories:
                action = Place(piles[seat], legal.place_max)
            elif legal.defend_max:
                action = ChooseDefence(legal.defend_max)
            elif legal.occupy_max:
                action = Occupy(legal.occupy_min)
            elif state.phase == Phase.ATTACK and state.turn >= turns - 1 and seat == 0 and not attacked:
                action = Attack(piles[0], piles[1], 3, 1)
                attacked = True
            elif legal.can_end:
                action = EndPhase()
            else:
                action = aggressive_policy(state)
        if notes:
            replay.annotations[len(replay.actions)] = notes[len(replay.actions) % len(notes)]
        replay.actions.append(action)
        state.apply(action)
    return replay


def _facing(state) -> list[int]:  # type: ignore[no-untyped-def]
    """Two bordering territories, seat 0's and seat 1's."""
    board = state.board
    for a, owner in enumerate(state.owner):
        if owner == 0:
            for b in board.neighbours[a]:
                if state.owner[b] == 1:
                    return [a, b]
    raise AssertionError("no border between the two seats")
