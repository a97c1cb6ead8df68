"""The Review tab in a real headless Chromium (as tests/test_web_browser.py): a record
pasted and reviewed, the graph drawn, a tap on the graph moves the board to that decision,
the arrow keys step, a bad record is refused with its line; screenshots at phone and
desktop size (``PALACE_SCREENSHOTS=DIR`` keeps them: docs/screenshots/review-*.png)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from browserutil import DESKTOP, PHONE, chromium, require_browser
from webutil import Server

from palace_solver.agents.play import play_game
from palace_solver.game.rules import Rules
from palace_solver.review.writers import record_from_game

require_browser()


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    with chromium(tmp_path_factory, DESKTOP, 60_000) as ctx:
        pg = ctx.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        assert not errors, errors


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("sessions"))
    yield s
    s.stop()


def idle(pg):
    pg.wait_for_selector('body[data-busy="0"]', state="attached")


def board_ply(pg) -> int:
    return int(pg.get_attribute("#review-board", "data-ply"))


def test_review_tab_graph_tap_and_keys(page, server):
    pg = page
    text = record_from_game(play_game(Rules(), 2, ["greedy", "random"], seed=3)).text()
    pg.goto(server.url + "/#/review")
    pg.wait_for_selector("#review-text")
    pg.fill("#review-text", text)
    pg.fill("#review-nodes", "300")
    pg.click("#review-go")
    pg.wait_for_selector("#review-graph svg polyline")
    pg.wait_for_selector("#review-players td.acc")
    idle(pg)
    seats = pg.eval_on_selector_all("#review-players tbody tr",
                                    "trs => trs.map(t => t.dataset.seat)")
    assert seats == ["greedy", "random"]
    assert pg.locator("#review-graph svg polyline").count() == 2
    assert board_ply(pg) == 1
    # a tap on the graph, two thirds of the way along: the board moves to that decision
    pg.locator("#review-graph svg").scroll_into_view_if_needed()
    box = pg.locator("#review-graph svg").bounding_box()
    pg.mouse.click(box["x"] + box["width"] * 0.66, box["y"] + box["height"] * 0.4)
    idle(pg)
    ply = board_ply(pg)
    assert ply > 30
    assert f"ply {ply}:" in pg.inner_text("#review-ply")
    assert pg.locator(f'#review-graph rect.hit.sel[data-ply="{ply}"]').count() == 1
    assert pg.locator("#review-analysis tbody tr").count() >= 1
    # the arrow keys step to the next and back
    plies = [int(x) for x in pg.eval_on_selector_all("#review-moves tbody tr",
                                                     "trs => trs.map(t => t.dataset.ply)")]
    pg.keyboard.press("ArrowRight")
    assert board_ply(pg) == plies[plies.index(ply) + 1]
    pg.keyboard.press("ArrowLeft")
    assert board_ply(pg) == ply
    # a row of the move list
    pg.click('#review-moves tbody tr[data-ply="5"]')
    assert board_ply(pg) == 5
    shots = os.environ.get("PALACE_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        pg.click(f'#review-moves tbody tr[data-ply="{ply}"]')
        pg.screenshot(path=str(Path(shots) / "review-desktop.png"), full_page=True)
        pg.set_viewport_size(PHONE)
        pg.wait_for_timeout(300)
        pg.screenshot(path=str(Path(shots) / "review-phone.png"), full_page=True)
        pg.set_viewport_size(DESKTOP)


def test_review_tab_phone_tap_and_a_bad_record(page, server):
    pg = page
    pg.set_viewport_size(PHONE)
    try:
        pg.locator("#review-graph svg").scroll_into_view_if_needed()
        box = pg.locator("#review-graph svg").bounding_box()
        assert box["width"] <= PHONE["width"]             # the graph fits the phone
        pg.mouse.click(box["x"] + box["width"] * 0.25, box["y"] + box["height"] * 0.5)
        idle(pg)
        assert 5 < board_ply(pg) < 40
        lines = pg.input_value("#review-text").splitlines()
        i = next(k for k, ln in enumerate(lines) if ln.startswith("random ") and "up" not in ln
                 and "draw" not in ln)
        lines[i] = "random 7x4"
        pg.fill("#review-text", "\n".join(lines))
        pg.click("#review-go")
        pg.wait_for_selector("#review-error")
        assert pg.inner_text("#review-error").startswith(f"line {i + 1} 'random 7x4'")
    finally:
        pg.set_viewport_size(DESKTOP)
