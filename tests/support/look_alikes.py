"""Issue 33, item 7's names: "with `alice`, `modern`, `oliver`, `william` registered, `aIice`, `a1ice`,
`al1ce`, `rnodern`, `0liver`, `vvilliam` and `wi11iam` were welcomed as practice names"."""

from __future__ import annotations

REGISTERED = ("alice", "modern", "oliver", "william")
LOOK_ALIKES = {
    "aIice": "alice",
    "a1ice": "alice",
    "al1ce": "alice",
    "rnodern": "modern",
    "0liver": "oliver",
    "vvilliam": "william",
    "wi11iam": "william",
}
"""The issue's look-alikes, each with the registered name it looks like."""
