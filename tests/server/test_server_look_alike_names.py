"""Issue 33, item 7: "Look-alike names pass: with `alice`, `modern`, `oliver`, `william` registered, `aIice`,
`a1ice`, `al1ce`, `rnodern`, `0liver`, `vvilliam` and `wi11iam` were welcomed as practice names and four
were registered (`Alice` and `a_lice` are refused, so the rule exists; it should cover confusable
characters too, as Unicode's confusables data does)."

The name key (``server.records.name_key``) takes look-alike characters as one: Unicode's confusables data
restricted to the name alphabet (tests/reference/confusables_names.txt) and the project's table, for every
case of their characters. Registration is tested in tests/storage/test_storage_look_alike_names.py.
"""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from look_alikes import LOOK_ALIKES, REGISTERED

from server.records import (
    CONFUSABLES_VERSION,
    NAME_PATTERN,
    PROJECT_LOOK_ALIKES,
    UNICODE_CONFUSABLES,
    name_key,
)

ADMIN = "look-alike-admin-token"
DIFFERENT = ("alicia", "alive", "modest", "olive", "willow", "bob", "wilma")
"""Names that differ from the registered ones by more than look-alike characters."""
REFERENCE = Path(__file__).parents[1] / "reference" / "confusables_names.txt"


def test_the_issues_look_alikes_share_the_key_of_the_name_they_look_like() -> None:
    """Issue 33, item 7: "`aIice`, `a1ice`, `al1ce`, `rnodern`, `0liver`, `vvilliam` and `wi11iam` were
    welcomed as practice names and four were registered ... it should cover confusable characters too"."""
    for look_alike, original in LOOK_ALIKES.items():
        assert name_key(look_alike) == name_key(original), (look_alike, original)
    for name in ("Alice", "a_lice", "ALICE", "A.l-I_c.E"):  # case and punctuation, as before
        assert name_key(name) == name_key("alice")
    keys = {name_key(n) for n in REGISTERED}
    assert len(keys) == len(REGISTERED)
    assert not keys & {name_key(n) for n in DIFFERENT}


def test_the_unicode_table_is_confusables_txt_for_the_name_alphabet() -> None:
    """Issue 33, item 7: "it should cover confusable characters too, as Unicode's confusables data does":
    ``UNICODE_CONFUSABLES`` is every entry of the committed extract of ``confusables.txt`` (its version
    named) whose source a name may hold, and the extract holds no other entry."""
    text = REFERENCE.read_text(encoding="utf-8")
    version = re.search(r"^# Version: (\S+)$", text, re.MULTILINE)
    assert version is not None and version.group(1) == CONFUSABLES_VERSION
    entries = {}
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        source, target, kind = (field.strip() for field in line.split("#", 1)[0].split(";")[:3])
        assert kind == "MA"
        entries[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    assert entries == dict(UNICODE_CONFUSABLES)
    assert all(NAME_PATTERN.fullmatch(source) for source in entries)
    # the project's own table adds what Unicode lacks, and nothing Unicode has
    assert not set(PROJECT_LOOK_ALIKES) & {c.casefold() for c in UNICODE_CONFUSABLES}


def _skeleton(name: str) -> str:
    """UTS #39's skeleton, written out: each character of the case-folded name, without '.', '_' and
    '-', replaced by the prototype it looks like (Unicode's and the project's, for every case)."""
    prototypes = {
        source.casefold(): target.casefold()
        for table in (UNICODE_CONFUSABLES, PROJECT_LOOK_ALIKES)
        for source, target in table.items()
    }
    return "".join(prototypes.get(c, c) for c in name.casefold() if c not in "._-")


LOOKS = st.text(alphabet="aAcdeiIlL1oO0QmMrRnNvVwWxX._-", min_size=1, max_size=32)


@settings(max_examples=500, deadline=None)
@given(LOOKS, LOOKS)
def test_two_names_share_a_key_exactly_when_their_skeletons_are_equal(one: str, other: str) -> None:
    """Issue 33, item 7: "it should cover confusable characters too": the key (which writes ``rn`` as
    ``m``, and ``vv`` as ``w``, to stay no longer than the name) equals exactly when the skeletons do."""
    assert (name_key(one) == name_key(other)) == (_skeleton(one) == _skeleton(other))
    assert len(name_key(one)) <= len(one)
    assert name_key(name_key(one)) == name_key(one)


async def test_practice_names_that_look_like_registered_bots_are_refused(
    start_server, tmp_path: Path
) -> None:
    """Issue 33, item 7: "with `alice`, `modern`, `oliver`, `william` registered, `aIice`, `a1ice`, `al1ce`,
    `rnodern`, `0liver`, `vvilliam` and `wi11iam` were welcomed as practice names": each is refused, with
    the bot it looks like and what to do instead."""
    server = await start_server(database_url=f"sqlite:///{tmp_path / 'ladder.sqlite3'}", admin_token=ADMIN)
    for name in REGISTERED:
        server.store.register_bot(name, admin_token=ADMIN)
    for look_alike, original in LOOK_ALIKES.items():
        refused = await server.bot().hello(look_alike)
        assert refused.WhichOneof("message") == "error", look_alike
        assert (refused.error.code, refused.error.fatal) == ("name_taken", True)
        message = refused.error.message
        assert f"{look_alike!r} is too like the registered bot {original!r}" in message
        assert "look-alike characters" in message and "choose a name that differs from it" in message
    for name in DIFFERENT:
        assert (await server.bot().hello(name)).WhichOneof("message") == "welcome", name


async def test_a_practice_name_may_not_look_like_a_connected_practice_bots(start_server) -> None:
    """Issue 33, item 7: "it should cover confusable characters too": on a server without a database,
    a practice name that looks like a connected bot's is refused as a case variant is."""
    server = await start_server()
    assert (await server.bot().hello("william")).WhichOneof("message") == "welcome"
    for name in ("vvilliam", "wi11iam", "WiIliam"):
        refused = await server.bot().hello(name)
        assert refused.WhichOneof("message") == "error", name
        assert refused.error.code == "name_taken"
        assert f"{name!r} is too like 'william', a bot connected now" in refused.error.message
        assert "choose a name that differs from it by more than" in refused.error.message
    assert (await server.bot().hello("willow")).WhichOneof("message") == "welcome"
