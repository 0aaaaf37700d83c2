"""Headless Chromium for the dashboard's browser tests (issue 8): Debian's Chromium (.ci/chromium.sh, run by
``make unit``) driven by Playwright by path, never a downloaded browser."""

from __future__ import annotations

import os

from playwright.async_api import Browser, Page

CHROMIUM = os.environ.get("CONQUEST_TEST_CHROMIUM", "/usr/bin/chromium")
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


async def open_page(browser: Browser, url: str) -> tuple[Page, list[str]]:
    """A fresh page at ``url`` (a laptop-sized window) and the list its console errors collect into."""
    page = await browser.new_page(viewport={"width": 1366, "height": 860})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(url)
    return page, errors
