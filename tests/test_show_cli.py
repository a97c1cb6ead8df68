"""``palace show``: pictures, --json, --text, and exit status 2 on invalid positions."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from palace_solver.cli.main import cli
from position_fixtures import DATA, GOOD, GOOD_TEXT  # noqa: E402

from palace_solver.game.position import Position, to_text

CASES = [json.loads(x) for x in DATA.read_text().splitlines()]



def palace_script() -> str:
    here = Path(sys.executable).parent / "palace"
    if here.exists():
        return str(here)
    found = shutil.which("palace")
    if found is None:
        pytest.skip("the palace script is not installed")
    return found


def _assert_invalid(code: int, stdout: str, stderr: str, fragment: str) -> None:
    assert code == 2, (stdout, stderr)
    assert stdout == ""
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("palace: invalid position: ")
    assert fragment in lines[0]
    assert "Traceback" not in stderr


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_invalid_as_argument(case):
    r = CliRunner().invoke(cli, ["show", case["input"]])
    assert r.exception is None or isinstance(r.exception, SystemExit), r.exception
    _assert_invalid(r.exit_code, r.stdout, r.stderr, case["expect"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_invalid_from_stdin_and_file(case, tmp_path):
    r = CliRunner().invoke(cli, ["show", "-"], input=case["input"])
    _assert_invalid(r.exit_code, r.stdout, r.stderr, case["expect"])
    f = tmp_path / "pos.json"
    f.write_text(case["input"])
    r = CliRunner().invoke(cli, ["show", "--json", str(f)])
    _assert_invalid(r.exit_code, r.stdout, r.stderr, case["expect"])


@pytest.mark.parametrize("name", ["bad_json", "five_of_a_rank", "counts_do_not_add_up",
                                  "text_unknown_section"])
def test_invalid_through_the_installed_script(name, tmp_path):
    case = next(c for c in CASES if c["name"] == name)
    exe = palace_script()
    r = subprocess.run([exe, "show", case["input"]], capture_output=True, text=True,
                       timeout=60)
    _assert_invalid(r.returncode, r.stdout, r.stderr, case["expect"])
    f = tmp_path / "bad.json"
    f.write_text(case["input"])
    r = subprocess.run([exe, "show", "-"], input=case["input"], capture_output=True,
                       text=True, timeout=60)
    _assert_invalid(r.returncode, r.stdout, r.stderr, case["expect"])


def test_missing_file():
    r = CliRunner().invoke(cli, ["show", "no/such/position.json"])
    _assert_invalid(r.exit_code, r.stdout, r.stderr, "no such file")


def test_picture():
    r = CliRunner().invoke(cli, ["show", GOOD_TEXT])
    assert r.exit_code == 0, r.output
    out = r.stdout
    assert "player 0 (me) to move" in out
    assert "K K + 3 unknown" in out
    assert "A 10" in out
    assert "top 6x2, to beat: 6" in out
    assert "draw pile: 27" in out
    assert "unseen:    36 = 6 face-down + 3 unknown hand + 27 draw pile" in out
    marked = [line for line in out.splitlines() if line.startswith(">")]
    assert len(marked) == 1 and " me " in marked[0]
    assert r.stderr == ""


def test_picture_extras():
    obj = dict(json.loads(json.dumps(GOOD)), perspective=1, direction=-1, last_player=1,
               rules={"base": "standard", "variants": ["invisible_8", "back_to_last_player"]},
               pile=["5", "6", "8"])
    obj["players"][0]["hand"] = ["3", "7", "6"]
    r = CliRunner().invoke(cli, ["show", json.dumps(obj)])
    assert r.exit_code == 0, r.output
    assert "seen by: player 1 (bob)" in r.stdout
    assert "reversed" in r.stdout and "played by player 1 (bob)" in r.stdout
    assert "to beat: 6" in r.stdout and "invisible_8" in r.stdout


def test_json_and_text_outputs_round_trip(tmp_path):
    r = CliRunner().invoke(cli, ["show", "--json", GOOD_TEXT])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout) == GOOD
    f = tmp_path / "pos.json"
    f.write_text(json.dumps(GOOD, indent=2))
    r = CliRunner().invoke(cli, ["show", "--text", str(f)])
    assert r.exit_code == 0, r.output
    assert r.stdout == GOOD_TEXT + "\n"
    r = CliRunner().invoke(cli, ["show", "--text", "-"], input=r.stdout)
    assert r.stdout == GOOD_TEXT + "\n"
    assert to_text(Position.from_json(GOOD)) == GOOD_TEXT


def test_script_prints_picture():
    r = subprocess.run([palace_script(), "show", GOOD_TEXT], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "K K + 3 unknown" in r.stdout and r.stderr == ""


def test_help_lists_show():
    r = CliRunner().invoke(cli, ["--help"])
    assert r.exit_code == 0 and "show" in r.stdout
