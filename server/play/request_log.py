"""Every DecisionRequest of one game: the seat it was sent to and what became of it, kept for the whole
game so that a reply to any of them that is not applied is told why.

Request ids count from 1 in each game. One byte for the seat and one for the fate of each request: a long
game sends tens of thousands.
"""

from __future__ import annotations

from typing import Final

FATES: Final = ("open", "answered", "timed out", "replaced", "cancelled")
"""What becomes of a request; a request is "open" until its seat's answer is applied, its deadline passes,
it is sent again after a reconnect, or the game is cut short."""
OPEN: Final = FATES.index("open")


class RequestLog:
    """The requests of one game (``GameRunner`` opens and closes them)."""

    def __init__(self) -> None:
        self._asked = bytearray()
        """The seat each request was sent to, by request id - 1."""
        self._fates = bytearray()
        """What became of each request, as an index into ``FATES``."""

    def open(self, index: int) -> int:
        """A request to seat ``index``, sent now: its id."""
        self._asked.append(index)
        self._fates.append(OPEN)
        return len(self._asked)

    def close(self, request_id: int, fate: str) -> None:
        """What became of the open request ``request_id`` (one of ``FATES`` but "open")."""
        self._fates[request_id - 1] = FATES.index(fate)

    def why_not_applied(self, request_id: int, index: int, open_request: int) -> tuple[str, bool]:
        """Why a decision of seat ``index`` for ``request_id``, not its open request (``open_request``, 0:
        none), is not applied; and whether it is late (the request timed out: the default was played)."""
        asked, fate = -1, ""
        if 0 < request_id <= len(self._asked):
            asked, fate = self._asked[request_id - 1], FATES[self._fates[request_id - 1]]
        late = asked == index and fate == "timed out"
        if late:
            why = "it arrived after its deadline; the default action was played"
        elif asked == index:
            why = f"request {request_id} was already {fate}"
        elif asked >= 0:
            why = f"request {request_id} was not sent to your seat ({index})"
        else:
            why = f"there is no request {request_id} in this game"
        if open_request:
            why += f"; your open request is {open_request}"
        return f"decision not applied: {why}", late
