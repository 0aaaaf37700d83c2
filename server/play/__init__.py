"""Live play: bot sessions, the lobby and matchmaking, one runner per game, seats, clocks and the wire.

A decision's path: ``stream`` reads it off the bot's gRPC stream, the game's ``runner`` has the engine
judge and apply it, and ``wire`` writes the next request. Play never imports ``server.storage``: it talks
to the small Protocols in ``server.play.ports``, which ``server.app`` wires to the database.
"""
