"""benchmarks/strength.py report --into: the Progress table rewritten in place."""
import pytest
from scripts import load_script

DOC = """# Strength

**Progress** (`strength.py report --prefix g1-`; a row in progress):

| row | A |
|---|---|
| g1-old | x |

Prose after the table stays.

| row | other table |
|---|---|
"""


def test_the_table_after_the_line_naming_the_report_is_replaced_and_nothing_else():
    strength = load_script("benchmarks/strength.py")
    table = "| row | A |\n|---|---|\n| g1-a | 1 |\n| g1-b | 2 |"
    out = strength.replace_table(DOC, "g1-", table)
    assert out == DOC.replace("| g1-old | x |", "| g1-a | 1 |\n| g1-b | 2 |")
    assert strength.replace_table(out, "g1-", table) == out
    with pytest.raises(SystemExit, match="g2-"):
        strength.replace_table(DOC, "g2-", table)
    # the line may go on naming the report's options
    other = DOC.replace("g1-`;", "g1- --into FILE`;")
    assert strength.replace_table(other, "g1-", table) == out.replace("g1-`;", "g1- --into FILE`;")
    with pytest.raises(SystemExit):     # g1 is not the prefix g1-
        strength.replace_table(DOC, "g1", table)


def test_compare_pairs_two_rows_by_start_over_the_starts_both_hold(tmp_path, monkeypatch):
    import json
    strength = load_script("benchmarks/strength.py")
    monkeypatch.setattr(strength, "HERE", tmp_path)
    monkeypatch.setattr(strength, "ROWS", {"x": ("a", "b", 2, "full", 3),
                                           "y": ("c", "b", 2, "full", 3)})

    def write(row, losses):
        lines = [json.dumps({"palace_batch": 1})]
        lines += [json.dumps({"id": i, "result": {"a_loss": v}}) for i, v in losses.items()]
        (tmp_path / f"{row}.jsonl").write_text("\n".join(lines) + "\n")

    # start 2 of x lacks a seating: only starts 0 and 1 are compared
    write("x", {"0/0": 0.0, "0/1": 0.5, "1/0": 1.0, "1/1": 0.0, "2/0": 0.0})
    write("y", {"0/0": 1.0, "0/1": 1.0, "1/0": 0.5, "1/1": 0.5, "2/0": 1.0, "2/1": 1.0})
    assert strength.start_scores("x") == {0: 0.75, 1: 0.5}
    got = strength.compare("x", "y")
    assert got["starts"] == 2 and got["scores"] == [0.625, 0.25]
    assert got["difference"] == pytest.approx(0.375)
    assert got["ci95"][0] < 0.375 < got["ci95"][1]


def test_every_rows_agents_can_be_recorded():
    # run() records what played before the first game (ROW.agents.json): a row whose agent
    # cannot be recorded never starts (g1-det once stopped the plan so, on det's config()).
    import json
    from palace_solver.agents.registry import openspiel_available
    strength = load_script("benchmarks/strength.py")
    names = {x for a, b, *_ in strength.ROWS.values() for x in (a, b)}
    if not openspiel_available():
        names.discard("os_ismcts")
    for name in sorted(names):
        rec = strength.agent_budget(name)
        assert rec["name"] == name and json.loads(json.dumps(rec)) == rec


def test_a_pickup_margin_is_recorded_only_where_it_is_set():
    # the rows played before the margin existed must still match their records on resume
    strength = load_script("benchmarks/strength.py")
    rec = strength.agent_budget(strength.PROGRESS)
    assert rec[f"{strength.PROGRESS}.pickup_margin"] == 0.05
    assert strength.agent_budget("engine")["engine.pickup_below"] == 0.33   # since p2
    for old in ("engine1", "engine:pickup_margin=0:pickup_below=1"):
        assert not any(k.endswith(("pickup_margin", "pickup_below"))
                       for k in strength.agent_budget(old))
    # the late bound likewise: engine's record has it since the l1 rows, the names that pin
    # the engine before them do not (e1-server_ismcts resumes under one)
    assert strength.agent_budget(strength.LATE)[f"{strength.LATE}.late"] == [200, 0.5]
    assert strength.agent_budget("engine")["engine.late"] == [200, 0.5]
    for old in ("engine:late_below=none", strength.UNORDERED_AS_BEGUN):
        assert not any(k.endswith(".late") for k in strength.agent_budget(old))
    # the row begun before the w1 decision pins the engine it was begun with
    assert strength.make_agent(strength.UNORDERED_AS_BEGUN).nopick_below is None
    assert strength.UNORDERED_AS_BEGUN.startswith(strength.RESPECIFIED["e1-server_ismcts"])


def test_the_queue_names_rows_once_and_keeps_each_plans_order():
    strength = load_script("benchmarks/strength.py")
    q = strength.QUEUE
    assert len(set(q)) == len(q) and set(q) <= set(strength.ROWS)
    order = list(strength.ROWS)
    for prefix in ("g1-", "p1-", "e1-"):
        mine = [r for r in q if r.startswith(prefix)]
        assert mine == sorted(mine, key=order.index)
    # every p1 row is queued, and before the g1 rows it was fixed to precede
    assert {r for r in strength.ROWS if r.startswith("p1-")} <= set(q)
    assert max(q.index(r) for r in q if r.startswith("p1-")) < q.index("g1-hint-engine")
    # the e1 row that decides comes before the g1 rows not yet complete; the candidate's
    # budget row is queued only if the candidate becomes engine (it did not), and the
    # peer row, deciding nothing, is played last
    assert q.index("e1-engine") < q.index("g1-hint-engine")
    assert "e1-x4-e1" not in q
    # the t1 row that decides comes after the begun hint row, and the queue stops there:
    # the rows not yet begun wait for its decision, the peer row of e1 last among them
    assert q.index("g1-hint-engine") < q.index("t1-engine") == len(q) - 1
    after = strength.AFTER_DECISION
    assert not set(after) & set(q) and after[-1] == "e1-server_ismcts"
    # contempt on the engine the p2 and g3 decisions leave decides before the rows
    # measuring engine, with c1-engine, not begun when it was planned
    c2 = strength.C2_ROWS
    assert c2 == ("c2-server_ismcts", "c1-engine") and not set(c2) & set(q + after)
    assert all(strength.ROWS[r][0] == strength.CONTEMPT for r in c2)
    # late progress decides on the engine the c2 decision left, after t1-noinfer (begun
    # before it was planned) and before the rows measuring engine; its peer row is paired
    # by start with c2-server_ismcts
    l1 = strength.L1_ROWS
    assert l1 == ("l1-engine", "l1-server_ismcts") and not set(l1) & set(q + after + c2)
    assert all(strength.ROWS[r][0] == strength.LATE for r in l1)
    assert strength.row_seed("l1-server_ismcts") == strength.row_seed("c2-server_ismcts")
    # generation 4 decides after them, before the rows measuring engine
    assert strength.ROWS["g4-engine"][:2] == (strength.GEN4, "engine")
    assert "g4-engine" not in set(q) | set(after) | set(l1) and "g4-engine" in strength.RECORDED
    assert set(after) <= set(strength.ROWS)
    assert "t1-noinfer" not in q + after and "t1-x4-t1" not in strength.ROWS
    # the ablation of generation 4's inference: engine as the g4 decision left it against
    # itself dealing uniformly, on starts of its own, after the budget row
    assert strength.ROWS["t2-noinfer"][:2] == ("engine", "engine:infer=0:end_infer=0")
    assert after.index("b1-x4-engine") < after.index("t2-noinfer") < len(after) - 1
    assert strength.row_seed("t2-noinfer") not in {strength.row_seed(r) for r in after
                                                   if r != "t2-noinfer"}
    # the ablation with three players (two hidden hands to infer), recorded, on starts of
    # its own, after the two-player one and before the rows of marks met already
    assert strength.ROWS["t3-noinfer-3p"] == ("engine", "engine:infer=0:end_infer=0", 3,
                                              "full", 500)
    assert "t3-noinfer-3p" in strength.RECORDED
    assert after.index("t2-noinfer") + 1 == after.index("t3-noinfer-3p") \
        < after.index("f1-server_ismcts")
    assert strength.row_seed("t3-noinfer-3p") not in {strength.row_seed(r) for r in after
                                                      if r != "t3-noinfer-3p"}
    # generation 4's hints against its engine, on starts of their own, after the ablation
    assert strength.ROWS["g4-hint-engine"][:2] == ("hint", strength.GEN4)
    assert after.index("t2-noinfer") < after.index("g4-hint-engine") < len(after) - 1
    assert strength.row_seed("g4-hint-engine") not in {strength.row_seed(r) for r in after
                                                       if r != "g4-hint-engine"}
    # the p2 rows wait for t1-engine's decision too, and come before the rows measuring
    # engine; their candidate is engine as that decision leaves it
    p2 = strength.P2_AFTER_T1
    assert set(p2) == {r for r in strength.ROWS if r.startswith("p2-")}
    assert not set(p2) & set(q + after) and p2[0] == "p2-engine"
    assert all(strength.ROWS[r][0] == strength.LEADING for r in p2)
    # the budget row of the engine both decisions leave takes t1-x4-t1's place, on starts
    # of its own seed: none of g1-x4-engine's games comes back
    assert "b1-x4-engine" not in q + p2 and strength.row_seed("b1-x4-engine") == 1
    assert {t["seed"] for t in strength.row_tasks("b1-x4-engine", 2)} == {1}
    assert {t["seed"] for t in strength.row_tasks("g1-x4-engine", 2)} == {0}
    with pytest.raises(SystemExit, match="different seeds"):
        strength.compare("b1-x4-engine", "g1-x4-engine")


def test_every_row_file_resumes_with_the_tasks_its_row_makes_today():
    # recording (RECORDED) changes a row's tasks, so only rows not yet begun may take it:
    # every file in the repository must still be the batch of its row's first tasks
    import json

    from palace_solver.jobs.batch import batch_fingerprint
    from palace_solver.jobs.match import play_task
    strength = load_script("benchmarks/strength.py")
    seen = 0
    for row in strength.ROWS:
        path = strength._file(row)
        if not path.exists():
            continue
        head = json.loads(path.open().readline())
        tasks = strength.row_tasks(row)[:head["tasks"]]
        assert head["fingerprint"] == batch_fingerprint(play_task, tasks), row
        seen += 1
    assert seen >= 25
    assert all("record" in t for t in strength.row_tasks("t1-engine", 1))
    assert not any("record" in t for t in strength.row_tasks("g1-hint-engine", 1))


def test_the_queue_follows_the_rules_decisions_and_stops_where_engine_must_change():
    strength = load_script("benchmarks/strength.py")
    q, p2, after = list(strength.QUEUE), list(strength.P2_AFTER_T1), \
        list(strength.AFTER_DECISION)
    rows, why = strength.queue_rows(t1=None)
    assert rows == q and "t1-engine decides" in why
    # adopted but not yet in engine: nothing after the deciding row
    rows, why = strength.queue_rows(t1=True, t1_applied=False)
    assert rows == q and "infer_temp=0.5" in why
    rows, why = strength.queue_rows(t1=False, p2=None)
    assert rows == q + p2 and "p2 rows decide" in why
    rows, why = strength.queue_rows(t1=True, t1_applied=True, p2=True, p2_applied=False)
    assert rows == q + p2 and "pickup_below=0.33" in why
    rows, why = strength.queue_rows(t1=False, p2=False, g3=None)
    assert rows == q + p2 + ["g3-engine"] and "g3-engine decides" in why
    rows, why = strength.queue_rows(t1=False, p2=True, p2_applied=True, g3=True,
                                    g3_applied=False)
    assert rows == q + p2 + ["g3-engine"] and "weights='gen3'" in why
    c2 = list(strength.C2_ROWS)
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=None)
    assert rows == q + p2 + ["g3-engine"] + c2 and "c2 rows decide" in why
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=True, c2_applied=False)
    assert rows == q + p2 + ["g3-engine"] + c2 and "end_contempt=0.1" in why
    # the l1 rows decide after the ablation (only for an adopted t1 candidate)
    l1 = list(strength.L1_ROWS)
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=None)
    assert rows == q + p2 + ["g3-engine"] + c2 + l1 and "l1 rows decide" in why
    rows, why = strength.queue_rows(t1=True, t1_applied=True, p2=False, g3=False, c2=False,
                                    l1=True, l1_applied=False)
    assert rows == q + p2 + ["g3-engine"] + c2 + ["t1-noinfer"] + l1 and "LATE_BELOW" in why
    # generation 4 decides after them
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=None)
    assert rows == q + p2 + ["g3-engine"] + c2 + l1 + ["g4-engine"] and "g4-engine" in why
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=True, g4_applied=False)
    assert rows == q + p2 + ["g3-engine"] + c2 + l1 + ["g4-engine"] and "gen4" in why
    # then the measuring rows up to W1_AFTER, and w1-greedy; w1-engine only once w1-greedy
    # has gained; the rest once the w1 decision is taken, with an adopted candidate
    # w1-greedy-3p first
    base = q + p2 + ["g3-engine"] + c2 + l1 + ["g4-engine"]
    k = after.index(strength.W1_AFTER) + 1
    strength.w1_gains = lambda: None
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=False, w1=None)
    assert rows == base + after[:k] + ["w1-greedy"] and "w1 rows decide" in why
    strength.w1_gains = lambda: True
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=False, w1=None)
    assert rows == base + after[:k] + ["w1-greedy", "w1-engine"]
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=False, w1=True, w1_applied=False)
    assert rows == base + after[:k] + ["w1-greedy", "w1-engine"] and "nopick_below" in why
    w1 = ["w1-greedy", "w1-engine"]
    n1 = ["n1-greedy-3p", "t2-noinfer"]
    # then the rows the w1 decision added, the row being played when generation 5 was
    # placed, the m1 rows (m1-engine and m1-greedy only once m1-greedy-3p has gained), the
    # s1 rows in the same shape, and g5-engine, which decides before the rows measuring
    # engine
    adopted = base + after[:k] + w1 + n1 + ["w1-greedy-3p", "w2-greedy", "t3-noinfer-3p"]
    done = dict(t1=False, p2=False, g3=False, c2=False, l1=False, g4=False, w1=True,
                w1_applied=True, n1=False)
    strength.m1_gains = strength.s1_gains = lambda: None
    rows, why = strength.queue_rows(**done, m1=None)
    assert rows == adopted + ["m1-greedy-3p"] and "m1 rows decide" in why
    strength.m1_gains = lambda: True
    m1 = ["m1-greedy-3p", "m1-engine", "m1-greedy"]
    rows, why = strength.queue_rows(**done, m1=None)
    assert rows == adopted + m1 and "m1 rows decide" in why
    rows, why = strength.queue_rows(**done, m1=True, m1_applied=False)
    assert rows == adopted + m1 and "infer_greedy=0.1" in why
    rows, why = strength.queue_rows(**done, m1=True, m1_applied=True, s1=None)
    assert rows == adopted + m1 + ["m2-greedy-3p", "s1-greedy-3p"] and "s1 rows decide" in why
    strength.s1_gains = lambda: True
    s1 = ["s1-greedy-3p", "s1-engine", "s1-greedy"]
    rows, why = strength.queue_rows(**done, m1=True, m1_applied=True, s1=True,
                                    s1_applied=False)
    assert rows == adopted + m1 + ["m2-greedy-3p"] + s1 and "model_styles=True" in why
    rows, why = strength.queue_rows(**done, m1=True, m1_applied=True, s1=True,
                                    s1_applied=True, g5=None)
    assert rows == adopted + m1 + ["m2-greedy-3p"] + s1 + ["s2-greedy-3p", "g5-engine"]
    assert "g5-engine decides" in why
    strength.m1_gains = strength.s1_gains = lambda: False
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=None)
    assert rows == adopted + ["m1-greedy-3p", "s1-greedy-3p", "g5-engine"]
    assert "g5-engine decides" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=True, g5_applied=False)
    assert rows == adopted + ["m1-greedy-3p", "s1-greedy-3p", "g5-engine"]
    assert "weights='gen5'" in why
    rest = [r for r in after[k:] if r not in ("t2-noinfer", "t3-noinfer-3p")]
    rest.insert(rest.index("f1-server_ismcts"), "w2-engine1-3p")
    m3 = ["m3-ref-greedy-3p", "m3-greedy-3p"]
    b2 = ["b2-greedy-3p"]
    strength.m3_gains = lambda: False
    strength.b2_gains = lambda: False
    g5 = ["t3-noinfer-3p", "m1-greedy-3p", "s1-greedy-3p", "g5-engine", "x1-greedy-3p"]
    for g5_taken in ({"g5": False}, {"g5": True, "g5_applied": True}):
        rows, why = strength.queue_rows(**done, m1=False, s1=False, x1=False, g6=False,
                                        m3=False, b2=False, **g5_taken)
        assert rows == (base + after[:k] + w1 + n1 + ["w1-greedy-3p", "w2-greedy"] + g5
                        + ["g6-engine"] + m3 + b2 + rest)
        assert why == "every planned row"
    # then the x1 rows (both three-player candidates): x1-greedy-3p, its two guards only
    # once it has gained, x2-greedy-3p with the candidate adopted, before the rows after
    before = base + after[:k] + w1 + n1 + ["w1-greedy-3p", "w2-greedy"]
    strength.x1_gains = lambda: None
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=None)
    assert rows == before + g5 and "x1 rows decide" in why
    strength.x1_gains = lambda: True
    x1 = g5 + ["x1-engine", "x1-engine-3p"]
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=None)
    assert rows == before + x1 and "x1 rows decide" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=True,
                                    x1_applied=False)
    assert rows == before + x1 and "paranoid=True" in why and "infer_greedy=0.1" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=True, g5_applied=True,
                                    x1=True, x1_applied=True, g6=False, m3=False, b2=False)
    assert rows == before + x1 + ["x2-greedy-3p", "g6-engine"] + m3 + b2 + rest
    assert why == "every planned row"
    assert rows.index("x2-greedy-3p") < min(rows.index("o1-engine"),
                                            rows.index("w2-engine1-3p"))
    # then generation 6 (after x2-greedy-3p with the x1 candidate adopted), the mark's row
    # on new starts right after it once adopted, before the rows that measure engine
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=True,
                                    x1_applied=True, g6=None)
    assert rows == before + x1 + ["x2-greedy-3p", "g6-engine"] and "g6-engine decides" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=True,
                                    g6_applied=False)
    assert rows == before + x1 + ["g6-engine"] and "weights='gen6'" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=True,
                                    g6_applied=True, m3=False, b2=False)
    assert rows == before + x1 + ["g6-engine", "g6-greedy-3p"] + m3 + b2 + rest
    assert why == "every planned row"
    # then the m3 rows (the greedy style in the inference on new starts): engine's row and
    # the candidate's, m3-engine only once the candidate has gained, m4-greedy-3p with the
    # candidate adopted, before the rows that measure engine
    g6 = before + x1 + ["g6-engine"]
    strength.m3_gains = lambda: None
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=False,
                                    m3=None)
    assert rows == g6 + m3 and "m3 rows decide" in why
    strength.m3_gains = lambda: True
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=False,
                                    m3=True, m3_applied=False)
    assert rows == g6 + m3 + ["m3-engine"] and "infer_greedy=0.1" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=True,
                                    g6_applied=True, m3=True, m3_applied=True, b2=False)
    assert rows == g6 + ["g6-greedy-3p"] + m3 + ["m3-engine", "m4-greedy-3p"] + b2 + rest
    assert why == "every planned row"
    strength.m3_gains = lambda: False
    # then the b2 rows (the larger draw-phase budget), in the same shape, after
    # m4-greedy-3p with the m3 candidate adopted, before the rows that measure engine
    strength.b2_gains = lambda: None
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=False,
                                    m3=False, b2=None)
    assert rows == g6 + m3 + b2 and "b2 rows decide" in why
    strength.b2_gains = lambda: True
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=False,
                                    m3=False, b2=True, b2_applied=False)
    assert rows == g6 + m3 + b2 + ["b2-engine"] and "nodes=210_000" in why
    rows, why = strength.queue_rows(**done, m1=False, s1=False, g5=False, x1=False, g6=False,
                                    m3=True, m3_applied=True, b2=True, b2_applied=True)
    assert rows == g6 + m3 + ["m4-greedy-3p"] + b2 + ["b2-engine", "b3-greedy-3p"] + rest
    assert rows.index("b3-greedy-3p") < rows.index("o1-engine")
    strength.b2_gains = lambda: False
    strength.x1_gains = lambda: False
    # then the n1 rows: n1-greedy-3p, the rest of t2-noinfer (two players), n1-engine-3p
    # only once n1-greedy-3p has gained; the rows with three players measuring engine wait
    strength.n1_gains = lambda: None
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=False, w1=True, w1_applied=True, n1=None)
    assert rows == base + after[:k] + w1 + n1 and "n1 rows decide" in why
    strength.n1_gains = lambda: True
    rows, why = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False,
                                    g4=False, w1=True, w1_applied=True, n1=True,
                                    n1_applied=False)
    assert rows == base + after[:k] + w1 + n1 + ["n1-engine-3p"] and "paranoid=True" in why
    rows, _ = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False, g4=False,
                                  w1=True, w1_applied=True, n1=True, n1_applied=True, m1=False,
                                  s1=False, g5=False, x1=False, g6=False, m3=False, b2=False)
    assert rows == base + after[:k] + w1 + n1 + ["n1-engine-3p", "w1-greedy-3p", "w2-greedy",
                                                 "n2-greedy-3p"] + g5 + ["g6-engine"] + m3 \
        + b2 + rest
    assert rows.index("n2-greedy-3p") < min(rows.index("t3-noinfer-3p"),
                                            rows.index("w2-engine1-3p"))
    strength.n1_gains = lambda: False
    strength.w1_gains = lambda: False
    rest = [r for r in after[k:] if r not in ("t2-noinfer", "t3-noinfer-3p")]
    rows, _ = strength.queue_rows(t1=False, p2=False, g3=False, c2=False, l1=False, g4=False,
                                  w1=False, n1=False, m1=False, s1=False, g5=False,
                                  x1=False, g6=False, m3=False, b2=False)
    assert rows == base + after[:k] + ["w1-greedy"] + n1 + g5 + ["g6-engine"] + m3 + b2 + rest
    rows, _ = strength.queue_rows(t1=True, t1_applied=True, p2=True, p2_applied=True,
                                  g3=True, g3_applied=True, c2=True, c2_applied=True,
                                  l1=True, l1_applied=True, g4=True, g4_applied=True, w1=False,
                                  n1=False, m1=False, s1=False, g5=False, x1=False,
                                  g6=False, m3=False, b2=False)
    assert rows == q + p2 + ["g3-engine"] + c2 + ["t1-noinfer"] + l1 + ["g4-engine"] \
        + after[:k] + ["w1-greedy"] + n1 + g5 + ["g6-engine"] + m3 + b2 + rest
    assert len(set(rows)) == len(rows)
    # the w1 rows: after the budget row, before both ablations, which measure engine as
    # their decision leaves it; the peer rows paired by start with f1-greedy and
    # g1-greedy-3p, the other on starts of its own, all with generation 4
    assert strength.W1_AFTER == "b1-x4-engine" and after[k:k + 2] == ["t2-noinfer",
                                                                      "t3-noinfer-3p"]
    assert strength.ROWS["w1-greedy"] == (strength.W1, "greedy", 2, "full", 500)
    assert strength.ROWS["w1-engine"] == (strength.W1, strength.GEN4, 2, "full", 500)
    assert strength.ROWS["w1-greedy-3p"] == (strength.W1, "greedy", 3, "full", 500)
    assert strength.row_seed("w1-greedy") == strength.row_seed("f1-greedy")
    assert strength.row_seed("w1-greedy-3p") == strength.row_seed("g1-greedy-3p")
    assert strength.row_seed("w1-engine") not in {strength.row_seed(r) for r in
                                                  strength.ROWS if r != "w1-engine"}
    assert "w1-engine" in strength.RECORDED
    # with an adopted candidate, engine again on starts no choice has seen: against greedy
    # (w1-greedy chose it) and against two engine1 (recorded), each on a seed of its own
    assert strength.ROWS["w2-greedy"] == ("engine", "greedy", 2, "full", 500)
    assert strength.ROWS["w2-engine1-3p"] == ("engine", "engine1", 3, "full", 500)
    assert "w2-engine1-3p" in strength.RECORDED and "w2-greedy" not in strength.RECORDED
    for row in ("w2-greedy", "w2-engine1-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # what seeing the hands is worth: the bound of both ablations, right after them, on
    # starts of its own, not recorded (no player plays so: no data to learn from)
    assert strength.ROWS["o1-engine"][1:] == (strength.GEN4, 2, "full", 500)
    assert "sees_hands=1" in strength.ROWS["o1-engine"][0]
    assert after.index("o1-engine") == after.index("t3-noinfer-3p") + 1 \
        < after.index("f1-server_ismcts")
    assert strength.row_seed("o1-engine") not in {strength.row_seed(r) for r in
                                                  strength.ROWS if r != "o1-engine"}
    assert "o1-engine" not in strength.RECORDED
    # and with three players: engine as m3-ref-greedy-3p played it, given the hands, on the
    # first 500 of its starts (paired by start), whatever later decisions make of engine
    assert strength.ROWS["o2-greedy-3p"] == (strength.SEES_3P, "greedy", 3, "full", 500)
    assert strength.row_seed("o2-greedy-3p") == strength.row_seed("m3-ref-greedy-3p")
    assert after.index("o2-greedy-3p") == after.index("o1-engine") + 1
    assert "o2-greedy-3p" not in strength.RECORDED
    pinned = strength.make_agent(strength.SEES_3P)
    assert pinned.sees_hands and pinned.config.nodes == 120_000
    assert (pinned.config.weights, pinned.endgame.weights) == ("gen4", "gen4")
    # the budget row, the dearest, after the rows of the other marks not yet met;
    # f1-server_ismcts, whose mark l1-server_ismcts met, after the rows generation 5 needs
    unmet = [r for r in after if r.startswith(("f1-", "g1-")) and r != "f1-server_ismcts"]
    assert after.index("b1-x4-engine") > max(after.index(r) for r in unmet)
    assert after.index("f1-server_ismcts") > max(after.index("b1-x4-engine"),
                                                 after.index("t2-noinfer"))
    # the n1 rows: the candidate against two greedy paired with w1-greedy-3p (engine as it
    # is on the same starts), against two engine on starts of its own (recorded), and the
    # mark's row on starts no choice has seen
    assert strength.ROWS["n1-greedy-3p"] == (strength.N1, "greedy", 3, "full", 500)
    assert strength.ROWS["n1-engine-3p"] == (strength.N1, strength.GEN4, 3, "full", 200)
    assert strength.ROWS["n2-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert strength.row_seed("n1-greedy-3p") == strength.row_seed("w1-greedy-3p")
    assert "paranoid=1" in strength.N1 and "end_paranoid=1" in strength.N1
    assert "n1-engine-3p" in strength.RECORDED
    for row in ("n1-engine-3p", "n2-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # generation 5 against generation 4's engine on starts of its own, recorded, placed
    # after the row being played then and before the rows measuring engine; the rows
    # after it that measure generation 4 pin it
    assert strength.ROWS["g5-engine"] == (strength.GEN5, strength.GEN4, 2, "full", 500)
    assert "g5-engine" in strength.RECORDED and strength.G5_AFTER == "t3-noinfer-3p"
    assert strength.row_seed("g5-engine") not in {strength.row_seed(r) for r in strength.ROWS
                                                  if r != "g5-engine"}
    assert "g5-engine" not in after and "weights=gen5" in strength.GEN5
    for row in ("o1-engine", "g4-hint-engine"):
        assert strength.ROWS[row][1] == strength.GEN4
    # the m1 rows: the candidate against two greedy paired with w1-greedy-3p, against
    # greedy paired with w1-greedy (engine as it is on the same starts), against generation
    # 4's engine on starts of its own (recorded), and the mark's row on starts no choice
    # has seen; generation 4 pinned where engine may move to generation 5
    assert strength.ROWS["m1-greedy-3p"] == (strength.STYLES, "greedy", 3, "full", 500)
    assert strength.ROWS["m1-greedy"] == (strength.STYLES, "greedy", 2, "full", 500)
    assert strength.ROWS["m1-engine"] == (strength.STYLES, strength.GEN4, 2, "full", 200)
    assert strength.ROWS["m2-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert "infer_greedy=0.1" in strength.STYLES and "end_infer_greedy=0.1" in strength.STYLES
    assert "weights=gen4" in strength.STYLES and "m1-engine" in strength.RECORDED
    assert strength.row_seed("m1-greedy-3p") == strength.row_seed("w1-greedy-3p")
    assert strength.row_seed("m1-greedy") == strength.row_seed("w1-greedy")
    for row in ("m1-engine", "m2-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # the s1 rows: the same shape, the m1 candidate searching the seats it takes for the bot
    assert strength.STYLED == strength.STYLES + ":model_styles=1:end_model_styles=1"
    assert strength.ROWS["s1-greedy-3p"] == (strength.STYLED, "greedy", 3, "full", 500)
    assert strength.ROWS["s1-greedy"] == (strength.STYLED, "greedy", 2, "full", 500)
    assert strength.ROWS["s1-engine"] == (strength.STYLED, strength.GEN4, 2, "full", 200)
    assert strength.ROWS["s2-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert "s1-engine" in strength.RECORDED
    assert strength.row_seed("s1-greedy-3p") == strength.row_seed("w1-greedy-3p")
    assert strength.row_seed("s1-greedy") == strength.row_seed("w1-greedy")
    for row in ("s1-engine", "s2-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # the x1 rows: both three-player candidates, guarded with two players and with three
    assert strength.X1 == ("engine:infer_greedy=0.1:end_infer_greedy=0.1:paranoid=1:"
                           "end_paranoid=1:weights=gen4:end_weights=gen4")
    assert strength.ROWS["x1-greedy-3p"] == (strength.X1, "greedy", 3, "full", 500)
    assert strength.ROWS["x1-engine"] == (strength.X1, strength.GEN4, 2, "full", 200)
    assert strength.ROWS["x1-engine-3p"] == (strength.X1, strength.GEN4, 3, "full", 200)
    assert strength.ROWS["x2-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert {"x1-engine", "x1-engine-3p"} <= strength.RECORDED
    assert strength.row_seed("x1-greedy-3p") == strength.row_seed("w1-greedy-3p")
    for row in ("x1-engine", "x1-engine-3p", "x2-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # generation 6 against generation 4's engine on starts of its own, recorded; the mark's
    # row on starts no choice has seen
    assert strength.ROWS["g6-engine"] == (strength.GEN6, strength.GEN4, 2, "full", 500)
    assert strength.ROWS["g6-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert strength.GEN6 == "engine:weights=gen6:end_weights=gen6"
    assert "g6-engine" in strength.RECORDED and "g6-greedy-3p" not in strength.RECORDED
    for row in ("g6-engine", "g6-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    # the m3 rows: the m1 candidate and engine, each against two greedy on the same new
    # starts (paired), the candidate against engine with two players on starts of its own
    # (recorded), the mark's row on starts no choice has seen; nothing pinned (both sides
    # are played after the g6 decision)
    assert strength.STYLES_NOW == "engine:infer_greedy=0.1:end_infer_greedy=0.1"
    assert strength.STYLES == strength.STYLES_NOW + ":weights=gen4:end_weights=gen4"
    assert strength.ROWS["m3-ref-greedy-3p"] == ("engine", "greedy", 3, "full", 1000)
    assert strength.ROWS["m3-greedy-3p"] == (strength.STYLES_NOW, "greedy", 3, "full", 1000)
    assert strength.ROWS["m3-engine"] == (strength.STYLES_NOW, "engine", 2, "full", 200)
    assert strength.ROWS["m4-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert strength.row_seed("m3-greedy-3p") == strength.row_seed("m3-ref-greedy-3p")
    assert "m3-engine" in strength.RECORDED
    # (b2-greedy-3p and o2-greedy-3p, planned after them, are paired with them on their
    # starts: below and above)
    for row in ("m3-ref-greedy-3p", "m3-engine", "m4-greedy-3p"):
        others = {strength.row_seed(r) for r in strength.ROWS
                  if r not in (row, "m3-greedy-3p", "m3-ref-greedy-3p", "b2-greedy-3p",
                               "o2-greedy-3p")}
        assert strength.row_seed(row) not in others
    # the b2 rows: the candidate on the m3 rows' starts (paired with whichever of them is
    # engine), the candidate against engine with two players on starts of its own
    # (recorded), the mark's row on starts no choice has seen; the candidate is engine with
    # the larger draw-phase budget and nothing else
    assert strength.BUDGET_NOW == "engine:nodes=210000"
    assert strength.ROWS["b2-greedy-3p"] == (strength.BUDGET_NOW, "greedy", 3, "full", 1000)
    assert strength.ROWS["b2-engine"] == (strength.BUDGET_NOW, "engine", 2, "full", 200)
    assert strength.ROWS["b3-greedy-3p"] == ("engine", "greedy", 3, "full", 500)
    assert strength.row_seed("b2-greedy-3p") == strength.row_seed("m3-ref-greedy-3p")
    assert "b2-engine" in strength.RECORDED and not {"b2-engine", "b3-greedy-3p"} & \
        strength.BEFORE_GEN1
    for row in ("b2-engine", "b3-greedy-3p"):
        assert strength.row_seed(row) not in {strength.row_seed(r) for r in strength.ROWS
                                              if r != row}
    from palace_solver.agents.registry import make_agent
    candidate, engine = make_agent(strength.BUDGET_NOW), make_agent("engine")
    assert candidate.config == engine.config.with_(nodes=210_000)
    assert candidate.endgame == engine.endgame
    with pytest.raises(TypeError, match="t2"):
        strength.queue_rows(t2=True)


@pytest.fixture
def ruled(monkeypatch):
    """strength.py with each row's score, interval and completeness read from ``scores``
    (row -> (score, lo, hi); "A - B" -> a paired difference)."""
    strength = load_script("benchmarks/strength.py")
    scores = {}
    monkeypatch.setattr(strength, "_complete", lambda row: row in scores)
    monkeypatch.setattr(strength, "partial",
                        lambda row: {"score": scores[row][0], "ci95": scores[row][1:],
                                     "equal_score": 1 - 1 / strength.ROWS[row][2]})
    monkeypatch.setattr(strength, "compare",
                        lambda a, b: {"ci95": scores[f"{a} - {b}"][1:]})
    return strength, scores


def test_the_rules_as_written(ruled):
    strength, scores = ruled
    assert strength.t1_decision() is None
    scores["t1-engine"] = (0.499, 0.47, 0.53)
    assert strength.t1_decision() is False
    scores["t1-engine"] = (0.5, 0.47, 0.53)
    assert strength.t1_decision() is True
    assert strength.g3_decision() is None
    scores["g3-engine"] = (0.53, 0.5, 0.56)
    assert strength.g3_decision() is False                # the interval reaches 0.5
    scores["g3-engine"] = (0.53, 0.501, 0.56)
    assert strength.g3_decision() is True
    assert strength.g5_decision() is None
    scores["g5-engine"] = (0.54, 0.5, 0.58)
    assert strength.g5_decision() is False                # the interval reaches 0.5
    scores["g5-engine"] = (0.54, 0.501, 0.58)
    assert strength.g5_decision() is True
    assert strength.g6_decision() is None
    scores["g6-engine"] = (0.54, 0.5, 0.58)
    assert strength.g6_decision() is False                # the interval reaches 0.5
    scores["g6-engine"] = (0.54, 0.501, 0.58)
    assert strength.g6_decision() is True
    # the m3 rule reads its candidate's row only once engine's own row, played on the same
    # new starts, is complete too (the rest of it: the test below)
    scores["m3-greedy-3p"] = (0.89, 0.88, 0.90)
    scores["m3-greedy-3p - m3-ref-greedy-3p"] = (0.02, 0.001, 0.04)
    assert strength.m3_gains() is None and strength.m3_decision() is None
    scores["m3-ref-greedy-3p"] = (0.87, 0.86, 0.88)
    assert strength.m3_gains() is True


def test_the_budget_rule_pairs_its_row_with_the_m3_row_that_is_engine(ruled):
    strength, scores = ruled
    # no m3 decision yet: b2 waits, whatever its own row says
    scores["b2-greedy-3p"] = (0.90, 0.89, 0.91)
    scores["b2-greedy-3p - m3-ref-greedy-3p"] = (0.02, 0.001, 0.04)
    scores["b2-greedy-3p - m3-greedy-3p"] = (0.0, -0.02, 0.02)
    assert strength.b2_reference() is None and strength.b2_decision() is None
    # m3 not adopted (no gain): engine's own row is the reference
    scores["m3-greedy-3p"], scores["m3-ref-greedy-3p"] = (0.88, 0.87, 0.89), (0.87, 0.86, 0.88)
    scores["m3-greedy-3p - m3-ref-greedy-3p"] = (0.01, 0.0, 0.02)
    assert strength.b2_reference() == "m3-ref-greedy-3p"
    assert strength.b2_gains() is True and strength.b2_decision() is None
    scores["b2-engine"] = (0.52, 0.49, 0.55)
    assert strength.b2_decision() is True
    scores["b2-engine"] = (0.47, 0.44, 0.499)
    assert strength.b2_decision() is False
    # m3 adopted: the candidate's row, which engine now is, is the reference
    scores["m3-greedy-3p - m3-ref-greedy-3p"] = (0.01, 0.001, 0.02)
    scores["m3-engine"] = (0.5, 0.47, 0.53)
    assert strength.b2_reference() == "m3-greedy-3p"
    assert strength.b2_gains() is False and strength.b2_decision() is False


@pytest.mark.parametrize("name, gain, paired, equal, even", [
    ("w1", "w1-greedy", "f1-greedy", "w1-engine", 0.5),
    # with three players equal sides score 2/3 (written as the match summary computes it)
    ("n1", "n1-greedy-3p", "w1-greedy-3p", "n1-engine-3p", 1 - 1 / 3),
    ("m1", "m1-greedy-3p", "w1-greedy-3p", "m1-engine", 0.5),
    ("s1", "s1-greedy-3p", "w1-greedy-3p", "s1-engine", 0.5),
    ("m3", "m3-greedy-3p", "m3-ref-greedy-3p", "m3-engine", 0.5)])
def test_the_rules_that_gain_on_greedy_first_then_hold_against_engine(ruled, name, gain,
                                                                       paired, equal, even):
    strength, scores = ruled
    gains, decision = getattr(strength, f"{name}_gains"), getattr(strength, f"{name}_decision")
    assert gains() is None and decision() is None
    # no gain against greedy, paired: not adopted, and the row against engine not needed
    scores[gain], scores[paired] = (0.82, 0.80, 0.84), (0.80, 0.78, 0.82)
    scores[f"{gain} - {paired}"] = (0.02, 0.0, 0.04)
    assert gains() is False and decision() is False
    scores[f"{gain} - {paired}"] = (0.02, 0.001, 0.04)
    assert gains() is True and decision() is None
    scores[equal] = (even - 0.02, even - 0.05, even - 0.001)
    assert decision() is False
    scores[equal] = (even - 0.02, even - 0.05, even)
    assert decision() is True


def test_both_three_player_candidates_gain_on_greedy_then_hold_with_two_and_three(ruled):
    strength, scores = ruled
    assert strength.x1_gains() is None and strength.x1_decision() is None
    scores["x1-greedy-3p"] = (0.9, 0.88, 0.92)
    scores["x1-greedy-3p - w1-greedy-3p"] = (0.02, 0.0, 0.04)
    assert strength.x1_gains() is False and strength.x1_decision() is False
    scores["x1-greedy-3p - w1-greedy-3p"] = (0.02, 0.001, 0.04)
    assert strength.x1_gains() is True and strength.x1_decision() is None
    # each guard: its interval not below the score of equal sides (1/2, then 2/3)
    scores["x1-engine"] = (0.48, 0.45, 0.499)
    assert strength.x1_decision() is False                  # decided without the other
    scores["x1-engine"] = (0.48, 0.45, 0.5)
    assert strength.x1_decision() is None                   # x1-engine-3p not played yet
    even = 1 - 1 / 3
    scores["x1-engine-3p"] = (even - 0.02, even - 0.05, even - 0.001)
    assert strength.x1_decision() is False
    scores["x1-engine-3p"] = (even - 0.02, even - 0.05, even)
    assert strength.x1_decision() is True


@pytest.mark.parametrize("decision, equal, peer, paired", [
    ("p2_decision", "p2-engine", "p2-server_ismcts", "r1-server_ismcts"),
    ("c2_decision", "c1-engine", "c2-server_ismcts", "p2-server_ismcts")])
def test_the_rules_of_a_gain_on_a_peer_that_holds_against_engine(ruled, decision, equal, peer,
                                                                  paired):
    strength, scores = ruled
    rule = getattr(strength, decision)
    scores[equal] = (0.47, 0.44, 0.499)
    assert rule() is None                                 # the peer's row not complete
    scores[peer] = (0.75, 0.74, 0.76)
    scores[f"{peer} - {paired}"] = (0.02, 0.001, 0.04)
    assert rule() is False                                # below 0.5 against engine
    scores[equal] = (0.48, 0.45, 0.5)
    assert rule() is True
    scores[f"{peer} - {paired}"] = (0.02, 0.0, 0.04)
    assert rule() is False                                # the interval reaches 0
    del scores[equal]
    assert rule() is None                                 # the row against engine not done


def test_queue_plays_each_row_short_of_its_starts_in_order_and_stops_on_a_stuck_one(
        monkeypatch, capsys):
    strength = load_script("benchmarks/strength.py")
    done, played = {"a"}, []
    monkeypatch.setattr(strength, "queue_rows", lambda: (["a", "b", "c"], "why not more"))
    monkeypatch.setattr(strength, "_complete", lambda row: row in done)

    def run(row, starts, jobs):
        played.append(row)
        done.add(row)
        return {}
    monkeypatch.setattr(strength, "run", run)
    strength.main(["queue"])
    assert played == ["b", "c"] and "why not more" in capsys.readouterr().err
    done.discard("c")
    monkeypatch.setattr(strength, "run", lambda row, starts, jobs: played.append(row) or {})
    with pytest.raises(SystemExit, match="c is still short"):
        strength.main(["queue"])
    assert played == ["b", "c", "c"]


def test_every_row_short_of_its_starts_records_the_agents_its_name_builds_today():
    # else the queue would refuse it when it comes to it (a decision changed engine's
    # defaults after the row was begun: RESPECIFIED)
    import json
    strength = load_script("benchmarks/strength.py")
    queued, _ = strength.queue_rows(t1=True, p2=True, g3=False, c2=False, l1=False,
                                    g4=False, w1=False, n1=False, m1=False, s1=False,
                                    g5=False, x1=False, g6=False, m3=False, b2=False,
                                    t1_applied=True, p2_applied=True)
    assert "e1-server_ismcts" in queued
    for row in queued:
        a, b, *_ = strength.ROWS[row]
        side = strength.HERE / f"{row}.agents.json"
        if side.exists() and not strength._complete(row):
            recorded = json.loads(side.read_text())["agents"]
            assert recorded == [strength.agent_budget(a), strength.agent_budget(b)], row


def _begin(strength, tmp_path, monkeypatch, a):
    monkeypatch.setattr(strength, "HERE", tmp_path)
    monkeypatch.setattr(strength, "ROWS", {"x": (a, "greedy", 2, "full", 1)})
    monkeypatch.setattr(strength, "RECORDED", frozenset())
    monkeypatch.setattr(strength, "SEEDS", {})
    strength.run("x", None, 1)


def test_a_row_begun_under_a_name_that_now_builds_another_agent_moves_to_its_pinned_name(
        tmp_path, monkeypatch):
    import json
    strength = load_script("benchmarks/strength.py")
    old = "engine:nodes=300"
    _begin(strength, tmp_path, monkeypatch, old)
    games = (tmp_path / "x.jsonl").read_text().splitlines()[1:]
    # the same agent, every option spelled out: the row moves to it and plays on from there
    pinned = old + ":pickup_margin=0.05:pickup_below=0.33"
    monkeypatch.setattr(strength, "ROWS", {"x": (pinned, "greedy", 2, "full", 1)})
    monkeypatch.setattr(strength, "RESPECIFIED", {})
    with pytest.raises(SystemExit, match="other agents"):   # not declared moved: refused
        strength.run("x", None, 1)
    monkeypatch.setattr(strength, "RESPECIFIED", {"x": old})
    strength.run("x", None, 1)
    assert (tmp_path / "x.jsonl").read_text().splitlines()[1:] == games   # nothing replayed
    side = json.loads((tmp_path / "x.agents.json").read_text())
    assert side["agents"][0] == strength.agent_budget(pinned)
    assert [(r["from"], r["to"]) for r in side["respecified"]] == [(old, pinned)]
    strength.respecify("x")            # once moved, nothing more to do
    assert len(json.loads((tmp_path / "x.agents.json").read_text())["respecified"]) == 1


def test_a_row_is_not_moved_to_a_name_that_plays_otherwise(tmp_path, monkeypatch):
    strength = load_script("benchmarks/strength.py")
    old = "engine:nodes=300"
    _begin(strength, tmp_path, monkeypatch, old)
    monkeypatch.setattr(strength, "RESPECIFIED", {"x": old})
    # another budget: refused on the record
    monkeypatch.setattr(strength, "ROWS", {"x": ("engine:nodes=400", "greedy", 2, "full", 1)})
    with pytest.raises(SystemExit, match="another budget"):
        strength.respecify("x")
    # the same record but a game that comes out otherwise: refused on the game
    pinned = old + ":pickup_margin=0.05"
    monkeypatch.setattr(strength, "ROWS", {"x": (pinned, "greedy", 2, "full", 1)})
    path = tmp_path / "x.jsonl"
    lines = path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"decisions":', '"decisions":1', 1)
    path.write_text("".join(lines))
    with pytest.raises(SystemExit, match="differs from its record"):
        strength.respecify("x")


def test_a_row_short_of_its_starts_shows_no_score_unless_asked(monkeypatch, capsys):
    # a row is never stopped or grown after a look at its score: report, status and compare
    # do not offer one before the row's end
    strength = load_script("benchmarks/strength.py")
    summary = {"a": "engine", "b": "greedy", "players": 2, "starts": 3, "asked": 500,
               "games": 6, "score": 0.987, "ci95": [0.9, 1.0], "p": 0.01, "wins": 6,
               "draws": 0, "losses": 0, "a_ms_per_decision": 50.0, "b_ms_per_decision": 0.0,
               "mean_decisions": 100.0}
    done = set()
    monkeypatch.setattr(strength, "partial", lambda row: summary)
    monkeypatch.setattr(strength, "_complete", lambda row: row in done)
    monkeypatch.setattr(strength, "queue_rows",
                        lambda **kw: (["z1-x"] + (["z1-y"] if kw else []), "z1-x decides"))
    monkeypatch.setattr(strength, "ROWS", {"z1-x": ("engine", "greedy", 2, "full", 500),
                                           "z1-y": ("engine", "det", 2, "full", 500)})
    table = strength.report("z1-")
    assert "| 3 (500) | 6 | in progress |" in table
    assert "0.987" not in table and "6/0/0" not in table
    assert "0.987" in strength.report("z1-", partial_scores=True)
    assert strength.status().splitlines() == [
        "z1-x                      3/500  starts     6 games  next",
        "z1-y                      3/500  starts     6 games  planned",
        "the list waits after z1-x: z1-x decides"]
    with pytest.raises(SystemExit):
        strength.main(["compare", "z1-x", "z1-x"])
    assert "short of its starts" in capsys.readouterr().err
    done.add("z1-x")
    assert "| 0.987 | [0.900, 1.000] | 1.0e-02 | 6/0/0 |" in strength.report("z1-")
    assert "complete" in strength.status()


def test_status_says_the_core_hours_a_row_has_left_by_its_own_games(tmp_path, monkeypatch):
    import json
    strength = load_script("benchmarks/strength.py")
    monkeypatch.setattr(strength, "HERE", tmp_path)
    monkeypatch.setattr(strength, "ROWS", {"x": ("engine", "greedy", 2, "full", 10),
                                           "y": ("engine", "greedy", 3, "full", 10)})
    assert strength.cpu_left("x") is None                    # no file yet
    lines = [{"fingerprint": "f", "tasks": 20}]
    lines += [{"id": f"{k}/0", "result": {"a_seconds": 30.0, "b_seconds": 6.0}}
              for k in range(4)]
    strength._file("x").write_text("\n".join(json.dumps(x) for x in lines) + "\n{\"id\"")
    # 16 games left of 20 at the 36 s of the 4 played (a cut last line is not a game)
    assert strength.cpu_left("x") == pytest.approx(16 * 36 / 3600)
    strength._file("y").write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    assert strength.cpu_left("y") == pytest.approx(26 * 36 / 3600)   # 30 games: 3 seatings
    monkeypatch.setattr(strength, "queue_rows", lambda **kw: (["x"], "x decides"))
    monkeypatch.setattr(strength, "DECISIONS", ())
    assert strength.status().splitlines()[0].endswith("next  ~0.2 core-h left")


def test_grow_carries_a_shorter_rows_games_and_leaves_another_batch_alone(tmp_path,
                                                                           monkeypatch):
    import json
    strength = load_script("benchmarks/strength.py")
    monkeypatch.setattr(strength, "HERE", tmp_path)
    monkeypatch.setattr(strength, "ROWS", {"x": ("a", "b", 2, "full", 3)})
    fp = strength.batch_fingerprint
    short = strength.row_tasks("x", 2)
    head = {"palace_batch": strength.FORMAT, "label": "games", "tasks": len(short),
            "fingerprint": fp(strength.play_task, short)}
    games = [json.dumps({"id": t["id"], "result": [1, 0]}) + "\n" for t in short]
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(head) + "\n" + "".join(games) + '{"id": "cut')
    strength.grow("x", 3)
    lines = path.read_text().splitlines(keepends=True)
    new = json.loads(lines[0])
    assert new["tasks"] == len(strength.row_tasks("x", 3)) > len(short)
    assert new["fingerprint"] == fp(strength.play_task, strength.row_tasks("x", 3))
    assert lines[1:] == games                   # the games kept, the cut line dropped
    assert list(tmp_path.iterdir()) == [path]   # no temporary file left
    # a file whose first tasks are not this row's is another batch: left as it is
    head["fingerprint"] = "not-this-row"
    path.write_text(json.dumps(head) + "\n" + "".join(games))
    before = path.read_text()
    strength.grow("x", 3)
    assert path.read_text() == before


def test_only_the_rows_played_before_generation_1_name_engine_engine1():
    # a row planned since names engine as it is (w2-greedy was first reported as engine1)
    strength = load_script("benchmarks/strength.py")
    for row in ("w2-greedy", "w2-engine1-3p", "t3-noinfer-3p", "o1-engine", "t2-noinfer",
                "f1-greedy", "g1-greedy"):
        assert row not in strength.BEFORE_GEN1, row
    assert {"engine-greedy", "hint-engine"} <= strength.BEFORE_GEN1
