"""Playing RISK 2210 A.D. Command cards: the timing windows and power-up costs (issue 19, "Command cards":
"power-up costs, every timing window (your turn before the first invasion, during invasions, on other
players' turns in answer to their invasions, end of your turn, end of the game)"; "reactions asked of a
seat that is not the one to move ... a timeout gets a safe legal default"). Who is asked follows the public
card counts (issue 34: ``test_r2210_hidden_cards.py``). The cards' effects are
``test_r2210_card_effects.py``."""

from __future__ import annotations

import pytest

from engine.errors import IllegalActionError
from engine.r2210.actions import Commander, Declare, EndPhase, Fortify, Phase, PlayCard
from engine.r2210.cards import KIND_OF, KINDS
from engine.r2210.game import apply, legal_actions
from engine.r2210.policies import default_action
from engine.r2210.state import GameState2210
from tests.engine.r2210_support import midturn, put

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR


def card(key: str, copy: int = 0) -> int:
    """The id of copy ``copy`` of card kind ``key`` (e.g. "land_assemble_mods")."""
    return [c for c, k in enumerate(KIND_OF) if KINDS[k][0] == key][copy]


def hold(state: GameState2210, seat: int, *keys: str) -> list[int]:
    """Deal ``seat`` a copy of each card kind ``keys`` (taken out of its deck); returns their ids."""
    ids = []
    for k in keys:
        held = {c for hand in state.hands for c in hand}
        c = next(c for c in range(len(KIND_OF)) if KINDS[KIND_OF[c]][0] == k and c not in held)
        for deck in state.command_decks:
            if c in deck:
                deck.remove(c)
        state.hands[seat].append(c)
        ids.append(c)
    return ids


def attack_setup(seats: int = 3) -> GameState2210:
    """Seat 0 (Land, Diplomat) invades Egypt (seat 1, Land + Diplomat) from Imperial Balkania."""
    state = midturn(seats)
    put(state, 0, "Imperial Balkania", 6, (L, D))
    put(state, 1, "Egypt", 2, (L, D))
    put(state, 2 % seats, "Middle East", 2, (L, D)) if seats > 2 else None
    return state


def test_cards_before_the_first_invasion_only() -> None:
    """004: "Play Command cards" is step 4 of a turn, before invading; cards JSON timing
    before_first_invasion: "before you declare your first invasion or move any unit"."""
    state = attack_setup()
    (assemble,) = hold(state, 0, "land_assemble_mods")
    state.energy[0] = 1
    legal = legal_actions(state, 0)
    assert [(c.card, c.picks) for c in legal.plays] == [(assemble, 1)]
    assert legal.plays[0].targets == (state.board.territory_id("Imperial Balkania"),)
    apply(state, Declare(*_pair(state, "Imperial Balkania", "Egypt")), 0)
    state.phase, state.pending = Phase.INVADE, None
    assert legal_actions(state, 0).plays == ()
    with pytest.raises(IllegalActionError, match="may not be played now"):
        apply(state, PlayCard(assemble, (state.board.territory_id("Imperial Balkania"),)), 0)


def test_power_up_cost_is_paid_and_needed_and_the_commander_too() -> None:
    """Cards JSON general rule: "the matching commander must be in play ... pay the power-up cost (0-4) on
    playing; no energy, no play"."""
    state = attack_setup()
    (assemble,) = hold(state, 0, "land_assemble_mods")
    assert legal_actions(state, 0).plays == ()  # cost 1, energy 0
    state.energy[0] = 3
    t = state.board.territory_id("Imperial Balkania")
    apply(state, PlayCard(assemble, (t,)), 0)
    assert state.energy[0] == 2 and state.mods[t] == 9
    assert assemble in state.card_discard and assemble not in state.hands[0]
    hold(state, 0, "naval_assemble_mods")
    state.owner[state.board.territory_id("New York")] = 0
    state.mods[state.board.territory_id("New York")] = 1
    assert legal_actions(state, 0).plays == (), "no Naval Commander in play"


def test_a_played_card_is_never_shuffled_back() -> None:
    """004: "Discard piles are not shuffled to form new draw piles"."""
    state = attack_setup()
    (jam,) = hold(state, 0, "land_frequency_jam")
    apply(state, PlayCard(jam, (1,)), 0)
    assert state.card_discard == [jam] and all(jam not in deck for deck in state.command_decks)


def test_seats_that_might_react_are_asked_defender_first() -> None:
    """Issue 19: "reactions asked of a seat that is not the one to move", by issue 34 every seat whose public
    card counts could hold a reaction (``test_r2210_hidden_cards.py``); docs/rules.md open point 7: "The
    defender first, then the others in turn order from the attacker's left"; Stealth MODs: "any player
    except the attacker"."""
    state = attack_setup()
    hold(state, 2, "land_stealth_mods")
    hold(state, 1, "land_stealth_mods")
    hold(state, 0, "land_stealth_mods")  # the attacker may not answer its own invasion
    apply(state, Declare(*_pair(state, "Imperial Balkania", "Egypt")), 0)
    assert state.phase == Phase.REACT and state.asked == (1,) and state.reactors == [1, 2]
    assert legal_actions(state, 0).plays == ()
    apply(state, EndPhase(), 1)
    assert state.asked == (2,)
    apply(state, EndPhase(), 2)
    assert state.phase == Phase.ROLL and state.asked == (0,)


def test_nobody_able_to_react_means_no_reaction_window() -> None:
    """Only seats whose card counts could hold a reaction are asked: cards of decks whose reactions need
    their Commander (Naval, Space), the Commander not in play, ask nobody."""
    state = attack_setup()
    hold(state, 1, "naval_stealth_mods", "space_stealth_mods")
    apply(state, Declare(*_pair(state, "Imperial Balkania", "Egypt")), 0)
    assert state.phase == Phase.ROLL


def test_the_reaction_window_reopens_before_every_roll() -> None:
    """Cards JSON timing opponent_invades: "Each dice roll is a new invasion, so the window reopens before
    every roll (official FAQ)"."""
    state = attack_setup()
    hold(state, 1, "land_stealth_mods", "land_stealth_mods")
    source, target = _pair(state, "Imperial Balkania", "Egypt")
    apply(state, Declare(source, target), 0)
    apply(state, PlayCard(state.hands[1][0]), 1)
    assert state.mods[target] == 5 and state.asked == (1,)  # may play the second copy too
    apply(state, EndPhase(), 1)
    state.phase, state.pending = Phase.INVADE, None
    apply(state, Declare(source, target), 0)
    assert state.phase == Phase.REACT and state.asked == (1,)


def test_the_timeout_default_in_a_window_plays_nothing() -> None:
    """Issue 19: "a timeout gets a safe legal default"."""
    state = attack_setup()
    hold(state, 1, "land_stealth_mods")
    apply(state, Declare(*_pair(state, "Imperial Balkania", "Egypt")), 0)
    assert default_action(legal_actions(state, 1)) == EndPhase()


def test_a_jammed_player_plays_nothing_until_the_jammers_turn_ends() -> None:
    """Frequency Jam: "Name a player. Until the end of your current turn that player cannot play any
    Command card (reactive ones included)"."""
    state = attack_setup()
    (jam,) = hold(state, 0, "land_frequency_jam")
    hold(state, 1, "land_stealth_mods")
    assert legal_actions(state, 0).plays[0].targets == (1, 2)
    apply(state, PlayCard(jam, (1,)), 0)
    assert state.jammed == [1]
    apply(state, Declare(*_pair(state, "Imperial Balkania", "Egypt")), 0)
    assert state.phase == Phase.ROLL


def test_end_of_turn_window_after_fortify() -> None:
    """Redeployment (end_of_turn): "After your normal Fortify Position, make one more Fortify Position move
    under the same rules"."""
    state = attack_setup()
    (redeploy,) = hold(state, 0, "diplomat_redeployment")
    a = state.board.territory_id("Imperial Balkania")
    b = put(state, 0, "Andorra", 1)
    state.phase = Phase.FORTIFY
    apply(state, Fortify(a, b, 2), 0)
    assert state.phase == Phase.TURN_END and legal_actions(state, 0).plays[0].card == redeploy
    apply(state, PlayCard(redeploy), 0)
    assert state.phase == Phase.FORTIFY
    apply(state, Fortify(b, a, 1), 0)
    assert state.turn_seat == 1 and state.mods[a] == 5 and state.mods[b] == 2


def test_no_end_of_turn_window_without_a_card() -> None:
    """The window is a decision only for a seat whose card counts could hold a card it may play there."""
    state = attack_setup()
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 0)
    assert state.turn_seat == 1 and state.phase == Phase.DEPLOY


def test_end_of_game_cards_before_scoring_in_turn_order() -> None:
    """004 WINNING: final scoring; Colony Influence (end_of_game): "If your Diplomat Commander is in play at
    final scoring, add 3 to your score"; "Each copy adds 3; several may be played"."""
    state = attack_setup()
    state.year = 5
    state.turn_index = 2
    state.to_act = 2
    state.phase = Phase.FORTIFY
    hold(state, 1, "diplomat_colony_influence", "diplomat_colony_influence", "naval_colony_influence")
    apply(state, EndPhase(), 2)
    assert state.phase == Phase.GAME_END and state.asked == (1,)
    legal = legal_actions(state, 1)
    assert len(legal.plays) == 1, "no Naval Commander: only the Diplomat card (one entry per kind)"
    before = state.score(1)
    apply(state, PlayCard(legal.plays[0].card), 1)
    apply(state, PlayCard(legal_actions(state, 1).plays[0].card), 1)
    assert state.phase == Phase.GAME_OVER and state.scores[1] == before + 6


def test_an_illegal_card_play_names_what_was_legal() -> None:
    """Issue 19, Bad input: "an illegal card play ... get a rejection that names what was legal"."""
    state = attack_setup()
    (reinforce,) = hold(state, 0, "land_reinforcements")
    t = state.board.territory_id("Imperial Balkania")
    with pytest.raises(IllegalActionError, match=r"played on 1 different targets of \[18\]"):
        apply(state, PlayCard(reinforce, (t, t)), 0)
    with pytest.raises(IllegalActionError, match=r"cards you may play now: \[\(.*'Reinforcements'\)\]"):
        apply(state, PlayCard(card("land_scout_forces"), ()), 0)


def _pair(state: GameState2210, source: str, target: str) -> tuple[int, int]:
    return state.board.territory_id(source), state.board.territory_id(target)
