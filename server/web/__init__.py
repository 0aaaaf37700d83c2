"""The read-only web dashboard and the replay viewer (pages, JSON API and the standalone replay page).

``dashboard`` is the Starlette app; ``process`` runs it in a process of its own, spawned and restarted by
the play process; ``live`` follows the games being played as a client of the play process's Arena API;
``guard`` rate-limits every request, bounds each client's live views and sets the security headers;
``connections`` gives every connection deadlines (its request to arrive, its answer to be read) and bounds
the connections of each client and of all (``limits`` holds these bounds); ``heavy`` computes odds and
replay steps in a worker process; ``replay_view`` turns a replay into the viewer's steps (``replay_2210``
a RISK 2210 A.D. replay's), and ``layout_2210`` says where the 2210 board's territories are drawn.
"""
