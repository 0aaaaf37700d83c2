"""The organiser's features: the ladder's queries, challenges, tournaments, and the Arena API (gRPC)."""
