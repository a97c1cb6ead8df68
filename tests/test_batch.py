"""The batch layer (palace_solver.jobs.batch): order, determinism across workers, the output
file (resume, damaged last line, another batch's file), errors."""
import json
import os
import random

import pytest

from palace_solver.jobs.batch import (BatchError, finished_results, rename_tasks, run_batch,
                                      task_seed)


def draw(task):
    """A task whose result depends on its seed only, with a random running time so that
    completion order differs from task order under several processes."""
    rng = random.Random(task["seed"])
    x = sum(rng.random() for _ in range(2000 + rng.randrange(20000)))
    return {"id": task["id"], "x": x, "pid": None}


def fail_on_three(task):
    if task["id"] == 3:
        raise RuntimeError("task three fails")
    return {"v": task["id"]}


def _tasks(n, seed=5):
    return [{"id": i, "seed": task_seed(seed, i)} for i in range(n)]


def test_task_seed_stable_and_distinct():
    assert task_seed(0, 1) == task_seed(0, 1)
    # a fixed value: a change in the derivation changes every batch's results
    assert task_seed(7, "a") == int.from_bytes(
        __import__("hashlib").blake2b(b"7:a", digest_size=8).digest(), "big") >> 1
    seeds = {task_seed(s, t) for s in range(20) for t in range(50)}
    assert len(seeds) == 1000
    assert all(0 <= x < 2 ** 63 for x in seeds)


def test_order_and_determinism_jobs_1_vs_2():
    tasks = _tasks(24)
    one = run_batch(draw, tasks, jobs=1)
    two = run_batch(draw, tasks, jobs=2)
    assert one == two
    assert [r["id"] for r in one] == list(range(24))
    assert len({r["x"] for r in one}) == 24


def test_output_file_same_bytes_for_any_workers(tmp_path):
    tasks = _tasks(16)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    ra = run_batch(draw, tasks, jobs=1, output=a, label="draws")
    rb = run_batch(draw, tasks, jobs=2, output=b, label="draws")
    assert ra == rb
    assert a.read_bytes() == b.read_bytes()
    lines = a.read_text().splitlines()
    head = json.loads(lines[0])
    assert head["palace_batch"] == 1 and head["tasks"] == 16 and head["label"] == "draws"
    assert [json.loads(x)["id"] for x in lines[1:]] == list(range(16))
    assert [json.loads(x)["result"] for x in lines[1:]] == ra



def test_resume_skips_finished_and_cuts_damaged_last_line(tmp_path, monkeypatch):
    tasks = _tasks(10)
    full = tmp_path / "full.jsonl"
    expected = run_batch(draw, tasks, output=full)
    lines = full.read_bytes().splitlines(keepends=True)
    # a partial run: header, tasks 0..5 in a shuffled order, then half a line
    part = tmp_path / "part.jsonl"
    body = lines[1:7]
    random.Random(1).shuffle(body)
    part.write_bytes(lines[0] + b"".join(body) + lines[7][:20])
    calls = []
    import palace_solver.jobs.batch as batch

    def spy(task):
        calls.append(task["id"])
        return draw(task)
    spy.__module__, spy.__qualname__ = draw.__module__, draw.__qualname__  # same batch
    got = batch.run_batch(spy, tasks, output=part)
    assert sorted(calls) == [6, 7, 8, 9]  # nothing finished is redone
    assert got == expected
    assert part.read_bytes() == full.read_bytes()
    calls.clear()
    assert batch.run_batch(spy, tasks, output=part) == expected  # all done: no work
    assert calls == []


def test_damaged_line_in_the_middle_is_refused(tmp_path):
    tasks = _tasks(4)
    f = tmp_path / "o.jsonl"
    run_batch(draw, tasks, output=f)
    lines = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(lines[0] + lines[1] + b'{"id": 1, "res\n' + lines[3])
    with pytest.raises(BatchError, match="line 3 is damaged"):
        run_batch(draw, tasks, output=f)


def test_damaged_last_full_line_is_cut(tmp_path):
    tasks = _tasks(4)
    f = tmp_path / "o.jsonl"
    full = run_batch(draw, tasks, output=f)
    good = f.read_bytes()
    lines = good.splitlines(keepends=True)
    f.write_bytes(lines[0] + lines[1] + b"\0\0\0garbage\n")
    assert run_batch(draw, tasks, output=f) == full
    assert f.read_bytes() == good


def test_output_of_another_batch_is_refused(tmp_path):
    f = tmp_path / "o.jsonl"
    run_batch(draw, _tasks(4), output=f)
    before = f.read_bytes()
    with pytest.raises(BatchError, match="another batch") as e:
        run_batch(draw, _tasks(4, seed=6), output=f)
    assert "\n" not in str(e.value)
    with pytest.raises(BatchError, match="another batch"):
        run_batch(fail_on_three, _tasks(4), output=f)  # same tasks, another function
    assert f.read_bytes() == before  # left untouched


def test_a_renamed_batch_resumes_under_its_new_tasks_and_keeps_its_results(tmp_path):
    f = tmp_path / "o.jsonl"
    begun = [dict(t, name="old") for t in _tasks(4)]
    run_batch(draw, begun, output=f)
    lines = f.read_text().splitlines()[:3]
    f.write_text("\n".join(lines) + "\n")                     # two tasks finished
    renamed = [dict(t, name="new") for t in _tasks(4)]
    with pytest.raises(BatchError, match="another batch"):
        run_batch(draw, renamed, output=f)
    seen = []
    assert rename_tasks(f, draw, begun, renamed, check=seen.append)
    assert [sorted(d) for d in seen] == [[0, 1]]            # the finished results, by id
    assert f.read_text().splitlines()[1:] == lines[1:]
    assert rename_tasks(f, draw, begun, renamed) is False   # moved already
    got = run_batch(draw, renamed, output=f)
    assert got == run_batch(draw, begun)
    assert len(finished_results(f)) == 4


def test_a_rename_is_refused_by_its_check_or_for_other_ids(tmp_path):
    f = tmp_path / "o.jsonl"
    begun = [dict(t, name="old") for t in _tasks(3)]
    run_batch(draw, begun, output=f)
    before = f.read_bytes()

    def refuse(done):
        raise SystemExit("comes out otherwise")
    renamed = [dict(t, name="new") for t in _tasks(3)]
    with pytest.raises(SystemExit, match="otherwise"):
        rename_tasks(f, draw, begun, renamed, check=refuse)
    with pytest.raises(BatchError, match="task ids"):
        rename_tasks(f, draw, begun, renamed[:2])
    assert f.read_bytes() == before
    assert rename_tasks(tmp_path / "none.jsonl", draw, begun, renamed) is False


def test_foreign_file_and_stray_ids_are_refused(tmp_path):
    f = tmp_path / "positions.jsonl"
    f.write_text('{"hands": []}\n')
    with pytest.raises(BatchError, match="not a batch output"):
        run_batch(draw, _tasks(2), output=f)
    assert f.read_text() == '{"hands": []}\n'
    g = tmp_path / "o.jsonl"
    run_batch(draw, _tasks(3), output=g)
    head = g.read_text().splitlines()[0]
    g.write_text(head + "\n" + json.dumps({"id": 99, "result": {}}) + "\n")
    with pytest.raises(BatchError, match="99 is not in this batch"):
        run_batch(draw, _tasks(3), output=g)


def test_header_cut_mid_write_is_rewritten(tmp_path):
    f = tmp_path / "o.jsonl"
    expected = run_batch(draw, _tasks(3), output=f)
    good = f.read_bytes()
    f.write_bytes(good[:15])
    assert run_batch(draw, _tasks(3), output=f) == expected
    assert f.read_bytes() == good


def test_bad_tasks_and_jobs():
    with pytest.raises(BatchError, match="twice"):
        run_batch(draw, [{"id": 1, "seed": 1}, {"id": 1, "seed": 2}])
    with pytest.raises(BatchError, match="'id'"):
        run_batch(draw, [{"seed": 1}])
    with pytest.raises(BatchError, match="neither"):
        run_batch(draw, [{"id": 1.5, "seed": 1}])
    with pytest.raises(BatchError, match="jobs"):
        run_batch(draw, _tasks(2), jobs=0)
    with pytest.raises(BatchError, match="JSON"):
        run_batch(draw, [{"id": 1, "seed": object()}], output=os.devnull + "x")


def test_fn_error_propagates_and_keeps_finished(tmp_path):
    f = tmp_path / "o.jsonl"
    with pytest.raises(RuntimeError, match="three"):
        run_batch(fail_on_three, _tasks(6), output=f)
    ids = [json.loads(x)["id"] for x in f.read_text().splitlines()[1:]]
    assert ids == [0, 1, 2]


def test_results_pass_through_json():
    out = run_batch(_tuple_result, [{"id": "a"}])
    assert out == [{"t": [1, 2], "1": "int key"}]


def _tuple_result(task):
    return {"t": (1, 2), 1: "int key"}


def test_progress_on_stderr(capsys):
    run_batch(draw, _tasks(3), progress=True, label="draws")
    err = capsys.readouterr().err
    assert "draws:" in err and "3/3" in err


def test_missing_ray_is_a_clear_error(monkeypatch):
    import builtins
    real = builtins.__import__

    def no_ray(name, *a, **k):
        if name == "ray":
            raise ImportError("No module named 'ray'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_ray)
    with pytest.raises(BatchError, match=r"pip install '\.\[ray\]'"):
        run_batch(draw, _tasks(2), ray="auto")


# -- the commands on the batch layer ---------------------------------------------------------

import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner
from palace_solver.cli.main import cli

#: The installed command, run away from the checkout: ``python -m`` from the repository root
#: would import the source tree, where ``cli/`` is not yet ``palace_solver.cli``.
PALACE = str(Path(sys.executable).with_name("palace"))

PLAY = ["play", "--games", "480", "--per-task", "4", "--bots", "greedy,random", "--json"]


def _palace(*args, **kw):
    kw.setdefault("cwd", "/")
    return subprocess.run([PALACE, *args], capture_output=True, text=True, timeout=120, **kw)


def test_play_series_killed_and_resumed_equals_uninterrupted(tmp_path):
    ref_file = tmp_path / "ref.jsonl"
    ref = _palace(*PLAY, "--output", str(ref_file), "--no-progress")
    assert ref.returncode == 0, ref.stderr
    total = 1 + 480 // 4
    assert len(ref_file.read_bytes().splitlines()) == total

    out = tmp_path / "killed.jsonl"
    proc = subprocess.Popen([PALACE, *PLAY, "--output", str(out), "--jobs", "2",
                             "--no-progress"], cwd="/",
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)  # its own group: the workers die too
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if out.exists() and out.read_bytes().count(b"\n") >= 21:
            break
        time.sleep(0.002)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the series ended before it was killed"
    kept = out.read_bytes().count(b"\n") - 1
    assert 20 <= kept < total - 1, kept  # killed halfway: finished tasks kept, not all

    again = _palace(*PLAY, "--output", str(out), "--progress")
    assert again.returncode == 0, again.stderr
    resumed = int(again.stderr.split("resuming, ")[1].split(" of")[0])
    assert resumed >= kept  # nothing finished before the kill is played again
    assert again.stdout == ref.stdout  # the same tally
    assert out.read_bytes() == ref_file.read_bytes()  # and the same file, byte for byte


def test_play_tally_same_for_any_jobs():
    args = ["play", "--games", "60", "--bots", "greedy,lowest,random", "-n", "3", "--seed",
            "4", "--json", "--no-progress"]
    one = CliRunner().invoke(cli, args)
    two = CliRunner().invoke(cli, [*args, "--jobs", "2", "--per-task", "7"])
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert one.output == two.output
    assert json.loads(one.output)["games"] == 60


def test_play_output_of_other_series_is_a_one_line_error(tmp_path):
    f = tmp_path / "s.jsonl"
    r = CliRunner().invoke(cli, ["play", "--games", "30", "--output", str(f), "--no-progress"])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(cli, ["play", "--games", "30", "--seed", "1", "--output", str(f),
                                 "--no-progress"])
    assert r.exit_code == 2
    assert r.output.startswith("palace: ") and "another batch" in r.output
    assert r.output.count("\n") == 1
    for bad in (["--jobs", "0"], ["--per-task", "0"]):
        r = CliRunner().invoke(cli, ["play", "--games", "30", *bad])
        assert r.exit_code == 2 and r.output.startswith("palace: "), r.output


# -- palace analyze --batch --------------------------------------------------------------------

EXACT = ["standard | K K / - / 2 ; - / - / 1 | pile 4 6 6 | burned 10 10 10 10 2 2 2 2 3 3 3 3 "
         "4 4 5 5 5 6 6 7 7 7 7 8 8 8 8 9 9 9 A A A A J J J J K K Q Q Q Q | draw 0 | to_move 0"]
SAMPLED = ("standard | me: 3 7 7 / A 10 / 3 ; bob: K K ?3 / 2 / 3 | pile 5 6 6 "
           "| burned 10 4 4 4 4 | draw 27 | to_move 0")
OPTS = ["--samples", "3", "--depth", "2", "--hash", "1", "--seed", "3"]


def _steady(obj):
    """An analysis without its timings (the one part that differs between runs)."""
    if isinstance(obj, dict):
        return {k: _steady(v) for k, v in obj.items()
                if "seconds" not in k and "per_second" not in k}
    if isinstance(obj, list):
        return [_steady(v) for v in obj]
    return obj


def _archive(tmp_path) -> Path:
    f = tmp_path / "positions.jsonl"
    examples = Path(__file__).resolve().parents[1] / "examples" / "endgame.json"
    lines = ["# a small archive", EXACT[0], "", "this is not a position", SAMPLED,
             json.dumps(json.loads(examples.read_text())), "{\"rules\": \"standard\",}"]
    f.write_text("\n".join(lines) + "\n")
    return f


def test_analyze_batch_one_result_a_line_with_error_records(tmp_path):
    f = _archive(tmp_path)
    r = CliRunner().invoke(cli, ["analyze", "--batch", str(f), *OPTS, "--no-progress"])
    assert r.exit_code == 0, r.output
    out = [json.loads(x) for x in r.output.splitlines()]
    assert [o["line"] for o in out] == [2, 4, 5, 6, 7]  # blank and comment lines skipped
    assert "error" in out[1] and "invalid position" in out[1]["error"]
    assert "bad JSON" in out[4]["error"]
    for o, text in ((out[0], EXACT[0]), (out[2], SAMPLED)):
        single = CliRunner().invoke(cli, ["analyze", text, "--json", *OPTS])
        assert single.exit_code == 0, single.output
        # a line's answer is the single analysis of that position with the same options
        assert _steady(o["analysis"]) == _steady(json.loads(single.output))
    assert out[2]["analysis"]["method"] == "search"  # hidden cards: the engine's search
    assert out[0]["analysis"]["method"] == "depth_limited"  # exact mode, --depth 2


def test_analyze_batch_same_for_any_jobs_and_resumable(tmp_path):
    f = _archive(tmp_path)
    one = CliRunner().invoke(cli, ["analyze", "--batch", str(f), *OPTS, "--no-progress"])
    two = CliRunner().invoke(cli, ["analyze", "--batch", str(f), *OPTS, "--jobs", "2",
                                   "--no-progress"])
    assert [_steady(json.loads(x)) for x in one.output.splitlines()] == \
        [_steady(json.loads(x)) for x in two.output.splitlines()]
    out = tmp_path / "results.jsonl"
    r = CliRunner().invoke(cli, ["analyze", "--batch", str(f), *OPTS, "--output", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0, r.output
    assert "5 positions (2 with errors)" in r.output
    lines = out.read_text().splitlines()
    assert json.loads(lines[0])["label"] == "positions"
    recs = [json.loads(x) for x in lines[1:]]
    assert [x["id"] for x in recs] == [2, 4, 5, 6, 7]
    # resuming a finished file computes nothing and leaves it as it was
    before = out.read_bytes()
    r = CliRunner().invoke(cli, ["analyze", "--batch", str(f), *OPTS, "--output", str(out),
                                 "--no-progress"])
    assert r.exit_code == 0 and out.read_bytes() == before
    # other options are another batch
    r = CliRunner().invoke(cli, ["analyze", "--batch", str(f), "--samples", "4",
                                 "--output", str(out), "--no-progress"])
    assert r.exit_code == 2 and "another batch" in r.output


def test_analyze_batch_bad_invocations(tmp_path):
    f = _archive(tmp_path)
    for args in (["x", "--batch", str(f)], ["--batch", str(f), "--line"],
                 ["--batch", str(tmp_path / "missing.jsonl")], [],
                 [EXACT[0], "--output", str(tmp_path / "o.jsonl")]):
        r = CliRunner().invoke(cli, ["analyze", *args])
        assert r.exit_code == 2, (args, r.output)
        assert r.output.startswith("palace: ") and r.output.count("\n") == 1, r.output


def test_batch_options_have_help():
    from palace_solver.cli.analyze_cmd import analyze
    from palace_solver.cli.play_cmd import play
    from palace_solver.cli.swap_cmd import swap
    for cmd in (analyze, play, swap):
        assert all(p.help for p in cmd.params if p.param_type_name == "option"), cmd.name


def test_same_batch_with_another_label_resumes(tmp_path):
    f = tmp_path / "o.jsonl"
    expected = run_batch(draw, _tasks(5), output=f, label="old label")
    lines = f.read_bytes().splitlines(keepends=True)
    f.write_bytes(b"".join(lines[:3]))
    assert run_batch(draw, _tasks(5), output=f, label="new label") == expected
    assert json.loads(f.read_text().splitlines()[0])["label"] == "new label"


def test_a_reader_sees_the_finished_tasks_of_a_file_a_kill_cut(tmp_path):
    out = tmp_path / "r.jsonl"
    res = run_batch(draw, _tasks(5), jobs=1, output=out, label="draws")
    with open(out, "a") as f:
        f.write('{"id": 5, "result": {"x": 0.')      # the line a kill cut
    assert finished_results(out) == [(i, r) for i, r in enumerate(res)]
