"""The ``conquest`` command: ``main`` parses and dispatches; one module per group of subcommands."""
