"""The organiser's features: the ladder's queries, challenges, tournaments, and the Arena API (gRPC).

``service`` is the gRPC servicer (rate limits, the reader thread, answers kept briefly); ``api``
(``Arena``) does the work that needs the lobby, ``ledger`` (``Ledger``) the read-only records that need
only the database (the dashboard's process uses it alone); ``competitions`` runs challenges and
tournaments on the lobby, ``tournaments`` pairs and ranks them (pure).
"""
