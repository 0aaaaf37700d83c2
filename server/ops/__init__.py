"""Running the server: configuration, metrics, logs, the event loop and the guard on every gRPC call, used by
every other room."""
