"""The read-only web dashboard and the replay viewer (pages, JSON API and the standalone replay page)."""
