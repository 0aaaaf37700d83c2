"""Issue 23 item 3: "GameOver.seed is a 63-bit uint64; JavaScript clients with default long handling lose
precision ... The docs warn about request_id only." docs/protocol.md must warn about both."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _warning() -> str:
    """The paragraph of docs/protocol.md that mentions JavaScript's 2^53 limit."""
    guide = (ROOT / "docs" / "protocol.md").read_text()
    (paragraph,) = [p for p in guide.split("\n\n") if "2^53" in p and "JavaScript" in p]
    return " ".join(paragraph.split())


def test_the_protocol_doc_warns_that_seed_and_request_id_need_exact_64_bit_handling() -> None:
    """The warning names `GameOver.seed` and `request_id`, says they are 64-bit, and says how to keep them
    exact (strings: `longs: String`)."""
    warning = _warning()
    assert "`GameOver.seed`" in warning and "`request_id`" in warning
    assert "64-bit" in warning and "`longs: String`" in warning


def test_the_fields_it_names_are_64_bit_in_the_proto_and_the_typescript_kit_reads_longs_as_strings() -> None:
    """What the warning says is so: bot.proto declares GameOver.seed uint64 and every request_id int64, and
    the TypeScript kit (which the warning names) loads the protos with `longs: String`."""
    proto = (ROOT / "proto" / "conquest" / "v1" / "bot.proto").read_text()
    assert "uint64 seed = 3;" in proto[proto.index("message GameOver {") :]
    assert re.findall(r"(\w+) request_id = ", proto) == ["int64"] * 3
    loader = (ROOT / "sample_bots" / "typescript" / "src" / "protocol.ts").read_text()
    assert "longs: String" in loader
