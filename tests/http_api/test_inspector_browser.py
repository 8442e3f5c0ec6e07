"""The inspector page in a real headless browser (Debian's chromium, driven by Playwright).

Type a turn, click the confirmation card, see the receipt and the act-by-act view. The
screenshot is kept as a test artifact in ``build/test-artifacts/`` (and the test's tmp dir).
Skips, saying why, when Playwright or a chromium executable is missing.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from server_kit import REPO, serving

ARTIFACTS = REPO / "build" / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    for candidate in (os.environ.get("TURNFRAME_TEST_CHROMIUM"), "/usr/bin/chromium"):
        if candidate and Path(candidate).is_file():
            return candidate
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("no chromium executable (apt-get install chromium; .ci/run installs it)")
    return found


def test_the_inspector_shows_a_turn_its_card_the_receipt_and_the_act_view(
    tmp_path: Path,
) -> None:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (the [test] extra has it)"
    )
    executable = _chromium()
    with (
        serving(tmp_path / "inspected.db", "--workflow", "travel-desk") as served,
        sync_api.sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=executable,
            headless=True,
            args=FLAGS,
            viewport={"width": 1200, "height": 1400},
        )
        try:
            page = browser.new_page()
            page.goto(served.url + "/")
            expect = sync_api.expect
            # Every form control has a label.
            unlabelled = page.evaluate(
                "[...document.querySelectorAll('input, select, textarea')]"
                ".filter((c) => c.labels.length === 0).map((c) => c.id)"
            )
            assert unlabelled == []
            expect(page.get_by_label("Workflow")).to_have_value("travel-desk")
            page.get_by_role("button", name="Start a new session").click()
            message = page.get_by_label("Message")
            expect(message).to_be_enabled()
            message.fill("Rebook the return flight to March 20.")
            message.press("Enter")  # the keyboard sends

            card = page.locator("#card")
            expect(card).to_be_visible()
            expect(card).to_contain_text('date = "2026-03-20"')
            first = page.locator("li.turn").nth(0)
            expect(first.get_by_role("table")).to_contain_text("NOT YET")
            expect(first).to_contain_text("turnframe.act.awaiting_confirmation")
            expect(first).to_contain_text("rules interpret (first) → ok · used")

            card.get_by_role("button", name="confirm").click()
            second = page.locator("li.turn").nth(1)
            expect(second.locator(".block.receipt")).to_contain_text("rebooked")
            expect(second).to_contain_text("option confirm on card")
            expect(second).to_contain_text("Committed events: rebooked on demo:travel-desk:lisbon")
            expect(card).to_be_hidden()
            expect(page.locator("li.turn")).to_have_count(2)

            screenshot = tmp_path / "inspector.png"
            page.screenshot(path=str(screenshot), full_page=True)
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(screenshot, ARTIFACTS / "inspector.png")
        finally:
            browser.close()
        assert served.stop() == 0
