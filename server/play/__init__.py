"""Live play: bot sessions, the lobby and matchmaking, one runner per game, seats, clocks and the wire.

A decision's path: ``stream`` reads it off the bot's gRPC stream, the game's ``runner`` has the engine
judge and apply it (``convert`` turns the protobuf action into the engine's), and ``messages`` builds the
next request, which ``wire`` writes in protobuf's wire format. Around the runner: ``event_log`` (what each
seat has been sent), ``request_log`` (each request's seat and fate, to tell a reply that is not applied
why), ``spectators``, ``results`` (GameOver and the stored result), ``replays`` (where
finished games go), ``seats`` and ``clock``. Before a game: ``admission`` (which streams the server
takes), ``hello`` (whether a Hello lets a bot in), ``session`` (a connected bot), ``lobby``, ``matchmaker``
and ``pairing``, and ``waiting`` (what the bots in a queue are told of it); ``mailbox`` bounds what waits for
a stream's reader; ``refusals`` says what a bot is told when what it sent is refused (a Decision for no
game of its, messages over its rate). During one: ``live_records`` keeps the record of every running game
(``.live`` files or the action log) and rebuilds the games a crash cut short. After one: ``recorder``
keeps results on disk until the database has them.
``offline`` plays SDK bots in-process through the same messages (for the bot benchmarks and tests). Play
never imports ``server.storage``: it talks to the small Protocols in ``server.play.ports``, which
``server.app`` wires to the database.
"""
