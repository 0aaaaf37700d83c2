"""Running the server, used by every other room: ``config`` (the settings and their defaults),
``config_file`` (the TOML file and the environment over them),
``metrics`` (every Prometheus metric) and ``histogram`` (the decision-path buckets), ``logs``, ``runtime``
(the event loop), ``calls`` (what every gRPC call passes: size bounds, the fault log, the client's address),
``ratelimit`` (token buckets by client) and ``bounded`` (a bounded queue in front of a thread or process
pool)."""
