# ruff: noqa: E501
"""RISK 2210 A.D. Command card facts, generated from tests/reference/2210_command_cards.json: do not edit by hand.

Regenerate with ``make engine-data``; ``tests/engine/test_r2210_cards.py`` fails when this
module and the JSON differ. ``engine.r2210.cards`` builds on these tuples.
"""

# fmt: off

# (id, deck in Commander order, name, copies, power-up cost, timing), deck by deck
CARD_KINDS: tuple[tuple[str, int, str, int, int, str], ...] = (
    ('land_assemble_mods', 0, 'Assemble MODs', 3, 1, 'before_first_invasion'),
    ('land_colony_influence', 0, 'Colony Influence', 2, 0, 'end_of_game'),
    ('land_frequency_jam', 0, 'Frequency Jam', 2, 0, 'before_first_invasion'),
    ('land_land_death_trap', 0, 'Land Death Trap', 1, 3, 'opponent_invades'),
    ('land_reinforcements', 0, 'Reinforcements', 3, 0, 'before_first_invasion'),
    ('land_scout_forces', 0, 'Scout Forces', 3, 0, 'before_first_invasion'),
    ('land_stealth_mods', 0, 'Stealth MODs', 5, 0, 'opponent_invades'),
    ('land_stealth_station', 0, 'Stealth Station', 1, 0, 'opponent_invades'),
    ('diplomat_cease_fire', 1, 'Cease Fire', 2, 2, 'opponent_invades'),
    ('diplomat_colony_influence', 1, 'Colony Influence', 4, 0, 'end_of_game'),
    ('diplomat_decoys_revealed', 1, 'Decoys Revealed', 2, 0, 'before_first_invasion'),
    ('diplomat_energy_crisis', 1, 'Energy Crisis', 2, 0, 'before_first_invasion'),
    ('diplomat_evacuation', 1, 'Evacuation', 2, 0, 'opponent_invades'),
    ('diplomat_mod_reduction', 1, 'MOD Reduction', 2, 2, 'before_first_invasion'),
    ('diplomat_redeployment', 1, 'Redeployment', 3, 0, 'end_of_turn'),
    ('diplomat_territorial_station', 1, 'Territorial Station', 3, 1, 'before_first_invasion'),
    ('naval_assemble_mods', 2, 'Assemble MODs', 3, 1, 'before_first_invasion'),
    ('naval_colony_influence', 2, 'Colony Influence', 2, 0, 'end_of_game'),
    ('naval_frequency_jam', 2, 'Frequency Jam', 2, 0, 'before_first_invasion'),
    ('naval_hidden_energy', 2, 'Hidden Energy', 5, 0, 'before_first_invasion'),
    ('naval_reinforcements', 2, 'Reinforcements', 2, 0, 'before_first_invasion'),
    ('naval_stealth_mods', 2, 'Stealth MODs', 5, 0, 'opponent_invades'),
    ('naval_water_death_trap', 2, 'Water Death Trap', 1, 3, 'opponent_invades'),
    ('space_assemble_mods', 3, 'Assemble MODs', 3, 1, 'before_first_invasion'),
    ('space_colony_influence', 3, 'Colony Influence', 2, 0, 'end_of_game'),
    ('space_energy_extraction', 3, 'Energy Extraction', 1, 1, 'before_first_invasion'),
    ('space_frequency_jam', 3, 'Frequency Jam', 2, 0, 'before_first_invasion'),
    ('space_invade_earth', 3, 'Invade Earth', 3, 0, 'before_first_invasion'),
    ('space_orbital_mines', 3, 'Orbital Mines', 2, 2, 'opponent_invades'),
    ('space_reinforcements', 3, 'Reinforcements', 3, 0, 'before_first_invasion'),
    ('space_stealth_mods', 3, 'Stealth MODs', 4, 0, 'opponent_invades'),
    ('nuclear_armageddon', 4, 'Armageddon', 1, 4, 'before_first_invasion'),
    ('nuclear_assassin_bomb', 4, 'Assassin Bomb', 3, 1, 'before_first_invasion'),
    ('nuclear_the_mother', 4, 'The Mother', 1, 3, 'before_first_invasion'),
    ('nuclear_aqua_brother', 4, 'Aqua Brother', 1, 3, 'before_first_invasion'),
    ('nuclear_nicky_boy', 4, 'Nicky Boy', 1, 3, 'before_first_invasion'),
    ('nuclear_rocket_strike_land', 4, 'Rocket Strike Land', 2, 2, 'before_first_invasion'),
    ('nuclear_rocket_strike_water', 4, 'Rocket Strike Water', 2, 2, 'before_first_invasion'),
    ('nuclear_rocket_strike_moon', 4, 'Rocket Strike Moon', 2, 2, 'before_first_invasion'),
    ('nuclear_scatter_bomb_land', 4, 'Scatter Bomb Land', 3, 1, 'before_first_invasion'),
    ('nuclear_scatter_bomb_water', 4, 'Scatter Bomb Water', 2, 1, 'before_first_invasion'),
    ('nuclear_scatter_bomb_moon', 4, 'Scatter Bomb Moon', 2, 1, 'before_first_invasion'),
)

# cards per deck: Land, Diplomat, Naval, Space, Nuclear
DECK_SIZES: tuple[int, ...] = (
    20,
    20,
    20,
    20,
    20,
)
