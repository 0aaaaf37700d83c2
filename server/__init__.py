"""The Conquest game server, in rooms; each room's ``__init__`` says its one job.

- ``server.play``: live play. Bot sessions, the lobby and matchmaking, one runner per game, seats and
  clocks, and the wire (protobuf in and out). The per-decision path lives here.
- ``server.arena``: the organiser's features over finished games: the ladder, challenges, tournaments,
  and the Arena API (gRPC).
- ``server.web``: the read-only web dashboard and the replay viewer.
- ``server.storage``: the database (bots, tokens, games, ratings, challenges, tournaments).
- ``server.cli``: the ``conquest`` command, one module per subcommand group.
- ``server.ops``: what every room uses to run: configuration, metrics, logs, the event loop.
- ``server.train``: training environments over the engine (PettingZoo, Gymnasium); nothing else in the
  server imports it, and only it needs the ``train`` extra (numpy).
- ``server.records``: the values play and storage both speak (results, skills, name rules), so that
  neither imports the other.
- ``server.app``: the composition root, the one place where play, storage, arena and web are wired.
"""
