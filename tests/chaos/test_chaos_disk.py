"""Issue 33, item 1, short profile: a small volume filled mid-ladder under each layout of the SQLite database
and ``replay_dir`` (tests/support/chaos_disk.py); ``make chaos`` holds it full longer.

Issue 33: "A finished game must survive any single full or failing volume ... Test it in CI on a small
volume you fill (a tmpfs where the test can mount one, otherwise a file-size limit), for every combination
of database and replay directory on the full volume."
"""

from __future__ import annotations

from pathlib import Path

import chaos_disk
import pytest
from chaos import bounded


@pytest.mark.parametrize("layout", list(chaos_disk.LAYOUTS))
async def test_a_full_volume_loses_no_finished_game_pauses_seating_and_resumes_by_itself(
    tmp_path: Path, layout: str
):
    """Issue 33, item 1: "With `replay_dir` on a full volume and the database elsewhere ... 172 of 241
    finished games were lost"; "With SQLite on the same full volume one run lost 73 of 106 games"."""
    verdict = await bounded(chaos_disk.full_volume(tmp_path, layout, seconds=3), 180)
    assert verdict.tried > 0
    assert verdict.through == [], f"{verdict.title}: {verdict.through}"
    assert verdict.figures["lost"] == 0 and verdict.figures["without_replay"] == 0
