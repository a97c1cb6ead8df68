"""The page in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
build a position by tapping and analyze it (the table equals ``palace analyze --json``),
play the best move and step back, follow a short live game with a hint and a reload.

Outside CI a missing browser skips these tests with one line; under ``CI=true`` it fails
them. ``PALACE_SCREENSHOTS=DIR`` keeps the screenshots (docs/web.md's are made that way:
``PALACE_SCREENSHOTS=docs/screenshots pytest tests/test_web_browser.py``).
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from palace_solver.cli.main import cli
from browserutil import DESKTOP, PHONE, chromium, require_browser
from webutil import Server

from palace_solver.live.session import Session

BURNED = ("2 2 2 2 3 3 3 3 4 4 5 5 5 6 6 7 7 7 7 8 8 8 8 9 9 9 10 10 10 10 J J J J Q Q Q Q "
          "K K A A A A")
#: examples/endgame.json, canonical text form.
ENDGAME = (f"standard | me: K K / - / 2 ; bob: - / - / 1 | pile 4 6 6 | burned {BURNED} "
           f"| draw 0 | to_move 0")


require_browser()


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory, PHONE, 20_000) as ctx:
        yield ctx


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("sessions"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    d = os.environ.get("PALACE_SCREENSHOTS")
    path = Path(d) if d else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture()
def page(browser):
    pg = browser.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert not errors, errors


def idle(pg):
    pg.wait_for_selector('body[data-busy="0"]', state="attached")


def tap(pg, selector, times=1):
    for _ in range(times):
        pg.click(selector)
        idle(pg)


def screenshot(pg, shots, name):
    for label, size in (("phone", PHONE), ("desktop", DESKTOP)):
        pg.set_viewport_size(size)
        pg.wait_for_timeout(150)
        pg.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=True)
    pg.set_viewport_size(PHONE)


def cli_json(*args) -> dict:
    r = CliRunner().invoke(cli, ["analyze", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def table_rows(pg) -> list[list]:
    return pg.eval_on_selector_all(
        "#movetable tbody tr",
        "trs => trs.map(tr => [tr.dataset.move, ...Array.from("
        "tr.querySelectorAll('td[data-loss]')).map(td => Number(td.dataset.loss))])")


def test_build_by_tapping_analyze_play_and_step_back(page, server, shots):
    pg = page
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    tap(pg, "#new")                                     # two empty players, 3 face-down each
    pg.wait_for_selector("#check.bad")
    tap(pg, '.player[data-seat="0"] [data-counter="down"] button[aria-label^="fewer"]')
    tap(pg, '.player[data-seat="1"] [data-counter="down"] button[aria-label^="fewer"]', 2)
    tap(pg, '.palette button[data-rank="K"]', 2)        # into me's hand (the target)
    tap(pg, '.zone[data-zone="pile"]')
    for r in ("4", "6", "6"):
        tap(pg, f'.palette button[data-rank="{r}"]')
    # the message says what is wrong, next to the draw pile (the unseen count)
    assert "unseen cards" in pg.inner_text("#check")
    assert pg.locator(".middle.bad").count() == 1
    tap(pg, "text=burn the rest")
    for r in ("4", "5", "9"):                           # three cards stay unseen (face-down)
        tap(pg, f'.zone[data-zone="burned"] [data-rank="{r}"]')
    pg.wait_for_selector("#check.ok")
    assert pg.input_value("#export-text") == ENDGAME
    assert json.loads(pg.input_value("#export-json"))["pile"] == ["4", "6", "6"]

    pg.click("#analyze")
    pg.wait_for_selector("#movetable")
    want = cli_json(ENDGAME)        # the page's default analysis is the command line's
    assert table_rows(pg) == [[m["move"], *m["loss_probability"]] for m in want["moves"]]
    first = pg.inner_text("#movetable tbody tr:first-child")
    assert "33.33%" in first and "66.67%" in first
    assert "method exact" in pg.inner_text("#result-info")
    assert "=" in pg.inner_text("#movetable")           # K and Kx2 tie
    pg.click("#export summary")
    screenshot(pg, shots, "board")

    # play the best move: bob is to flip; the flip is a chance event offered as choices
    pg.click("#movetable tbody tr:first-child")
    pg.wait_for_selector("text=step 1 of 1")
    idle(pg)
    assert "l=K" in pg.url
    assert pg.inner_text("#node").startswith("bob to move")
    tap(pg, '#node button[data-move="flip"]')
    pg.wait_for_selector("#node.chance")
    cards = pg.eval_on_selector_all("#node .outcome", "bs => bs.map(b => b.dataset.card)")
    assert cards == ["4", "5", "9"]
    screenshot(pg, shots, "board-chance")
    tap(pg, '#node .outcome[data-card="9"]')
    pg.wait_for_selector("text=step 3 of 3")
    # step back through the line, and forward again
    tap(pg, "#back")
    pg.wait_for_selector("#node.chance")
    tap(pg, "#first")
    pg.wait_for_selector("text=step 0 of 3")
    assert table_rows(pg) == [[m["move"], *m["loss_probability"]] for m in want["moves"]]
    assert pg.locator(".palette").count() == 1          # back at the start: editable
    tap(pg, "#forward")
    pg.wait_for_selector("text=step 1 of 3")
    # the shareable URL brings back the same line at the same step
    url = pg.url
    pg.goto("about:blank")
    pg.goto(url)
    pg.wait_for_selector("text=step 1 of 3")
    assert pg.inner_text("#node").startswith("bob to move")


def test_paste_shows_the_error_then_loads(page, server):
    pg = page
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    pg.click("#export summary")
    pg.fill("#paste", "standard | me: 7 7 7 7 7 / - / 1 ; bob: K / - / 1 | to_move 0")
    tap(pg, "#load")
    assert "5 cards of rank 7" in pg.inner_text("#paste-error")
    pg.fill("#paste", ENDGAME.replace("me: K K", "me: K Q").replace("Q Q Q Q", "Q Q Q K"))
    tap(pg, "#load")
    pg.wait_for_selector("#check.ok")
    assert pg.input_value("#export-text").startswith("standard | me: Q K / - / 2")


def test_live_game_with_a_hint_and_a_reload(page, server, shots):
    pg = page
    pg.goto(server.url + "/#/live")
    pg.wait_for_selector("#new-names")
    pg.fill("#new-names", "me bob")
    pg.fill("#new-hand", "9 9 K")
    pg.fill("#new-up-me", "2 J Q")
    pg.fill("#new-up-bob", "4 4 A")
    pg.fill("#new-first", "bob")
    pg.fill("#new-file", "browser-game")
    screenshot(pg, shots, "live-new")
    tap(pg, "#start-game")
    pg.wait_for_selector("#live-status")
    assert "bob's turn" in pg.inner_text("#live-status")

    tap(pg, '#ranks button[data-rank="5"]')             # bob plays a 5
    assert "your turn" in pg.inner_text("#live-status")
    # an event the rules refuse: the terminal's message, and nothing changes
    tap(pg, '.who button[data-who="bob"]')
    tap(pg, '#ranks button[data-rank="3"]')
    path = Path(pg.inner_text("#live-file"))
    refusal = Session.load(str(path)).try_apply("bob 3").message
    assert pg.inner_text("#reply") == f"refused: {refusal}"
    assert Session.load(str(path)).events == ["bob 5"]
    tap(pg, '.who button[data-who="me"]')
    tap(pg, '.who button[data-count="2"]')
    tap(pg, '#ranks button[data-rank="9"]')             # me 9x2: then two draws to enter
    assert "you drew" in pg.inner_text("#mode")
    tap(pg, '#ranks button[data-rank="7"]')
    tap(pg, '#ranks button[data-rank="K"]')
    assert "bob's turn" in pg.inner_text("#live-status")
    assert pg.inner_text("#unseen").count("\n") > 5
    pg.fill("#hint-time", "0.5")
    pg.dispatch_event("#hint-time", "change")
    tap(pg, "#hint")
    pg.wait_for_selector("#hint-panel #hinttable")
    assert "· search ·" in pg.inner_text("#hint-panel")   # the engine's search
    assert "the others hold" in pg.inner_text("#hint-panel")
    screenshot(pg, shots, "live")
    events = pg.eval_on_selector_all("#events li", "ls => ls.map(l => l.textContent)")
    assert events == ["bob 5", "me 9x2", "draw 7", "draw K"]
    table = pg.inner_text(".table")

    pg.reload()
    pg.wait_for_selector("#live-status")
    assert pg.eval_on_selector_all("#events li", "ls => ls.map(l => l.textContent)") == events
    assert pg.inner_text(".table") == table
    assert "bob's turn" in pg.inner_text("#live-status")
    tap(pg, "#pickup")                                   # the game goes on after the reload
    assert "your turn" in pg.inner_text("#live-status")
    tap(pg, "#undo")
    assert Session.load(str(path)).events == events


def test_live_from_the_deal_choose_the_face_up_cards(page, server, shots):
    pg = page
    pg.goto(server.url + "/#/live")
    pg.wait_for_selector("#new-names")
    pg.fill("#new-names", "me bob")
    pg.fill("#new-deal", "3 7 A 10 2 K")
    assert pg.locator("#new-hand").count() == 0         # the hand comes from the deal
    pg.fill("#new-file", "dealt")
    tap(pg, "#start-game")
    pg.wait_for_selector("#live-status")
    assert "waiting for the face-up cards of you and bob" in pg.inner_text("#live-status")
    pg.fill("#hint-time", "0.3")
    pg.dispatch_event("#hint-time", "change")
    tap(pg, "#hint")
    pg.wait_for_selector("#hint-panel #hinttable")
    assert pg.locator("#hinttable tbody tr").count() == 20
    screenshot(pg, shots, "live-deal")
    for r in ("10", "A", "K"):                          # your face-up cards, one tap each
        tap(pg, f'#ranks button[data-rank="{r}"]')
    assert "bob" in pg.inner_text("#mode")
    for r in ("5", "9", "J"):
        tap(pg, f'#ranks button[data-rank="{r}"]')
    assert "waiting for the face-up cards" not in pg.inner_text("#live-status")
    events = pg.eval_on_selector_all("#events li", "ls => ls.map(l => l.textContent)")
    assert events == ["me up 10 K A", "bob up 5 9 J"]


def test_a_closed_tab_cancels_its_analysis(browser, server):
    hidden = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
              "| burned 10 4 4 4 4 | draw 27 | to_move 0")
    before = server.request("/api/status")[1]
    pg = browser.new_page()
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    pg.click("#export summary")
    pg.fill("#paste", hidden)
    tap(pg, "#load")
    pg.wait_for_selector("#check.ok")
    for key, value in (("samples", "1000000"), ("time", "200")):
        pg.fill(f"#opt-{key}", value)
        pg.dispatch_event(f"#opt-{key}", "change")
    pg.click("#analyze")
    pg.wait_for_selector("#progress progress[value]")   # samples are coming in
    assert server.request("/api/status")[1]["running"] == before["running"] + 1
    pg.close()
    deadline = time.monotonic() + 15
    while server.request("/api/status")[1]["running"] != before["running"]:
        assert time.monotonic() < deadline, "the analysis of the closed tab still runs"
        time.sleep(0.05)
    assert server.request("/api/status")[1]["cancelled"] == before["cancelled"] + 1


ISSUE = ("standard | me: 4 9 J / - / 2 ; bob: 6 Q / 3 / 3 | pile 8 8 | burned 2 2 2 3 3 3 4 4 4 "
         "5 5 5 6 6 6 7 7 7 8 8 9 9 9 10 10 10 10 J J J Q Q Q K K K A A A | to_move 0")


def test_on_a_phone_the_analyze_button_and_its_results_are_on_the_first_screen(page, server,
                                                                                 shots):
    pg = page
    pg.set_viewport_size(PHONE)
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    top = pg.eval_on_selector("#analyze", "el => el.getBoundingClientRect().top")
    assert top < PHONE["height"] / 2, top
    pg.click("#analyze")
    pg.wait_for_selector("#movetable")
    box = pg.eval_on_selector("#movetable", "el => el.getBoundingClientRect().top")
    assert box < PHONE["height"], box
    screenshot(pg, shots, "board-phone-analysis")


def test_unresolved_figures_are_marked_on_the_page(page, server, shots):
    pg = page
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    pg.click("#export summary")
    pg.fill("#paste", ISSUE)
    tap(pg, "#load")
    pg.wait_for_selector("#check.ok")
    pg.fill("#opt-time", "1")
    pg.dispatch_event("#opt-time", "change")
    pg.click("#analyze")
    pg.wait_for_selector("#movetable")
    assert "method depth_limited" in pg.inner_text("#result-info")
    assert "not resolved: 0 of 3 moves proven" in pg.inner_text("#result-info")
    rows = pg.eval_on_selector_all("#movetable tbody tr", "trs => trs.map(tr => tr.innerText)")
    assert len(rows) == 3 and all("~" in r and "estimate" in r for r in rows), rows
    assert "~ marks figures the search did not resolve" in pg.inner_text("#result")
    screenshot(pg, shots, "board-unresolved")


def test_the_live_forms_examples_do_not_look_like_values(page, server, shots):
    pg = page
    pg.goto(server.url + "/#/live")
    pg.wait_for_selector("#new-names")
    pg.fill("#new-names", "me bob")
    pg.wait_for_selector("#new-up-bob")
    holders = pg.eval_on_selector_all(
        "input[placeholder], textarea[placeholder]",
        "els => els.map(e => [e.id, e.placeholder, getComputedStyle(e, '::placeholder')"
        ".fontStyle])")
    holders = [x for x in holders if x[1]]          # (an empty placeholder shows nothing)
    assert len(holders) >= 5
    for ident, text, style in holders:
        assert text.startswith(("e.g.", "or type an event, e.g.")), (ident, text)
        assert style == "italic", (ident, style)
    screenshot(pg, shots, "live-form")


def test_the_page_keeps_the_access_token_for_the_session(page, tmp_path):
    s = Server(tmp_path, "--token", "t0ken-for-the-test")
    try:
        pg = page
        pg.goto(s.url + "/#/board")
        assert "access token" in pg.inner_text("body")          # refused without it
        pg.goto(s.url + "/?token=t0ken-for-the-test#/board")
        pg.wait_for_selector("#check.ok")                        # the page and its API calls
        assert "token=" not in pg.url                            # dropped from the address
        pg.reload()
        pg.wait_for_selector("#check.ok")                        # kept: a session cookie
        pg.click("#analyze")
        pg.wait_for_selector("#movetable")
    finally:
        s.stop()


def test_the_pages_default_analysis_is_the_command_lines(page, server):
    """The issue's case: the board used 200 samples and 5 s, the command line its own
    defaults, and they starred different moves for the same position."""
    hidden = "standard | me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 | draw 32 | to_move 0"
    pg = page
    pg.goto(server.url + "/#/board")
    pg.wait_for_selector("#check.ok")
    pg.click("#export summary")
    pg.fill("#paste", hidden)
    tap(pg, "#load")
    pg.wait_for_selector("#check.ok")
    assert pg.input_value("#opt-time") == "" and pg.input_value("#opt-samples") == ""
    pg.click("#analyze")
    pg.wait_for_selector("#movetable", timeout=120_000)
    want = cli_json(hidden)
    assert table_rows(pg) == [[m["move"], *m["loss_probability"]] for m in want["moves"]]
