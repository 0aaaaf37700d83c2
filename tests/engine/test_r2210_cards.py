"""RISK 2210 A.D. Command cards, the part in the engine so far (issue 19, "Command cards": "buy up to 4 a
turn (1 energy each, only with the Commander in play, bought before looking) ... decks never reshuffled,
the 3-territory bonus (1 energy and a card of your choice, once a turn)"; "energy and the number and type of
each player's cards are public; card identities ... are not")."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from engine.errors import IllegalActionError
from engine.r2210.actions import BuyCards, Commander, Declare, EndPhase, Occupy, Phase, Roll, TakeCard
from engine.r2210.cards import DECK_CARDS, DECK_OF, KIND_OF, KINDS, card_name
from engine.r2210.game import apply, legal_actions, new_game_2210
from engine.r2210.observe import observe_2210
from engine.r2210.rules import Rules2210
from tests.engine.r2210_support import FixedDice, midturn, put
from tests.reference.make_2210_data import CARDS_SOURCE, CARDS_TARGET, render_cards

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR


def test_generated_cards_module_equals_the_json() -> None:
    """The engine reads no files: the committed module is 2210_command_cards.json, rendered."""
    data = json.loads(CARDS_SOURCE.read_text())
    assert Path(CARDS_TARGET).read_text() == render_cards(data), "run 'make engine-data' and commit"
    copies = Counter({c["id"]: c["copies"] for c in data["cards"]})
    assert Counter(KINDS[k][0] for k in KIND_OF) == copies


def test_100_cards_in_five_decks_of_20_with_the_chosen_disputed_values() -> None:
    """004: the Command decks; 2210_NOTES point 4: "Hidden Energy 5, Space Stealth MODs 4, Orbital Mines
    2"."""
    assert len(KIND_OF) == 100 and [len(d) for d in DECK_CARDS] == [20] * 5
    by_id = {row[0]: row for row in KINDS}
    assert by_id["naval_hidden_energy"][3] == 5 and by_id["space_stealth_mods"][3] == 4
    assert by_id["space_orbital_mines"][4] == 2
    assert {card_name(c) for c in DECK_CARDS[X]} >= {"Armageddon", "The Mother"}


def test_decks_are_shuffled_at_setup_and_never_refilled() -> None:
    """004: "Shuffle the decks separately"; "Once a Command card deck is exhausted, no more cards of that type
    may be bought"."""
    state, _ = new_game_2210(Rules2210(), 3, 8)
    assert [sorted(d) for d in state.command_decks] == [list(c) for c in DECK_CARDS]
    assert [list(d) for d in state.command_decks] != [list(c) for c in DECK_CARDS]
    state = midturn(3, phase=Phase.BUY)
    put(state, 0, "Egypt", 1, (L,))
    state.energy[0] = 10
    state.command_decks[L] = state.command_decks[L][:2]
    legal = legal_actions(state, 0)
    assert legal.card_decks == (2, 0, 0, 0, 0) and legal.buy_max == 2
    with pytest.raises(IllegalActionError, match="at most \\[2, 0, 0, 0, 0\\]"):
        apply(state, BuyCards((3, 0, 0, 0, 0)), 0)
    state.command_decks[L] = []
    assert legal_actions(state, 0).buy_max == 0


def test_buy_up_to_four_for_one_energy_each_only_with_the_commander_before_looking() -> None:
    """004: "On each turn you may purchase up to four Command cards. Command cards cost 1 energy each";
    "You may only buy a Command card if you have the corresponding Commander in play"; "You must purchase
    all your cards before looking at any of them"; "The types of cards a player has, and how many of those
    cards, is public knowledge. The actual cards themselves are always kept secret.\""""
    state = midturn(3, phase=Phase.BUY)
    put(state, 0, "Egypt", 1, (L, D))
    put(state, 1, "Alden", 1)
    state.energy[0] = 9
    legal = legal_actions(state, 0)
    assert legal.card_decks == (20, 20, 0, 0, 0) and legal.buy_max == 4
    with pytest.raises(IllegalActionError, match="at most \\[20, 20, 0, 0, 0\\]"):
        apply(state, BuyCards((1, 0, 1, 0, 0)), 0)
    with pytest.raises(IllegalActionError, match="buy 1 to 4 cards in all, not 5"):
        apply(state, BuyCards((3, 2, 0, 0, 0)), 0)
    tops = state.command_decks[L][:3] + state.command_decks[D][:1]
    events = apply(state, BuyCards((3, 1, 0, 0, 0)), 0)
    assert sorted(state.hands[0]) == sorted(tops) and state.energy[0] == 5
    assert state.phase == Phase.INVADE
    public = next(e for e in events if e.kind == "cards_bought")
    private = next(e for e in events if e.kind == "cards_drawn")
    assert not public.private and public.data["counts"] == [3, 1, 0, 0, 0]
    assert private.private and private.seat == 0
    assert observe_2210(state, 0).hand == tuple(sorted(tops))
    assert observe_2210(state, 1).hand == () and observe_2210(state, 1).card_counts[0] == (3, 1, 0, 0, 0)
    state = midturn(3, phase=Phase.BUY)
    put(state, 0, "Egypt", 1, (L,))
    state.energy[0] = 2
    assert legal_actions(state, 0).buy_max == 2


def test_the_3_territory_bonus_card_is_of_your_choosing_from_an_open_deck() -> None:
    """004: "if you take three contested territories you immediately earn 1 energy and 1 Command card of
    your choosing (you can only draw a card from a pile to which you have a corresponding Commander in
    play.)"."""
    for commanders in ((N, X), ()):
        state = midturn()
        a = put(state, 0, "Hong Kong", 40, commanders)
        targets = [put(state, 1, n, 1) for n in ("Siberia", "Afghanistan", "Angkhor Wat")]
        put(state, 1, "Egypt", 5)
        state.dice = FixedDice([6], [1])  # type: ignore[assignment]
        for t in targets:
            apply(state, Declare(a, t), 0)
            apply(state, Roll(1), 0)
            apply(state, Occupy(1), 0)
        if not commanders:
            assert state.phase == Phase.INVADE  # no deck open: the energy alone
            continue
        legal = legal_actions(state, 0)
        assert state.phase == Phase.BONUS_CARD and legal.card_decks == (0, 0, 20, 0, 20)
        with pytest.raises(IllegalActionError, match="a deck open to you"):
            apply(state, TakeCard(L), 0)
        top = state.command_decks[X][0]
        apply(state, TakeCard(X), 0)
        assert state.hands[0] == [top] and DECK_OF[top] == X and state.phase == Phase.INVADE
        apply(state, EndPhase(), 0)


def test_an_eliminated_players_cards_are_discarded() -> None:
    """004: "If during your turn you eliminate an opponent by defeating his or her last unit in play, all of
    the defeated players command cards are discarded.\""""
    state = midturn(3)
    a = put(state, 0, "Egypt", 4)
    b = put(state, 1, "Middle East", 1)
    put(state, 2, "Alden", 1)
    state.hands[1] = [state.command_decks[L].pop(0), state.command_decks[D].pop(0)]
    held = list(state.hands[1])
    state.dice = FixedDice([6], [1])  # type: ignore[assignment]
    apply(state, Declare(a, b), 0)
    apply(state, Roll(1), 0)
    assert state.hands[1] == [] and state.card_discard == held and state.hands[0] == []
