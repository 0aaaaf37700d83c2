"""Sample bots built on ``conquest_sdk``: ``random_bot``, ``aggressive`` and ``strategist``.

Each runs as ``python -m conquest_bots.<name> --address HOST:PORT --queue QUEUE --games N``.
``evaluate`` plays them against each other in-process (it alone imports the engine and server).
"""
