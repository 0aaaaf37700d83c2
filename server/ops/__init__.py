"""Running the server: configuration, metrics, logs and the event loop, used by every other room."""
