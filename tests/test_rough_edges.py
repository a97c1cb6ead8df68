"""Rough edges of `palace analyze`: `--line` names the players and shows the pickup after a
failed flip; `--line` on a position it cannot draw is refused at once, saying why (not a
time budget that was never given); an exact table's footnote speaks of equal figures, not
of intervals."""
from __future__ import annotations

from click.testing import CliRunner

from palace_solver.cli.main import cli

FLIP = "me: - / - / 1 ; bob: K / - / 1 | pile 5 | unseen 3 9 | burned rest | to_move 0"
HIDDEN = "me: 4 9 Q / A K 8 / 3 ; bob: ?3 / 2 J 6 / 3 | pile 3 5 | draw 32 | to_move 0"
TIES = ("standard | me: 3 7 7 / - / 1 ; bob: K K / 2 / 1 | pile 5 | burned 2 2 2 3 3 3 4 4 5 "
        "5 5 6 6 6 6 7 7 8 8 8 8 9 9 9 9 10 10 10 10 J J J J Q Q Q Q K K A A A A | to_move 0")


def run(*args):
    r = CliRunner().invoke(cli, ["analyze", *args])
    assert r.exit_code == 0, r.output
    return r


def test_line_names_the_players_and_shows_the_pickup_after_a_failed_flip():
    out = run(FLIP, "--line").stdout
    line = out.split("best line:", 1)[1]
    assert "turns up 3 (cannot be played: me takes the pile)" in line
    assert "game over, bob loses" in line
    assert "p0" not in line and "p1" not in line


def test_line_on_a_position_without_a_graph_is_refused_before_the_analysis():
    # invalid input as POSITION.md says: exit 2, one line on stderr, nothing on stdout
    for args, why in (([HIDDEN, "--line", "--nodes", "20000"], "hidden hand cards or a draw pile"),
                      ([HIDDEN, "--tree", "t.graphml"], "hidden hand cards or a draw pile"),
                      ([FLIP, "--line", "--depth", "2"], "--depth searches without"),
                      ([FLIP, "--line", "--method", "sampled"], "--method sampled")):
        r = CliRunner().invoke(cli, ["analyze", *args])
        assert r.exit_code == 2 and r.stdout == "", (args, r.output)
        assert why in r.stderr and "time budget" not in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_exact_footnote_speaks_of_equal_figures():
    out = run(TIES).stdout
    assert "tied" in out
    assert "95%" not in out and "interval" not in out
    assert "tied: the same figure as the best move's (*)" in out
