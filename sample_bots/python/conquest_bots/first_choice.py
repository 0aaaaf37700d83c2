"""The cheapest bot policy: the first listed choice, read straight from the protobuf messages.

No SDK helpers and no engine on its path, so a process can play thousands of games with it: the load
bots of ``make bench-server`` and ``make bench-capacity``, and tests that need a bot's answers. It plays
the classic rules (no headquarters or allied decisions).
"""

from __future__ import annotations

from conquest.v1 import bot_pb2, game_pb2


def first_choice(request: bot_pb2.DecisionRequest) -> game_pb2.Action:
    """A trivial, cheap policy on the wire messages: the first listed choice, all armies at once, attack
    from the first source that outnumbers its target by two (one roll per decision), else end the phase."""
    legal = request.legal
    if legal.claim:
        return game_pb2.Action(claim=game_pb2.ClaimAction(territory=legal.claim[0]))
    if legal.must_trade:
        return game_pb2.Action(trade_cards=game_pb2.TradeCardsAction(cards=legal.trades[0].cards))
    if legal.place_territories:
        place = game_pb2.PlaceAction(territory=legal.place_territories[0], armies=legal.place_max)
        return game_pb2.Action(place=place)
    if legal.defend_max:
        return game_pb2.Action(choose_defence=game_pb2.ChooseDefenceAction(dice=legal.defend_max))
    if legal.occupy_max:
        return game_pb2.Action(occupy=game_pb2.OccupyAction(armies=legal.occupy_max))
    armies = request.observation.armies
    for i, source_armies in enumerate(legal.attack_source_armies):
        target = legal.attack_targets[i]
        if source_armies > armies[target] + 2:
            attack = game_pb2.AttackAction(
                source=legal.attack_sources[i], target=target, dice=legal.attack_max_dice[i]
            )
            return game_pb2.Action(attack=attack)
    return game_pb2.Action(end_phase=game_pb2.EndPhaseAction())
