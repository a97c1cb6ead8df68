"""The batch layer (palace_solver.batch): order, determinism across workers, the output
file (resume, damaged last line, another batch's file), errors."""
import json
import os
import random

import pytest

from palace_solver.batch import BatchError, run_batch, task_seed


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
    import palace_solver.batch as batch

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
