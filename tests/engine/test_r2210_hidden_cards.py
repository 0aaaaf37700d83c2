"""What a RISK 2210 A.D. seat learns of another's Command cards: only what the rulebook makes public.

004: "The types of cards a player has, and how many of those cards, is public knowledge. The actual cards
themselves are always kept secret." Issue 34 ("Fair to every bot: nothing hidden leaks"): the card windows
(REACT, TURN_END, GAME_END) were opened only for the seats holding a card they could play, so being asked
told every seat what a hand held; they now ask every seat whose public card counts could hold one
(``cardplay.could_play``), and a seat asked that holds nothing playable passes. Scout Forces' card stays
face down, and the private events are blanked for the others rather than left out.
"""

from __future__ import annotations

import random

import pytest

from engine.r2210.actions import Commander, Declare, EndPhase, Fortify, Phase, PlayCard
from engine.r2210.events import Event2210, seen_by
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.policies import random_action
from engine.r2210.replay import Replay2210, verify
from engine.r2210.rules import Rules2210
from engine.r2210.state import GameState2210
from tests.engine.r2210_support import put
from tests.engine.test_r2210_cardplay import attack_setup, hold

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR
WINDOWS = (Phase.REACT, Phase.TURN_END, Phase.GAME_END, Phase.EXCHANGE)


def public(state: GameState2210) -> tuple[object, ...]:
    """What every seat sees of who decides: the phase, the seats asked and the seats still to be asked."""
    return state.phase, state.asked, tuple(state.reactors), tuple(state.enders)


@pytest.mark.parametrize(
    ("defender_card", "third_card"),
    [("diplomat_cease_fire", "land_stealth_mods"), ("diplomat_redeployment", "land_scout_forces")],
)
def test_an_invasion_asks_the_same_seats_whatever_cards_of_a_deck_they_hold(
    defender_card: str, third_card: str
) -> None:
    """Issue 34, item 1: "After an invasion is declared, the reaction step opens only for the seats that
    can play a reaction now ... So the attacker learns whether the defender holds Cease Fire rather than
    another Diplomat card, and a third seat holding a usable Stealth MODs is named." The same Diplomat
    and Land card counts ask the same seats, the defender first (open point 7); a seat holding no reaction
    is offered none and passes."""
    state = attack_setup()
    state.energy[1] = 2  # Cease Fire's power-up cost: energy is public
    hold(state, 1, defender_card)
    hold(state, 2, third_card)
    egypt = state.board.territory_id("Egypt")
    apply(state, Declare(state.board.territory_id("Imperial Balkania"), egypt), 0)
    assert public(state) == (Phase.REACT, (1,), (1, 2), ())
    holds_reactions = defender_card == "diplomat_cease_fire"
    assert bool(legal_actions(state, 1).plays) == holds_reactions
    assert legal_actions(state, 1).can_end
    apply(state, EndPhase(), 1)
    assert public(state) == (Phase.REACT, (2,), (2,), ())
    assert bool(legal_actions(state, 2).plays) == holds_reactions
    apply(state, EndPhase(), 2)
    assert public(state) == (Phase.ROLL, (0,), (), ())


def test_a_seat_whose_counts_hold_no_reaction_is_not_asked() -> None:
    """The public counts still spare the seats that cannot answer: only Nuclear cards (no deck of them
    reacts), or Naval cards without the Naval Commander, ask nobody."""
    state = attack_setup()
    hold(state, 1, "nuclear_assassin_bomb", "naval_stealth_mods")
    hold(state, 2, "nuclear_the_mother")
    apply(state, Declare(*(state.board.territory_id(n) for n in ("Imperial Balkania", "Egypt"))), 0)
    assert state.phase == Phase.ROLL


@pytest.mark.parametrize("card", ["diplomat_redeployment", "diplomat_evacuation"])
def test_the_end_of_turn_step_opens_for_any_diplomat_card(card: str) -> None:
    """Issue 34, item 2: "The end-of-turn step opens only when the player holds a Redeployment (every seat
    sees the phase)". It opens for a turn seat holding any Diplomat card with its Diplomat in play;
    Redeployment: "After your normal Fortify Position, make one more Fortify Position move"."""
    state = attack_setup()
    hold(state, 0, card)
    a = state.board.territory_id("Imperial Balkania")
    b = put(state, 0, "Andorra", 1)
    state.phase = Phase.FORTIFY
    apply(state, Fortify(a, b, 2), 0)
    assert public(state) == (Phase.TURN_END, (0,), (), ())
    assert bool(legal_actions(state, 0).plays) == (card == "diplomat_redeployment")
    apply(state, EndPhase(), 0)
    assert state.turn_seat == 1 and state.phase == Phase.DEPLOY


@pytest.mark.parametrize("card", ["diplomat_colony_influence", "diplomat_cease_fire"])
def test_the_game_end_step_asks_every_seat_that_could_hold_colony_influence(card: str) -> None:
    """Issue 34, item 2: "the game-end step asks only the holders of a playable Colony Influence". Colony
    Influence: "If your Diplomat Commander is in play at final scoring, add 3 to your score"; every seat
    holding a card of a deck with Colony Influence, that deck's Commander in play, is asked."""
    state = attack_setup()
    state.year = 5
    state.turn_index = state.to_act = 2
    state.phase = Phase.FORTIFY
    hold(state, 1, card)
    hold(state, 2, "nuclear_the_mother")  # no Colony Influence among the Nuclear cards: not asked
    apply(state, EndPhase(), 2)
    assert public(state) == (Phase.GAME_END, (1,), (), (1,))
    assert bool(legal_actions(state, 1).plays) == (card == "diplomat_colony_influence")
    apply(state, EndPhase(), 1)
    assert state.phase == Phase.GAME_OVER


def test_scout_forces_keeps_its_territory_card_face_down() -> None:
    """Issue 34, item 3; Scout Forces: "Draw the top Land Territory card and keep it face down; set 5 MODs
    from your recruitment pool aside on it. If you already control that territory, place the 5 MODs there
    at once". The drawn territory is told to its player alone (the others see -1); MODs placed at once
    show where they went, as when they land on a capture."""
    state = attack_setup()
    own, egypt = (state.board.territory_id(n) for n in ("Imperial Balkania", "Egypt"))
    state.land_deck = [egypt, own]
    (scouts, again) = hold(state, 0, "land_scout_forces", "land_scout_forces")
    events = apply(state, PlayCard(scouts), 0)
    drawn = next(e for e in events if e.kind == "territory_card_drawn")
    assert drawn.private and drawn.seat == 0 and drawn.data == {"territory": egypt}
    assert seen_by(drawn, 0) == drawn
    assert seen_by(drawn, 1).data == seen_by(drawn, -1).data == {"territory": -1}
    assert not any(e.kind == "scouts_landed" for e in events) and state.scouts[0] == [egypt]
    events = apply(state, PlayCard(again), 0)
    assert [(e.kind, e.data, e.private) for e in events[1:]] == [
        ("territory_card_drawn", {"territory": own}, True),
        ("scouts_landed", {"territory": own, "mods": 5}, False),
    ]


def test_other_seats_get_every_private_event_blanked() -> None:
    """Issue 34, item 9: "2210 event sequence numbers skip where another seat's private bid or cards_drawn
    event was". Every seat and spectator is sent every event; another seat's secret is -1 (a bid's energy,
    each drawn card), as a classic game's other seats' cards are."""
    bid = Event2210("bid", 2, {"energy": 3}, private=True)
    drawn = Event2210("cards_drawn", 1, {"cards": [4, 61]}, private=True)
    assert seen_by(bid, 2) == bid and seen_by(bid, 0) == bid._replace(data={"energy": -1})
    assert seen_by(drawn, -1).data == {"cards": [-1, -1]} and seen_by(drawn, 1) == drawn
    public_event = Event2210("rolled", 0, {"attacker_dice": [6]})
    assert seen_by(public_event, 1) is public_event


def test_a_record_without_the_bare_passes_still_replays() -> None:
    """Games recorded before issue 34 lack the passes of seats asked only by their card counts (a seat was
    asked only when it held a card it could play), and their files lack ``"bare_passes"``. A pass with
    nothing to play is the only answer there is, so the replay of such a file applies each where it falls,
    and the game ends as recorded; a file written now holds them."""
    rules = Rules2210(years=3)
    for seed in range(4):
        state, _ = new_game_2210(rules, 3 + seed % 3, seed)
        rng = random.Random(seed)
        replay = Replay2210(rules, seed, [f"s{i}" for i in range(state.seats)])
        assert replay.to_dict()["bare_passes"] is True
        old_file = replay.to_dict()
        del old_file["bare_passes"]
        assert Replay2210.from_dict(old_file).bare_passes is False
        bare = 0
        while not state.is_over():
            seat = state.asked[0]
            legal = legal_actions(state, seat)
            action = random_action(legal, rng)
            if state.phase in WINDOWS and not legal.plays:
                bare += 1  # left out of the record, as an old server never asked it
            else:
                replay.actions.append((seat, action))
            apply(state, action, seat)
        replay.places, replay.fingerprint = list(state.places), state.fingerprint()
        replay.bare_passes = False
        assert bare > 0
        assert verify(replay).fingerprint() == state.fingerprint()
