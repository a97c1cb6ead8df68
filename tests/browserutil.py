"""Debian's Chromium driven by Playwright, for the browser tests (tests/test_web_browser.py,
tests/test_web_review.py): where it is, how it starts, the two screen sizes, and the rule
for a machine without it (skip with one line, but fail under ``CI=true``, where .ci/run
installs it)."""
from __future__ import annotations

import os
import shutil
from contextlib import contextmanager

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 860}


def _missing() -> str | None:
    need = []
    if not os.path.exists(CHROMIUM):
        need.append("Debian's chromium (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        need.append("playwright (pip install playwright)")
    return " and ".join(need) or None


def require_browser() -> None:
    """Called at a test module's top: skips the module with one line when the browser or
    Playwright is missing, fails it instead under ``CI=true``."""
    missing = _missing()
    if missing:
        if os.environ.get("CI") == "true":
            pytest.fail(f"browser tests need {missing}", pytrace=False)
        pytest.skip(f"browser tests need {missing}", allow_module_level=True)


@contextmanager
def chromium(tmp_path_factory, viewport: dict, timeout_ms: int):
    """A browser context of its own profile (a persistent context is the one that takes a
    user data directory of our own), closed on the way out."""
    from playwright.sync_api import sync_playwright
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=FLAGS,
            viewport=viewport)
        ctx.set_default_timeout(timeout_ms)
        try:
            yield ctx
        finally:
            ctx.close()
