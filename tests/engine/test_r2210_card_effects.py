"""RISK 2210 A.D. Command card effects, card by card (issue 19: "all 100 cards of the five decks with their
effects"). Each test quotes the card's effect from ``tests/reference/2210_command_cards.json``."""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.r2210.actions import Commander, Declare, EndPhase, Lose, Phase, PlayCard, Roll
from engine.r2210.cardplay import plays
from engine.r2210.cards import KINDS
from engine.r2210.game import apply, legal_actions
from engine.r2210.state import NOBODY, GameState2210
from tests.engine.r2210_support import FixedDice, midturn, put
from tests.engine.test_r2210_cardplay import attack_setup, hold

L, D, N, S, X = Commander.LAND, Commander.DIPLOMAT, Commander.NAVAL, Commander.SPACE, Commander.NUCLEAR


class Die:
    """Every single die shows ``values`` in turn."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)

    def die(self, faces: int) -> int:
        return self.values.pop(0)


def tid(state: GameState2210, name: str) -> int:
    return state.board.territory_id(name)


def play(state: GameState2210, seat: int, key: str, *targets: int) -> None:
    (c,) = hold(state, seat, key)
    state.energy[seat] += KINDS[next(k for k, row in enumerate(KINDS) if row[0] == key)][4]
    apply(state, PlayCard(c, targets), seat)


# ---------------------------------------------------------------------- before the first invasion


@pytest.mark.parametrize(
    ("key", "commander", "name"),
    [
        ("land_assemble_mods", L, "Egypt"),
        ("naval_assemble_mods", N, "New York"),
        ("space_assemble_mods", S, "Tycho"),
    ],
)
def test_assemble_mods(key: str, commander: Commander, name: str) -> None:
    """Assemble MODs: "Place 3 MODs from your recruitment pool on one land [water, lunar] territory you
    control"."""
    state = midturn(3)
    t = put(state, 0, name, 1, (commander,))
    put(state, 0, "Siberia", 1)
    play(state, 0, key, t)
    assert state.mods[t] == 4 and state.energy[0] == 0


def test_reinforcements_three_or_each_if_fewer() -> None:
    """Reinforcements: "Place 1 MOD on each of 3 different land territories you control"; "If you control
    fewer than 3 land territories, place 1 MOD on each one you control (rulebook Q&A)"."""
    state = midturn(3)
    a, b = put(state, 0, "Egypt", 1, (L, N)), put(state, 0, "Siberia", 1)
    c, d = put(state, 0, "Japan", 1), put(state, 0, "New York", 1)
    (choice,) = plays(state, 0, "before_first_invasion") or [None]
    assert choice is None
    hold(state, 0, "land_reinforcements", "naval_reinforcements")
    land, water = plays(state, 0, "before_first_invasion")
    assert (land.targets, land.picks) == ((a, b, c), 3) and (water.targets, water.picks) == ((d,), 1)
    apply(state, PlayCard(land.card, (a, b, c)), 0)
    apply(state, PlayCard(water.card, (d,)), 0)
    assert [state.mods[t] for t in (a, b, c, d)] == [2, 2, 2, 2]


def test_energy_crisis() -> None:
    """Energy Crisis: "Take 1 energy from each opponent and add it to your own energy"; "An opponent with 0
    energy gives nothing"."""
    state = attack_setup()
    state.energy = [0, 4, 0]
    play(state, 0, "diplomat_energy_crisis")
    assert state.energy == [1, 3, 0]


def test_territorial_station() -> None:
    """Territorial Station: "Place one of your Space Stations on a land territory you control"; "at most one
    Space Station per territory and at most 4 of yours"."""
    state = attack_setup()
    t = tid(state, "Imperial Balkania")
    play(state, 0, "diplomat_territorial_station", t)
    assert state.station[t] == 0
    for name in ("Andorra", "Japan", "Siberia"):
        put(state, 0, name, 1, station=True)
    put(state, 0, "Sakha", 1)
    hold(state, 0, "diplomat_territorial_station")
    state.energy[0] = 5
    assert plays(state, 0, "before_first_invasion") == ()


def test_hidden_energy_pays_at_the_end_of_the_turn_if_held() -> None:
    """Hidden Energy: "Draw the top Water Territory card. If you control that water territory at the end
    of this turn, gain 4 energy. Discard the card at the end of the turn either way"."""
    state = attack_setup()
    state.commander_at[0 * 5 + N] = tid(state, "Imperial Balkania")
    held, other = tid(state, "New York"), tid(state, "Akara")
    put(state, 0, "New York", 1)
    state.water_deck = [held, other]
    play(state, 0, "naval_hidden_energy")
    play(state, 0, "naval_hidden_energy")
    assert state.hidden_energy == [held, other]
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 0)
    assert state.energy[0] == 4 and state.water_discard == [held, other] and state.hidden_energy == []


def test_energy_extraction_needs_the_whole_moon() -> None:
    """Energy Extraction: "If at the end of this turn you control every lunar territory (all 14), gain 7
    energy"."""
    state = attack_setup()
    state.commander_at[0 * 5 + S] = tid(state, "Imperial Balkania")
    play(state, 0, "space_energy_extraction")
    moon = [t for t in range(state.board.size) if state.board.kinds[t] == 2]
    for t in moon:
        state.owner[t], state.mods[t] = 0, 1
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 0)
    assert state.energy[0] == 7


def test_energy_extraction_without_the_moon_pays_nothing() -> None:
    """Energy Extraction is "Checked once at end of your turn": one lunar territory short pays nothing."""
    state = attack_setup()
    state.commander_at[0 * 5 + S] = tid(state, "Imperial Balkania")
    play(state, 0, "space_energy_extraction")
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 0)
    assert state.energy[0] == 0


def test_scout_forces_now_or_on_capture() -> None:
    """Scout Forces: "If you already control that territory, place the 5 MODs there at once; otherwise place
    them there the moment you gain control of it"."""
    state = attack_setup()
    own, egypt = tid(state, "Imperial Balkania"), tid(state, "Egypt")
    state.land_deck = [own, egypt]
    play(state, 0, "land_scout_forces")
    assert state.mods[own] == 11
    play(state, 0, "land_scout_forces")
    assert state.scouts[0] == [egypt] and state.mods[egypt] == 2
    state.commander_at[1 * 5 + L] = state.commander_at[1 * 5 + D] = -1
    state.dice = FixedDice([6, 6, 6], [1, 1])  # type: ignore[assignment]
    apply(state, Declare(own, egypt), 0)
    apply(state, Roll(2), 0)
    assert state.owner[egypt] == 0 and state.mods[egypt] == 5 and state.scouts[0] == []


def test_invade_earth_opens_one_land_territory_to_the_moon() -> None:
    """Invade Earth: "Turn over Land Territory cards from the top until one shows a land territory you do
    not control. For the rest of this turn you may declare invasions into that territory from any lunar
    territory you occupy"."""
    state = attack_setup()
    moon = put(state, 0, "Tycho", 3, (S,))
    own, egypt = tid(state, "Imperial Balkania"), tid(state, "Egypt")
    state.land_deck = [own, egypt, tid(state, "Japan")]
    assert (moon, egypt) not in state.invasions(0)
    play(state, 0, "space_invade_earth")
    assert state.invade_earth == [egypt] and state.land_discard[-2:] == [own, egypt]
    assert (moon, egypt) in state.invasions(0)
    state.phase = Phase.FORTIFY
    apply(state, EndPhase(), 0)
    assert state.invade_earth == []


def test_scout_forces_and_invade_earth_with_no_land_card_to_turn_over() -> None:
    """Issue 34, item 13: "The empty-deck behaviour of Scout Forces and Invade Earth is undocumented." Cards
    JSON, Scout Forces: "If the land deck is empty the card does nothing (inferred)"; 004: "Discard piles
    are not shuffled to form new draw piles". With the Land Territory deck empty neither card is offered
    (docs/rules.md, open point 16); Invade Earth whose cards left all show territories its player controls
    turns them all over and opens nothing."""
    state = attack_setup()
    put(state, 0, "Tycho", 3, (S,))
    scouts, invade = hold(state, 0, "land_scout_forces", "space_invade_earth")
    state.land_deck = []
    assert legal_actions(state, 0).plays == ()
    own = tid(state, "Imperial Balkania")
    state.land_deck = [own]
    assert {c.card for c in legal_actions(state, 0).plays} == {scouts, invade}
    apply(state, PlayCard(invade), 0)
    assert state.invade_earth == [] and state.land_deck == [] and state.land_discard[-1] == own
    assert legal_actions(state, 0).plays == ()


def test_assassin_bomb() -> None:
    """Assassin Bomb: "Choose one commander of an opponent. Roll an 8-sided die: on 3-8 that commander is
    destroyed; on 1-2 nothing happens"."""
    state = attack_setup()
    state.commander_at[0 * 5 + X] = tid(state, "Imperial Balkania")
    egypt = tid(state, "Egypt")
    state.dice = Die(2, 3)  # type: ignore[assignment]
    play(state, 0, "nuclear_assassin_bomb", 1 * 5 + L)
    assert state.commander(1, L) == egypt
    play(state, 0, "nuclear_assassin_bomb", 1 * 5 + L)
    assert state.commander(1, L) == -1 and state.units(egypt) == 3


def test_rocket_strike_can_empty_and_eliminate() -> None:
    """Rocket Strike: "Roll a 6-sided die; that opponent destroys that many of their units there (all of
    them if fewer)"; "May empty the territory (territory stays theirs only if it has their Space
    Station)"."""
    state = attack_setup()
    state.commander_at[0 * 5 + X] = tid(state, "Imperial Balkania")
    egypt = tid(state, "Egypt")
    state.dice = Die(6)  # type: ignore[assignment]
    play(state, 0, "nuclear_rocket_strike_land", egypt)
    assert state.units(egypt) == 0 and state.owner[egypt] == NOBODY
    assert not state.alive[1] and 1 in state.eliminated


def test_scatter_bomb_halves_opponents_and_spares_your_own() -> None:
    """Scatter Bomb Land: "Turn over the top 3 Land Territory cards. In each drawn territory held by an
    opponent, that opponent destroys half (rounded up) of their units there"; "Your own territories drawn
    are not harmed but still count toward the 3"."""
    state = attack_setup()
    state.commander_at[0 * 5 + X] = tid(state, "Imperial Balkania")
    own, egypt, mideast = tid(state, "Imperial Balkania"), tid(state, "Egypt"), tid(state, "Middle East")
    state.land_deck = [own, egypt, mideast, tid(state, "Japan")]
    play(state, 0, "nuclear_scatter_bomb_land")
    assert state.units(own) == 9 and state.units(egypt) == 2 and state.units(mideast) == 2
    assert len(state.land_deck) == 1


def test_zone_bomb_hits_every_occupied_territory_of_the_zone_own_too() -> None:
    """The Mother: "Roll a 6-sided die: 1 North America, ... 3 Europe ... Destroy 1 unit in every territory of
    that continent, including your own"."""
    state = midturn(3)
    a = put(state, 0, "Andorra", 3, (X,))
    b = put(state, 1, "Iceland GRC", 1)
    c = put(state, 1, "Egypt", 2)
    put(state, 1, "Japan", 2)
    state.dice = Die(3)  # type: ignore[assignment]
    play(state, 0, "nuclear_the_mother")
    assert (state.units(a), state.owner[b], state.units(c)) == (3, NOBODY, 2)


def test_aqua_brother_rolls_again_on_a_six() -> None:
    """Aqua Brother: "1 US Pacific, 2 Asia Pacific, 3 North Atlantic, 4 South Atlantic, 5 Indian, 6 roll
    again"."""
    state = midturn(3)
    put(state, 0, "Egypt", 1, (X,))
    ny = put(state, 1, "New York", 2)
    state.dice = Die(6, 3)  # type: ignore[assignment]
    play(state, 0, "nuclear_aqua_brother")
    assert state.units(ny) == 1


# ---------------------------------------------------------------------- answers to an invasion


def declared(state: GameState2210) -> tuple[int, int]:
    source, target = tid(state, "Imperial Balkania"), tid(state, "Egypt")
    apply(state, Declare(source, target), 0)
    return source, target


def test_stealth_mods_by_a_third_player_go_to_the_defender() -> None:
    """Stealth MODs: "The defending player adds 3 MODs of their own colour to the defending land territory
    before the dice are rolled"; "may be played to help other players"."""
    state = attack_setup()
    (c,) = hold(state, 2, "land_stealth_mods")
    _, egypt = declared(state)
    apply(state, PlayCard(c), 2)
    assert state.mods[egypt] == 5 and state.owner[egypt] == 1 and state.phase == Phase.ROLL


def test_cease_fire() -> None:
    """Cease Fire: "Cancel the declared invasion before any dice are rolled. For the rest of that player's
    turn they may not declare any invasion into a territory you control"."""
    state = attack_setup()
    state.energy[1] = 2
    (c,) = hold(state, 1, "diplomat_cease_fire")
    source, egypt = declared(state)
    apply(state, PlayCard(c), 1)
    assert state.phase == Phase.INVADE and state.pending is None and state.energy[1] == 0
    assert (source, egypt) not in state.invasions(0)
    assert (source, tid(state, "Middle East")) in state.invasions(0)


def test_evacuation_leaves_the_territory_to_the_attacker_without_dice() -> None:
    """Evacuation: "Move every one of your units (MODs and commanders) out of the attacked territory into one
    other territory you control anywhere on the two boards"; "the attacker enters it without a dice roll";
    "still counts as contested for the attacker's 3-territory bonus"."""
    state = attack_setup()
    far = put(state, 1, "Japan", 1)
    (c,) = hold(state, 1, "diplomat_evacuation")
    _, egypt = declared(state)
    assert legal_actions(state, 1).plays[0].targets == (far,)
    apply(state, PlayCard(c, (far,)), 1)
    assert state.units(far) == 5 and state.commander(1, D) == far
    assert state.phase == Phase.OCCUPY and state.owner[egypt] == 0 and state.contested_captures == 1


@pytest.mark.parametrize(
    ("key", "kind", "source", "target"),
    [
        ("land_land_death_trap", L, "Imperial Balkania", "Egypt"),
        ("naval_water_death_trap", N, "Amazon Desert", "Nova Brasilia"),
        ("space_orbital_mines", S, "Harpalus", "Aristotle"),
    ],
)
def test_death_traps(key: str, kind: Commander, source: str, target: str) -> None:
    """Land / Water Death Trap, Orbital Mines: "The attacker must destroy half (rounded up) of the units in
    the territory they are attacking from"; "The invasion remains declared; the attacker must still roll at
    least once if able"."""
    state = midturn(3)
    s = put(state, 0, source, 5, (N, S))
    t = put(state, 1, target, 1, (kind, D))
    state.energy[1] = 3
    (c,) = hold(state, 1, key)
    apply(state, Declare(s, t), 0)
    apply(state, PlayCard(c), 1)
    assert state.units(s) == 3 and state.phase == Phase.ROLL


def test_stealth_station_makes_the_defence_d8() -> None:
    """Stealth Station: "Place one of your Space Stations in the land territory being invaded; from then on
    all your units there defend with 8-sided dice"."""
    state = attack_setup()
    (c,) = hold(state, 1, "land_stealth_station")
    _, egypt = declared(state)
    apply(state, PlayCard(c), 1)
    state.dice = FixedDice([1, 1, 1], [8, 8])  # type: ignore[assignment]
    apply(state, Roll(3), 0)
    assert state.station[egypt] == 1 and state.dice.faces[-1][1] == (8, 8)  # type: ignore[attr-defined]


# ------------------------------------------------------------ the owner chooses what a card destroys


def test_with_choose_losses_the_owner_chooses_what_a_rocket_strike_destroys() -> None:
    """Rocket Strike: "that opponent destroys that many of their units there"; 004: "You may remove MODs in
    their place" (rules option ``choose_losses``: the owner is asked, as for a battle's losses), and then
    the card's player goes on with its turn."""
    state = attack_setup()
    state.rules = replace(state.rules, choose_losses=True)
    state.commander_at[0 * 5 + X] = tid(state, "Imperial Balkania")
    egypt = tid(state, "Egypt")
    mods, here = state.mods[egypt], state.commanders_in(egypt)
    assert here and mods >= 2
    state.dice = Die(2)  # type: ignore[assignment]
    play(state, 0, "nuclear_rocket_strike_land", egypt)
    legal = legal_actions(state, 1)
    assert state.phase == Phase.LOSSES and state.asked == (1,)
    assert (legal.territories, legal.lose, legal.occupy_commanders) == ((egypt,), 2, here)
    apply(state, Lose(1, (here[0],)), 1)
    assert state.mods[egypt] == mods - 1 and state.commander(1, here[0]) == -1
    assert state.phase == Phase.INVADE and state.asked == (0,) and state.card_losses is None


def test_without_choose_losses_a_card_takes_mods_first_and_asks_nobody() -> None:
    """The default: "MODs first, then commanders" (docs/rules.md), no decision."""
    state = attack_setup()
    state.commander_at[0 * 5 + X] = tid(state, "Imperial Balkania")
    egypt = tid(state, "Egypt")
    mods, here = state.mods[egypt], state.commanders_in(egypt)
    state.dice = Die(1)  # type: ignore[assignment]
    play(state, 0, "nuclear_rocket_strike_land", egypt)
    assert state.phase == Phase.INVADE and (state.mods[egypt], state.commanders_in(egypt)) == (mods - 1, here)


def test_a_zone_bomb_asks_each_owner_with_a_commander_at_stake_in_turn() -> None:
    """The Mother: "Destroy 1 unit in every territory of that continent, including your own": with
    ``choose_losses`` each owner of a territory holding a commander and more than one unit chooses (the
    card's player too); the others lose a MOD at once."""
    state = midturn(3, choose_losses=True)
    a = put(state, 0, "Andorra", 3, (X,))
    b = put(state, 1, "Iceland GRC", 1)
    c = put(state, 1, "Ukrayina", 2, (D,))
    state.dice = Die(3)  # type: ignore[assignment]
    play(state, 0, "nuclear_the_mother")
    assert state.owner[b] == NOBODY  # nothing to choose: its one MOD is gone
    assert state.phase == Phase.LOSSES and state.asked == (0,) and legal_actions(state, 0).territories == (a,)
    apply(state, Lose(1, ()), 0)
    assert state.asked == (1,) and legal_actions(state, 1).territories == (c,)
    apply(state, Lose(0, (D,)), 1)
    assert (state.units(a), state.mods[c], state.commander(1, D)) == (3, 2, -1)
    assert state.phase == Phase.INVADE and state.asked == (0,)


def test_a_death_trap_lets_the_attacker_choose_then_the_invasion_goes_on() -> None:
    """Death Trap: "The attacker must destroy half (rounded up) of the units in the territory they are
    attacking from"; "The invasion remains declared; the attacker must still roll at least once if able"."""
    state = midturn(3, choose_losses=True)
    s = put(state, 0, "Imperial Balkania", 5, (N, S))
    t = put(state, 1, "Egypt", 1, (L, D))
    state.energy[1] = 3
    (c,) = hold(state, 1, "land_land_death_trap")
    apply(state, Declare(s, t), 0)
    apply(state, PlayCard(c), 1)
    assert state.phase == Phase.LOSSES and state.asked == (0,) and legal_actions(state, 0).lose == 4
    apply(state, Lose(2, (N, S)), 0)
    assert state.units(s) == 3 and not state.in_play(0, N) and state.phase == Phase.ROLL
    assert state.pending == (s, t)
