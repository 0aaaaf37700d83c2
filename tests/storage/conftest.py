"""Storage test fixtures: ``store``, opened with the test admin token on each database of ``db_url``
(conftest.py at the root: SQLite, and PostgreSQL when CONQUEST_TEST_POSTGRES_URL is set)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from storage_support import ADMIN

from server.storage import Store


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    with Store.open(db_url, admin_token=ADMIN) as opened:
        yield opened
