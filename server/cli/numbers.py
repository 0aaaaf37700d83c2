"""Whole-number arguments of the subcommands, checked where they are parsed: a count the server would
refuse, or that overflows its protobuf field, is a one-line usage error instead of a traceback."""

from __future__ import annotations

import argparse
from collections.abc import Callable

INT32_MAX = 2**31 - 1
"""The largest value of a protobuf ``int32`` field (the Arena API's counts)."""


def whole_number(low: int, high: int = INT32_MAX) -> Callable[[str], int]:
    """An argparse ``type`` that accepts a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{value} is out of range: give a whole number from {low} to {high}"
            )
        return value

    return parse
