"""The browser every dashboard browser test drives (``tests/support/browser.py``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from chromium import CHROMIUM, LAUNCH_ARGS
from playwright.async_api import Browser, async_playwright


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: run .ci/chromium.sh (make unit does)"
    async with async_playwright() as playwright:
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield chromium
        await chromium.close()
