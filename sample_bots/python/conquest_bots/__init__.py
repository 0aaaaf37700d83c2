"""Sample bots built on ``conquest_sdk``: ``random_bot``, ``aggressive`` and ``strategist``.

Each runs as ``python -m conquest_bots.<name> --address HOST:PORT --queue QUEUE --games N`` and plays the
classic games and RISK 2210 A.D. (``aggressive_2210``, ``strategist_2210`` and ``cards_2210`` hold the
aggressive and strategist bots' 2210 play; ``python -m conquest_bots.strategist_2210`` runs the strategist
on the ``2210-4`` queue by default).
``roster`` names them and the matchups that measure them (``server.play.offline`` plays those in-process);
``first_choice`` is the cheapest policy on the raw messages, for load bots. Nothing here imports the engine
or the server: a bot needs only the SDK.
"""
