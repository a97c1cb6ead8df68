"""The strength benchmark of benchmarks/RESULTS-strength.md: rows of ``palace match``.

    python benchmarks/strength.py run ROW [--starts N] [--jobs J]   # one row, resumable
    python benchmarks/strength.py plan --prefix g1- [--jobs J]     # those rows in order
    python benchmarks/strength.py queue [--jobs J]                  # the planned rows in order
    python benchmarks/strength.py report                            # every row's file so far
    python benchmarks/strength.py compare ROW ROW                   # paired by start
    python benchmarks/strength.py speed                             # decisions/s, nodes/s, eval

Each row is one ``palace match`` (palace_solver/jobs/match.py: every start in every seating,
common random numbers, paired 95% intervals), its games saved in
``benchmarks/results/strength/ROW.jsonl`` (the batch layer's resumable file), so a row
stopped early is reported over the starts whose seatings all finished, and the same command
resumes it. ``report`` says for each row how many starts it holds: a row with fewer starts
than asked is never presented as the full row.

Beside the games, ``ROW.agents.json`` records what played (each agent's budgets) and, for
each run that added games, its provenance (benchmarks/provenance.py: command, commit, date,
machine and load, versions).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

import provenance

from palace_solver.agents.registry import make_agent
from palace_solver.atomic import write_atomic
from palace_solver.game.rules import Rules
from palace_solver.jobs.batch import FORMAT, batch_fingerprint, finished_results, rename_tasks
from palace_solver.jobs.match import match_tasks, play_task, run_match, same_result, summarize
from palace_solver.sample.drawsearch import ENGINE, ENGINE_END
from palace_solver.sample.stats import diff_ci

HERE = provenance.RESULTS / "strength"

#: generation 1's search with generation 0's network (the generations compared alone)
GEN0 = "engine:weights=gen0:end_weights=gen0"
GEN2 = "engine:weights=gen2:end_weights=gen2"
#: generation 1 counting a repetition 0.1 worse than a draw for its own seat, in both phases
#: (drawsearch.SearchConfig.contempt): the candidate of RESULTS-strength.md's contempt rows
CONTEMPT = "engine:contempt=0.1:end_contempt=0.1"
#: generation 1 whose history also meets the positions from before the other side showed
#: cards (drawsearch.SearchConfig.revealed), in both phases: RESULTS-strength.md's r1 rows
REVEALED = "engine:revealed=1:end_revealed=1"
#: generation 1 that plays the best play rather than a pickup at most 0.05 better, in both
#: phases (method_bots.progress_pick): the candidate of RESULTS-strength.md's p1 rows.
#: Since the p2 decision the spec builds today's engine (margin 0.05 where the pickup's
#: figure is at most 0.33); the p1 rows, complete, played it with no such bound.
PROGRESS = "engine:pickup_margin=0.05"
#: generation 1 whose draw-phase search no longer fixes the draw pile's order per deal:
#: each refill is a chance node, two draws of the pool kept per node (SearchConfig.ordered,
#: chance_width): the candidate of RESULTS-strength.md's e1 rows
UNORDERED = "engine:ordered=0:chance_width=2"
#: generation 1 whose inference weighs the candidate deals by the policy model's likelihood
#: to the power 0.5 (SearchConfig.infer_temp), in both phases: the candidate of
#: RESULTS-strength.md's t1 rows
TEMPERED = "engine:infer_temp=0.5:end_infer_temp=0.5"
#: ``engine`` (as it is once t1-engine has decided) that plays the best play rather than a
#: pickup at most 0.05 better only where the pickup's figure is at most 0.33, the
#: positions it already leads (method_bots.progress_pick): RESULTS-strength.md's p2 rows
LEADING = "engine:pickup_margin=0.05:pickup_below=0.33"
#: ``engine`` (as the t1 and p2 decisions leave it) with generation 3's network and policy
#: model in both phases (docs/learning.md, Generation 3): RESULTS-strength.md's g3 row
GEN3 = "engine:weights=gen3:end_weights=gen3"
#: generation 4's network and policy model (docs/learning.md, Generation 4); in the w1 rows,
#: played before the w1 decision, the engine that kept its near pickups until another side
#: took the pile by choice (``nopick_below=none`` now)
GEN4 = "engine:weights=gen4:end_weights=gen4"
#: the m1 candidate: the inference takes each other seat for the greedy style with prior 0.1
#: (SearchConfig.infer_greedy; RESULTS-strength.md, Styles of play in the inference), in
#: both phases; generation 4's network pinned, as in the rows it is paired with
STYLES = "engine:infer_greedy=0.1:end_infer_greedy=0.1:weights=gen4:end_weights=gen4"
#: the s1 candidate: the m1 candidate whose search gives a seat dealt the greedy style the
#: bot's moves (SearchConfig.model_styles; RESULTS-strength.md, Styles in the search)
STYLED = STYLES + ":model_styles=1:end_model_styles=1"
#: the m3 candidate: the m1 candidate on ``engine`` as the decisions before it leave it (no
#: network pinned: both sides of its rows are played after the g6 decision)
STYLES_NOW = "engine:infer_greedy=0.1:end_infer_greedy=0.1"
#: the b2 candidate: ``engine`` as the decisions before it leave it, with 1.75 times its
#: nodes in the draw phase (210,000; once the draw pile is empty its own): the time its
#: search saved since engine1, spent on the search, its median draw-phase decision still
#: within the issue's 1.15 times engine1's (RESULTS-strength.md, rows b2-)
B2_NODES = 210_000
BUDGET_NOW = f"engine:nodes={B2_NODES}"
#: ``engine`` as m3-ref-greedy-3p played it (the draw phase's 120,000 nodes and generation
#: 4's network pinned, whatever the b2 and later decisions make of engine), given the other
#: seats' hands as they are: what seeing the hands is worth with three players
#: (RESULTS-strength.md, row o2-greedy-3p)
SEES_3P = "engine:sees_hands=1:nodes=120000:weights=gen4:end_weights=gen4"
#: generation 5's network and policy model (docs/learning.md, Generation 5): the g5 row's
#: candidate
GEN5 = "engine:weights=gen5:end_weights=gen5"
#: generation 6's network and policy model (docs/learning.md, Generation 6), the first that
#: learned from three-player games of engines at the full budget: the g6 row's candidate
GEN6 = "engine:weights=gen6:end_weights=gen6"
#: ``engine`` dealing the others' hands uniformly over the unseen cards: the ablation of the
#: inference (the t2 row of RESULTS-strength.md, Generation 4)
NOINFER = "engine:infer=0:end_infer=0"
#: the l1 candidate: from the game's 200th decision on, a near pickup gives way to the best
#: play wherever the pickup's loss is at most 0.5 (RESULTS-strength.md, Late progress)
LATE = "engine:late_below=0.5"
#: the w1 candidate: until another player takes the pile by choice, a near pickup gives way
#: to the best play wherever it is (RESULTS-strength.md, Progress against sides that never
#: pick up by choice); generation 4's network pinned, as in the rows it is paired with
W1 = "engine:nopick_below=1:weights=gen4:end_weights=gen4"
#: the n1 candidate: with three or more players, each deal searched on the mover's own loss
#: against the others as one side (SearchConfig.paranoid), in both phases; generation 4's
#: network pinned, as in the rows it is paired with (RESULTS-strength.md, Three players: the
#: paranoid search). Two-player games are the same as engine's.
N1 = "engine:paranoid=1:end_paranoid=1:weights=gen4:end_weights=gen4"
#: the x1 candidate: the m1 and n1 candidates together (the greedy style in the inference,
#: the paranoid search with three players; RESULTS-strength.md, Three players: both), in
#: both phases; generation 4's network pinned, as in the rows it is paired with
X1 = "engine:infer_greedy=0.1:end_infer_greedy=0.1:paranoid=1:end_paranoid=1:" \
     "weights=gen4:end_weights=gen4"
#: UNORDERED as e1-server_ismcts was begun with it: every option a decision has changed in
#: ``engine`` since (the t1 and p2 rows, contempt by the c2 rows) pinned to its value then,
#: so that the name builds the agent that played the row's first games
UNORDERED_BEFORE_C2 = (UNORDERED + ":infer_temp=1:end_infer_temp=1:weights=gen1"
                       ":end_weights=gen1:pickup_margin=0:pickup_below=1")
UNORDERED_BEFORE_L1 = UNORDERED_BEFORE_C2 + ":contempt=0:end_contempt=0"
UNORDERED_BEFORE_W1 = UNORDERED_BEFORE_L1 + ":late_below=none"
UNORDERED_AS_BEGUN = UNORDERED_BEFORE_W1 + ":nopick_below=none"

#: row -> (A, B, players, kind, starts asked)
ROWS = {
    "engine-greedy": ("engine", "greedy", 2, "full", 1000),
    "engine-det": ("engine", "det", 2, "full", 1000),
    "engine-engine_gd": ("engine", "engine_gd", 2, "full", 1000),
    "engine-greedy-3p": ("engine", "greedy", 3, "full", 1000),
    "engine-engine_ab": ("engine", "engine_ab", 2, "full", 1000),
    "engine-rollout": ("engine", "rollout", 2, "full", 1000),
    "engine-os_ismcts": ("engine", "os_ismcts", 2, "full", 1000),
    "hint-engine": ("hint", "engine", 2, "full", 1000),
    "engine_det-det": ("engine_det", "det", 2, "full", 1000),
    "engine_det-engine": ("engine_det", "engine", 2, "full", 1000),
    "engine-det-late": ("engine", "det", 2, "late", 1000),
    # Generation 1 (the engine of benchmarks/RESULTS-strength.md's generation-1 section);
    # every row's starts fixed here before its first game, run in this order (200 where
    # an agent costs more than 0.2 s a decision, as the issue asks).
    "g1-engine1": ("engine", "engine1", 2, "full", 500),
    "g1-g0": ("engine", GEN0, 2, "full", 500),
    "g1-noinfer": ("engine", "engine:infer=0:end_infer=0", 2, "full", 500),
    "g1-greedy": ("engine", "greedy", 2, "full", 500),
    "g1-server_ismcts": ("engine", "server_ismcts", 2, "full", 500),
    "g1-mos_uct": ("engine", "mos_uct", 2, "full", 500),
    "g1-det": ("engine", "det", 2, "full", 500),
    "g1-x4-engine": ("engine:budget=4", "engine", 2, "full", 200),
    "g1-q-engine1": ("engine:budget=0.25", "engine1", 2, "full", 500),
    "g1-x4-engine1": ("engine:budget=4", "engine1", 2, "full", 200),
    "g1-hint-engine": ("hint", "engine", 2, "full", 200),
    "g1-greedy-3p": ("engine", "greedy", 3, "full", 500),
    "g1-engine1-3p": ("engine", "engine1", 3, "full", 500),
    # Generation 2 against generation 1 (today's engine), its starts fixed before its
    # first game; whether ``engine`` moves to generation 2 is decided on the whole row.
    "g2-g1": (GEN2, "engine", 2, "full", 500),
    # Contempt (RESULTS-strength.md, Contempt): generation 1 with contempt against the
    # opponents of g1-server_ismcts and g1-greedy on their starts (paired by start with
    # them: `compare`), and against generation 1 without it; starts fixed before the first
    # game, run in this order.
    "c1-server_ismcts": (CONTEMPT, "server_ismcts", 2, "full", 500),
    "c1-greedy": (CONTEMPT, "greedy", 2, "full", 500),
    # Not begun when the c2 rows were planned: it then measures contempt on ``engine`` as
    # the p2 and g3 decisions leave it, and decides with c2-server_ismcts (C2_ROWS).
    "c1-engine": (CONTEMPT, "engine", 2, "full", 500),
    # Revealed cards in the history (RESULTS-strength.md, Revealed cards): against
    # generation 1 without it (the row that decides), then on the starts of
    # g1-server_ismcts and g1-mos_uct (paired by start with them); starts fixed before the
    # first game, run in this order.
    "r1-engine": (REVEALED, "engine", 2, "full", 500),
    "r1-server_ismcts": (REVEALED, "server_ismcts", 2, "full", 500),
    "r1-mos_uct": (REVEALED, "mos_uct", 2, "full", 500),
    # Progress over near pickups (RESULTS-strength.md, Where the draws come from): on the
    # starts of r1-server_ismcts (paired by start with it), against today's engine (the
    # rows that decide), then on the starts of g1-greedy; starts fixed before the first
    # game, run in this order.
    "p1-server_ismcts": (PROGRESS, "server_ismcts", 2, "full", 500),
    "p1-engine": (PROGRESS, "engine", 2, "full", 500),
    "p1-greedy": (PROGRESS, "greedy", 2, "full", 500),
    # A search that does not see the draw pile's order (RESULTS-strength.md, The draw
    # pile's order): against today's engine (the row that decides), then on the starts of
    # r1-server_ismcts (paired by start with it); starts fixed before the first game, run
    # in this order. e1-x4-e1, the budget row of the candidate, is played only if the
    # candidate becomes engine.
    "e1-engine": (UNORDERED, "engine", 2, "full", 500),
    "e1-server_ismcts": (UNORDERED_AS_BEGUN, "server_ismcts", 2, "full", 500),
    "e1-x4-e1": (UNORDERED + ":budget=4", UNORDERED, 2, "full", 200),
    # The inference's weights tempered (RESULTS-strength.md, Tempered inference): against
    # today's engine (the row that decides), then, only if the candidate becomes engine,
    # against the candidate without inference (the ablation for the new engine);
    # starts fixed before the first game, run in this order. (t1-x4-t1, the candidate's
    # budget row, gave way to b1-x4-engine before any game.)
    "t1-engine": (TEMPERED, "engine", 2, "full", 500),
    "t1-noinfer": (TEMPERED, TEMPERED + ":infer=0:end_infer=0", 2, "full", 500),
    # Progress where the engine leads (RESULTS-strength.md, rows p2-): against ``engine``
    # as t1-engine leaves it, then on the starts of r1-server_ismcts (paired by start with
    # it); both decide; starts fixed before the first game, run in this order once
    # t1-engine has decided, before the rows measuring ``engine``.
    "p2-engine": (LEADING, "engine", 2, "full", 500),
    "p2-server_ismcts": (LEADING, "server_ismcts", 2, "full", 500),
    # The budget row of ``engine`` as the t1 and p2 decisions leave it (RESULTS-strength.md,
    # The budget row again): in place of t1-x4-t1, on starts of seed 1 (``SEEDS``), so that
    # an engine unchanged since g1-x4-engine does not replay that row's games; size and
    # place fixed before its first game.
    "b1-x4-engine": ("engine:budget=4", "engine", 2, "full", 500),
    # Generation 3 against engine (RESULTS-strength.md, Generation 3): decides; its place,
    # after the p2 decision and before the rows measuring engine, and its size fixed before
    # its first game, once the network existed.
    "g3-engine": (GEN3, "engine", 2, "full", 500),
    # The peers' rows again for ``engine`` as every decision above leaves it (RESULTS-
    # strength.md, The peers again): starts of seed 2, so that an agent a decision left
    # unchanged does not replay an earlier row's games; size and place fixed before the
    # first game; they decide nothing.
    "f1-greedy": ("engine", "greedy", 2, "full", 500),
    "f1-det": ("engine", "det", 2, "full", 500),
    "f1-server_ismcts": ("engine", "server_ismcts", 2, "full", 500),
    "f1-mos_uct": ("engine", "mos_uct", 2, "full", 500),
    # Contempt again, on the engine that gives up near pickups where it leads (RESULTS-
    # strength.md, rows c2-): on the starts of p2-server_ismcts (paired by start with it),
    # then c1-engine, not begun, decides with it; starts, rule and place fixed before the
    # first game, after the g3 decision and before the rows measuring engine.
    "c2-server_ismcts": (CONTEMPT, "server_ismcts", 2, "full", 500),
    # Late progress (RESULTS-strength.md, rows l1-): against ``engine`` as the c2 decision
    # left it, then on the starts of c2-server_ismcts (paired by start with it); both
    # decide; starts, rule and place (after t1-noinfer, before the rows measuring engine)
    # fixed before the first game.
    "l1-engine": (LATE, "engine", 2, "full", 500),
    "l1-server_ismcts": (LATE, "server_ismcts", 2, "full", 500),
    # Generation 4 against engine (docs/learning.md, Generation 4): decides with generation
    # 2's rule; its size and place (after the l1 decision, before the rows measuring
    # engine) fixed before its first game, once the network existed.
    "g4-engine": (GEN4, "engine", 2, "full", 500),
    # The inference ablation for engine as the g4 decision left it (generation 4's policy
    # model; RESULTS-strength.md, Generation 4): starts of seed 3, recorded; size and
    # place (after b1-x4-engine, before e1-server_ismcts) fixed before its first game.
    "t2-noinfer": ("engine", NOINFER, 2, "full", 500),
    # What palace live suggests since the analyses moved to generation 4 (RESULTS-strength.md,
    # Generation 4), against engine as the g4 decision left it (generation 4 pinned on
    # 2026-12-07, before its first game, when the g5 row was placed before it): starts of
    # seed 4; size and place (after t2-noinfer, before e1-server_ismcts) fixed before its
    # first game. Like g1-hint-engine, hint stops at 2 s of wall time: nothing else runs on
    # the cores meanwhile.
    "g4-hint-engine": ("hint", GEN4, 2, "full", 200),
    # The inference ablation with three players (RESULTS-strength.md, Generation 4): engine
    # against two seats of itself dealing uniformly, where each seat has two hidden hands to
    # infer; starts of seed 5, recorded (three-player games of the engine for a later
    # generation's values, which have learned from none since generation 1); size and place
    # (after t2-noinfer, before f1-server_ismcts) fixed before its first game.
    "t3-noinfer-3p": ("engine", NOINFER, 3, "full", 500),
    # Progress against sides that never pick up by choice (RESULTS-strength.md): the w1
    # candidate against greedy on f1-greedy's starts (paired by start with it), then, only if
    # it gains there, against generation 4's engine (starts of seed 6, recorded); once
    # adopted, against two greedy on g1-greedy-3p's starts (paired with it); starts, rule and
    # place (after t2-noinfer, before t3-noinfer-3p; moved before t2-noinfer before any game
    # of either) fixed before the first game.
    "w1-greedy": (W1, "greedy", 2, "full", 500),
    "w1-engine": (W1, GEN4, 2, "full", 500),
    "w1-greedy-3p": (W1, "greedy", 3, "full", 500),
    # Only if the w1 rows adopt their candidate (RESULTS-strength.md, rows w2-): engine as
    # that decision leaves it, on starts no choice has seen, against greedy (w1-greedy chose
    # the candidate, so its score carries that choice; seed 8) and against two engine1 (the
    # three-player mark met by engine before the change; seed 9, recorded: three-player
    # games of engines for a later generation); starts, place (w2-greedy after
    # w1-greedy-3p, w2-engine1-3p before f1-server_ismcts) and purpose fixed on 2026-12-06,
    # before any game of a w1 row.
    "w2-greedy": ("engine", "greedy", 2, "full", 500),
    "w2-engine1-3p": ("engine", "engine1", 3, "full", 500),
    # What seeing the others' hands is worth (RESULTS-strength.md, rows o1-): generation 4's
    # engine given the true hands against itself, starts of seed 7; decides nothing: the most
    # any inference could win, beside t2-noinfer's what it does win; size and place (after
    # t3-noinfer-3p, before f1-server_ismcts) fixed before its first game.
    "o1-engine": ("engine:sees_hands=1:weights=gen4:end_weights=gen4", GEN4, 2, "full", 500),
    # Three players: the paranoid search (RESULTS-strength.md, rows n1-): the candidate
    # against two greedy on g1-greedy-3p's starts (paired by start with w1-greedy-3p, which
    # played engine as it is on them), then, only if it gains there, against two of
    # generation 4's engine (200 starts of seed 10, recorded; equal agents score 2/3); and,
    # only if the rule adopts it, engine as that leaves it against two greedy on starts no
    # choice has seen (seed 11). Starts, rule and place (n1-greedy-3p, then t2-noinfer's
    # rest, then n1-engine-3p, before the rows with three players measuring engine) fixed
    # on 2026-12-07 before the first game of any.
    "n1-greedy-3p": (N1, "greedy", 3, "full", 500),
    "n1-engine-3p": (N1, GEN4, 3, "full", 200),
    "n2-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # Generation 5 against generation 4's engine (docs/learning.md, Generation 5): decides
    # with generation 2's rule; starts of seed 12, recorded (generation 5's games for the
    # next generation); size, rule and place (after t3-noinfer-3p, the row being played
    # when it was placed, before the rows measuring engine) fixed on 2026-12-07, once the
    # network existed and before its first game. Generation 4 is pinned on B's side, so that
    # the name builds the same agent whatever the row decides.
    "g5-engine": (GEN5, GEN4, 2, "full", 500),
    # Styles of play in the inference (RESULTS-strength.md, rows m1-): the candidate against
    # two greedy on g1-greedy-3p's starts (paired by start with w1-greedy-3p, engine as it
    # is on them); then, only if it gains there, against generation 4's engine (200 starts
    # of seed 13, recorded), and against greedy with two players on f1-greedy's starts
    # (paired with w1-greedy; decides nothing); and, only if the rule adopts it, engine as
    # that leaves it against two greedy on starts no choice has seen (seed 14). Starts, rule
    # and place (after t3-noinfer-3p, before g5-engine) fixed on 2026-12-07 before the
    # first game of any.
    "m1-greedy-3p": (STYLES, "greedy", 3, "full", 500),
    "m1-engine": (STYLES, GEN4, 2, "full", 200),
    "m1-greedy": (STYLES, "greedy", 2, "full", 500),
    "m2-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # Styles in the search (RESULTS-strength.md, rows s1-): as the m1 rows, with the s1
    # candidate: against two greedy on g1-greedy-3p's starts (paired with w1-greedy-3p);
    # only if it gains there, against generation 4's engine (200 starts of seed 15,
    # recorded) and against greedy on f1-greedy's starts (paired with w1-greedy; decides
    # nothing); only if adopted, engine as that leaves it against two greedy on starts of
    # seed 16. Starts, rule and place (after the m1 rows, before g5-engine) fixed on
    # 2026-12-07 before the first game of any.
    "s1-greedy-3p": (STYLED, "greedy", 3, "full", 500),
    "s1-engine": (STYLED, GEN4, 2, "full", 200),
    "s1-greedy": (STYLED, "greedy", 2, "full", 500),
    "s2-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # Three players, both (RESULTS-strength.md, rows x1-): the m1 and n1 candidates
    # together against two greedy on g1-greedy-3p's starts (paired with w1-greedy-3p); only
    # if it gains there, against generation 4's engine with two players (200 starts of seed
    # 17, recorded) and with three (200 starts of seed 18, recorded; equal agents score
    # 2/3); only if adopted, engine as that leaves it against two greedy on starts of seed
    # 19. Starts, rule and place (after g5-engine, before the rows measuring engine) fixed
    # on 2026-12-07 before the first game of any.
    "x1-greedy-3p": (X1, "greedy", 3, "full", 500),
    "x1-engine": (X1, GEN4, 2, "full", 200),
    "x1-engine-3p": (X1, GEN4, 3, "full", 200),
    "x2-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # Generation 6 against generation 4's engine (docs/learning.md, Generation 6; engine as
    # the x1 decision leaves it on both sides, generation 4 pinned on B's): decides with
    # generation 2's rule; starts of seed 20, recorded; only if adopted, engine as that
    # leaves it against two greedy on starts no choice has seen (seed 21). Size, rule and
    # place (after the x1 rows, before the rows measuring engine) fixed on 2026-12-07, once
    # the network existed and before the first game of either.
    "g6-engine": (GEN6, GEN4, 2, "full", 500),
    "g6-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # The greedy style in the inference again, on new starts (RESULTS-strength.md, rows
    # m3-): the candidate and engine, each against two greedy on the same 1,000 starts of
    # seed 22 in their three seatings, paired by start; only if the candidate gains there,
    # against engine with two players (200 starts of seed 23, recorded); only if adopted,
    # engine as that leaves it against two greedy on starts no choice has seen (seed 24).
    # Starts, rule and place (after the g6 rows, before the rows measuring engine) fixed
    # on 2026-12-07 before the first game of any.
    "m3-ref-greedy-3p": ("engine", "greedy", 3, "full", 1000),
    "m3-greedy-3p": (STYLES_NOW, "greedy", 3, "full", 1000),
    "m3-engine": (STYLES_NOW, "engine", 2, "full", 200),
    "m4-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # The time the engine saved, spent on its search (RESULTS-strength.md, rows b2-): the
    # candidate against two greedy on the m3 rows' 1,000 starts, paired with the m3 row
    # that is engine once the m3 decision is taken; only if it gains there, against engine
    # with two players (200 starts of seed 25, recorded); only if adopted, engine as that
    # leaves it against two greedy on starts no choice has seen (seed 26). Starts, rule and
    # place (after the m3 rows, before the rows measuring engine) fixed on 2026-12-07,
    # before the first game of any.
    "b2-greedy-3p": (BUDGET_NOW, "greedy", 3, "full", 1000),
    "b2-engine": (BUDGET_NOW, "engine", 2, "full", 200),
    "b3-greedy-3p": ("engine", "greedy", 3, "full", 500),
    # What seeing the hands is worth with three players (RESULTS-strength.md, row
    # o2-greedy-3p): engine as m3-ref-greedy-3p played it, given the others' hands, against
    # two greedy on the first 500 of that row's starts, paired with it by start; decides
    # nothing. Size, starts and place (right after o1-engine) fixed on 2026-12-07, before
    # its first game and before b2-greedy-3p's score was read.
    "o2-greedy-3p": (SEES_3P, "greedy", 3, "full", 500),
}

#: Rows begun under an A whose name, since a decision changed ``engine``'s defaults, builds
#: another agent: that name. Their ROWS entry names the agent that played them with every
#: changed option pinned; :func:`respecify` moves their file to it once the recorded budget
#: and a game played again show that it is the same agent.
#: (e1-server_ismcts was moved from UNORDERED to UNORDERED_BEFORE_C2 after the p2 decision,
#: from it to UNORDERED_BEFORE_L1 after the c2 decision made contempt engine's default, from
#: that to UNORDERED_BEFORE_W1 after the l1 decision made the late bound engine's, and to
#: UNORDERED_AS_BEGUN after the w1 decision made the bound while no other player has taken
#: the pile by choice engine's)
RESPECIFIED = {"e1-server_ismcts": UNORDERED_BEFORE_W1}

#: The seed of a row's starts where it is not 0 (every row before b1-x4-engine has 0):
#: rows of different seeds share no start, so ``compare`` refuses to pair them.
SEEDS = {"b1-x4-engine": 1, "f1-greedy": 2, "f1-det": 2, "f1-server_ismcts": 2,
         "f1-mos_uct": 2, "t2-noinfer": 3, "g4-hint-engine": 4, "t3-noinfer-3p": 5,
         "w1-greedy": 2, "w1-engine": 6, "o1-engine": 7, "w2-greedy": 8,
         "w2-engine1-3p": 9, "n1-engine-3p": 10, "n2-greedy-3p": 11, "g5-engine": 12,
         "m1-greedy": 2, "m1-engine": 13, "m2-greedy-3p": 14, "s1-greedy": 2,
         "s1-engine": 15, "s2-greedy-3p": 16, "x1-engine": 17, "x1-engine-3p": 18,
         "x2-greedy-3p": 19, "g6-engine": 20, "g6-greedy-3p": 21,
         "m3-ref-greedy-3p": 22, "m3-greedy-3p": 22, "m3-engine": 23, "m4-greedy-3p": 24,
         "b2-greedy-3p": 22, "b2-engine": 25, "b3-greedy-3p": 26,
         "o2-greedy-3p": 22}


def row_seed(row: str) -> int:
    return SEEDS.get(row, 0)

#: The order the rows still short of their starts are played in (``strength.py queue``),
#: across plans: each row's place was set before its first game, as RESULTS-strength.md
#: says for each of them (the p1 rows after g1-x4-engine1 and before the rest of the g1
#: plan; e1-server_ismcts, begun before
#: e1-engine's end and deciding nothing once e1-engine had kept engine as it was, last).
#: A new session restarts it all with one command; complete rows are skipped.
QUEUE = ("g1-x4-engine1", "p1-server_ismcts", "p1-engine", "p1-greedy", "e1-engine",
         "g1-hint-engine", "t1-engine")
#: Rows queued only once the row before them has decided what ``engine`` is: the queue stops
#: after ``t1-engine`` so that no row is begun with an engine its rule may replace. Then the
#: p2 rows (``P2_AFTER_T1``), which may change ``engine`` again, then g3-engine and the c2
#: rows (``C2_ROWS``), which may too, then (with the t1 candidate adopted, t1-noinfer
#: first) the l1 rows (``L1_ROWS``), then g4-engine, and after their decisions these: the
#: rows of the issue's marks (three players, the peers again, then b1-x4-engine, moved
#: behind them before its first game for its cost: about 6.6 core-hours planned, 9 as
#: played, the dearest single row, then
#: the inference ablation of generation 4's engine, then generation 4's hints), then the one
#: that measures a candidate no rule can adopt any more. On 2026-12-06, before the first game
#: of any of them, f1-server_ismcts moved behind t2-noinfer: its mark is met already
#: (l1-server_ismcts), while b1-x4-engine and t2-noinfer can still move a mark and hold the
#: games generation 5 waits for. The three-player ablation, planned the same day, comes
#: after t2-noinfer: the rows after it measure marks met already. Then the w1 rows were
#: planned, to decide after b1-x4-engine (W1_AFTER; first planned after t2-noinfer) what
#: engine is, before the rows after it, the two-player then the three-player ablation,
#: then o1-engine (what seeing the hands is worth, the bound of the ablations), then its
#: three-player twin o2-greedy-3p (planned 2026-12-07), before the rows of marks met already.
P2_AFTER_T1 = ("p2-engine", "p2-server_ismcts")
AFTER_DECISION = ("g1-greedy-3p", "g1-engine1-3p", "f1-greedy", "f1-det", "f1-mos_uct",
                  "b1-x4-engine", "t2-noinfer", "t3-noinfer-3p", "o1-engine",
                  "o2-greedy-3p", "f1-server_ismcts", "g4-hint-engine", "e1-server_ismcts")
#: The rows of the c2 decision (contempt on the engine as the p2 and g3 decisions leave it),
#: played after the g3 decision: c1-engine, planned earlier to decide nothing and not begun,
#: decides with the new row.
C2_ROWS = ("c2-server_ismcts", "c1-engine")
#: The rows of the l1 decision (late progress on the engine the c2 decision left), played
#: after t1-noinfer, which was begun before them, and before the rows measuring ``engine``.
L1_ROWS = ("l1-engine", "l1-server_ismcts")
#: The w1 rows are played after this row of AFTER_DECISION: the rows before it first, the
#: rows after it once the w1 decision is taken (with an adopted candidate, w1-greedy-3p
#: first). Planned after t2-noinfer; on 2026-12-06, before any game of t2-noinfer or of a
#: w1 row, moved before t2-noinfer: w1-greedy costs about 1 core-hour against t2-noinfer's
#: 8, and the ablation then measures engine as the w1 decision leaves it.
W1_AFTER = "b1-x4-engine"
#: Played only once the w1 rows have adopted their candidate and engine is it: these right
#: after the w1 rows, w2-engine1-3p (a mark met before the change, the dearer row) just
#: before W2_BEFORE.
W1_ADOPTED = ("w1-greedy-3p", "w2-greedy")
W2_BEFORE = "f1-server_ismcts"
#: The rows of the n1 decision (the paranoid search with three players), after the w1
#: rows: n1-greedy-3p (about 2 core-hours) first, then the rest of t2-noinfer (two players:
#: the candidate plays them as engine does, and the games generation 5 waits for come
#: next), then n1-engine-3p only if n1-greedy-3p gained; the rows with three players that
#: measure engine (t3-noinfer-3p, w2-engine1-3p) wait for the decision. With the candidate
#: adopted, N1_ADOPTED right after them.
N1_ROWS = ("n1-greedy-3p", "t2-noinfer")
N1_ADOPTED = ("n2-greedy-3p",)
#: Generation 5 decides after this row of AFTER_DECISION (the one being played when the g5
#: row was placed, 2026-12-07) and before the rows after it, which measure engine as the
#: decision leaves it (o1-engine and g4-hint-engine pin generation 4).
G5_AFTER = "t3-noinfer-3p"
#: The rows of the m1 decision (styles of play in the inference), after G5_AFTER and
#: before the s1 rows and g5-engine: m1-greedy-3p first, then m1-engine and m1-greedy only
#: if it gains.
#: With the candidate adopted, M1_ADOPTED right after them.
M1_ROWS = ("m1-greedy-3p",)
M1_GAINED = ("m1-engine", "m1-greedy")
M1_ADOPTED = ("m2-greedy-3p",)
#: The rows of the s1 decision (styles in the search), after the m1 rows (and m2-greedy-3p
#: with the m1 candidate adopted) and before g5-engine, in the same shape.
S1_ROWS = ("s1-greedy-3p",)
S1_GAINED = ("s1-engine", "s1-greedy")
S1_ADOPTED = ("s2-greedy-3p",)
#: The rows of the x1 decision (both three-player candidates together), after g5-engine and
#: before the rows after it, in the same shape, with a guard for each player count.
X1_ROWS = ("x1-greedy-3p",)
X1_GAINED = ("x1-engine", "x1-engine-3p")
X1_ADOPTED = ("x2-greedy-3p",)
#: Generation 6 decides after the x1 rows (and x2-greedy-3p with their candidate adopted),
#: before the rows that measure engine; with generation 6 adopted, G6_ADOPTED right after.
G6_ADOPTED = ("g6-greedy-3p",)
#: The rows of the m3 decision (the greedy style in the inference on new starts), after the
#: g6 rows: engine's row first, then the candidate's on the same starts; m3-engine only if
#: the candidate gains; with the candidate adopted, M3_ADOPTED right after them.
M3_ROWS = ("m3-ref-greedy-3p", "m3-greedy-3p")
M3_GAINED = ("m3-engine",)
M3_ADOPTED = ("m4-greedy-3p",)
#: The rows of the b2 decision (the larger draw-phase budget), after the m3 rows (and
#: m4-greedy-3p with their candidate adopted), in the same shape.
B2_ROWS = ("b2-greedy-3p",)
B2_GAINED = ("b2-engine",)
B2_ADOPTED = ("b3-greedy-3p",)

#: Rows whose games keep their events (every chance outcome and move, and each move's
#: figure: palace_solver.jobs.match.play_task), so that a later generation can learn from
#: them as from a self-play run: the rows of engines against engines begun after
#: 2026-12-05 (a row's file cannot change its tasks once begun, and recording changes
#: nothing in a game); and p2-server_ismcts and the f1 rows against the searching peers,
#: whose draws benchmarks/draw_anatomy.py --row can then count with the engine's figures.
RECORDED = frozenset({"t1-engine", "t1-noinfer", "c1-engine", "b1-x4-engine", "p2-engine",
                      "p2-server_ismcts", "g3-engine", "f1-server_ismcts", "f1-mos_uct",
                      "c2-server_ismcts", "l1-engine", "l1-server_ismcts", "g4-engine",
                      "t2-noinfer", "t3-noinfer-3p", "w1-engine", "w2-engine1-3p",
                      "n1-engine-3p", "g5-engine", "m1-engine", "s1-engine",
                      "x1-engine", "x1-engine-3p", "g6-engine", "m3-engine",
                      "b2-engine"})

#: Rows played before generation 1, when ``engine`` was what ``engine1`` now names: their
#: files stay as they were played and the report names that agent ``engine1``.
BEFORE_GEN1 = {row for row in ROWS
               if not row.startswith(("g1-", "g2-", "c1-", "r1-", "p1-", "e1-", "t1-",
                                        "p2-", "b1-", "g3-", "f1-", "c2-", "l1-",
                                        "g4-", "t2-", "t3-", "o1-", "w1-", "w2-", "n1-",
                                        "n2-", "g5-", "m1-", "m2-", "s1-", "s2-",
                                        "x1-", "x2-", "g6-", "m3-", "m4-", "b2-",
                                        "b3-", "o2-"))}


def _file(row):
    return HERE / f"{row}.jsonl"


def row_tasks(row: str, starts: int | None = None) -> list[dict]:
    """The row's games as batch tasks (its planned starts unless ``starts``)."""
    a, b, n, kind, asked = ROWS[row]
    return match_tasks(a, b, players=n, kind=kind, starts=starts or asked, seed=row_seed(row),
                       rules=Rules(), record=row in RECORDED)


def agent_budget(spec: str) -> dict:
    """What an agent searches with (its configurations' fields), for the row's record."""
    ag = make_agent(spec)
    out = {"name": ag.name}
    for part in getattr(ag, "parts", (ag,)):
        for attr in ("config", "endgame"):
            cfg = getattr(part, attr, None)
            if hasattr(cfg, "to_json"):       # (det's config is a method: its fields below)
                out[f"{part.name}.{attr}"] = cfg.to_json()
        for attr in ("samples", "deal_nodes", "draw_nodes", "exact_mode_nodes", "eval_mode",
                     "iterations", "seconds", "sims", "draw_limit"):
            if hasattr(part, attr):
                out[f"{part.name}.{attr}"] = getattr(part, attr)
        # only when set, so that the rows played before it existed still match their records
        if getattr(part, "pickup_margin", 0):
            out[f"{part.name}.pickup_margin"] = part.pickup_margin
        if getattr(part, "pickup_below", 1.0) < 1.0:
            out[f"{part.name}.pickup_below"] = part.pickup_below
        if getattr(part, "late_below", None) is not None:
            out[f"{part.name}.late"] = [part.late_from, part.late_below]
    return out


def run(row: str, starts: int | None, jobs: int) -> dict:
    """Play the row (resuming its file); its agents' budgets go to ``ROW.agents.json``
    beside it, so a result says what played, and each run's provenance is added to its
    ``provenance`` list."""
    a, b, n, kind, asked = ROWS[row]
    HERE.mkdir(parents=True, exist_ok=True)
    side = HERE / f"{row}.agents.json"
    rec = provenance.record()
    record = {"agents": [agent_budget(a), agent_budget(b)], "provenance": []}
    respecify(row)
    if side.exists():
        old = json.loads(side.read_text())
        if old["agents"] != record["agents"]:
            raise SystemExit(f"{side} records other agents than today's; move the row's "
                             f"files away to start it again")
    grow(row, starts or asked)
    if side.exists():
        record = json.loads(side.read_text())     # as grow() left it
    # written before the games (a run killed midway still says what played) and again after
    runs = record.setdefault("provenance", [])
    runs.append(dict(provenance.finish(rec), finished=False))
    side.write_text(json.dumps(record, indent=1) + "\n")
    out = run_match(a, b, players=n, kind=kind, starts=starts or asked, seed=row_seed(row),
                    jobs=jobs, output=_file(row), progress=True, record=row in RECORDED)
    runs[-1] = dict(provenance.finish(rec), finished=True, games=out["games"])
    side.write_text(json.dumps(record, indent=1) + "\n")
    return out


def _renamed(budget: dict, old: str, new: str) -> dict:
    """An agent's recorded budget with its name ``old`` written ``new``."""
    out = {}
    for k, v in budget.items():
        if k == "name":
            out[k] = new if v == old else v
        else:
            out[new + k[len(old):] if k.startswith(old + ".") else k] = v
    return out


def respecify(row: str) -> None:
    """Move a row of :data:`RESPECIFIED` from the name its games were begun under to its
    ROWS entry, which pins the options changed since: the games' results do not hold the
    agents' names, only the file's fingerprint and its sidecar do.

    :raises SystemExit: the pinned name records another budget than the one the row was
        begun with, or one of its games, played again, comes out differently."""
    old_a = RESPECIFIED.get(row)
    if old_a is None:
        return
    a, b, n, kind, asked = ROWS[row]
    begun = match_tasks(old_a, b, players=n, kind=kind, starts=asked, seed=row_seed(row),
                        rules=Rules(), record=row in RECORDED)
    side = HERE / f"{row}.agents.json"
    tasks, played = row_tasks(row), []

    def check(done):
        record = json.loads(side.read_text())
        if record["agents"][0] != _renamed(agent_budget(a), a, old_a):
            raise SystemExit(f"{row}: {a} records another budget than {old_a} had")
        first = next((t for t in tasks if t["id"] in done), None)
        if first is None:   # (a row without a finished game has nothing to play again)
            return
        played.append(first["id"])
        if not same_result(play_task(first), done[first["id"]]):
            raise SystemExit(f"{row}: game {first['id']} played by {a} differs from its record")

    if not rename_tasks(_file(row), play_task, begun, tasks, check):
        return  # moved already, not begun, or another batch: run_batch refuses it
    record = json.loads(side.read_text())
    record["agents"][0] = agent_budget(a)
    record.setdefault("respecified", []).append(
        {"from": old_a, "to": a, "game_played_again": played[0] if played else None,
         "commit": provenance.git_commit()[0]})
    side.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{row}: its games, begun as {old_a}, now under {a}", file=sys.stderr)


def grow(row: str, starts: int) -> None:
    """Carry a row played with fewer starts into the file of ``starts`` starts.

    A start's games do not depend on how many starts the row has, but the batch file's
    fingerprint covers the whole task list. The old results are kept only when the old
    header's fingerprint is exactly that of the first tasks of the new list."""
    path = _file(row)
    if not path.exists():
        return
    lines = path.read_text().splitlines(keepends=True)
    try:
        old = json.loads(lines[0])
    except (IndexError, ValueError):
        return  # not a batch file: run_batch says so
    tasks = row_tasks(row, starts)
    new = batch_fingerprint(play_task, tasks)
    if old.get("fingerprint") == new or old.get("tasks", 0) >= len(tasks):
        return
    if old.get("fingerprint") != batch_fingerprint(play_task, tasks[:old["tasks"]]):
        return  # another batch: run_batch refuses it
    header = {"palace_batch": FORMAT, "label": old.get("label", "games"), "tasks": len(tasks),
              "fingerprint": new}
    body = [ln for ln in lines[1:] if ln.endswith("\n")]  # a cut last line is replayed
    write_atomic(str(path), json.dumps(header, sort_keys=True, separators=(",", ":")) + "\n"
                 + "".join(body))
    side = HERE / f"{row}.agents.json"
    if side.exists():   # the games after these are played by today's commit
        rec = json.loads(side.read_text())
        rec.setdefault("grown", []).append({"from_games": old["tasks"], "to_games": len(tasks),
                                            "commit": provenance.git_commit()[0]})
        side.write_text(json.dumps(rec, indent=1) + "\n")
    print(f"{row}: {old['tasks']} games carried into a row of {len(tasks)}", file=sys.stderr)


def partial(row: str):
    """The summary over the starts whose seatings are all in the row's file (or None)."""
    a, b, n, kind, asked = ROWS[row]
    path = _file(row)
    if not path.exists():
        return None
    done = dict(finished_results(path))
    tasks = row_tasks(row)
    starts = {t["start"] for t in tasks if all(f"{t['start']}/{k}" in done for k in range(n))}
    kept = [t for t in tasks if t["start"] in starts]
    if not kept:
        return None
    s = summarize(kept, [done[t["id"]] for t in kept])
    s["asked"] = asked
    return s


def start_scores(row: str) -> dict:
    """Per start whose seatings are all in the row's file, A's mean score over them (1 a
    win, 1/2 a draw, 0 a loss)."""
    a, b, n, kind, asked = ROWS[row]
    path = _file(row)
    done = dict(finished_results(path)) if path.exists() else {}
    out = {}
    for start in range(asked):
        got = [done.get(f"{start}/{k}") for k in range(n)]
        if all(g is not None for g in got):
            out[start] = sum(1.0 - g["a_loss"] for g in got) / n
    return out


def compare(row1: str, row2: str) -> dict:
    """``row1``'s A score minus ``row2``'s over the starts both hold, paired by start (the
    same deals and chance: common random numbers), with its 95% t interval."""
    if row_seed(row1) != row_seed(row2):
        raise SystemExit(f"{row1} and {row2} are played on starts of different seeds")
    s1, s2 = start_scores(row1), start_scores(row2)
    common = sorted(set(s1) & set(s2))
    if not common:
        raise SystemExit(f"{row1} and {row2} hold no start in common")
    diff, lo, hi = diff_ci([s1[k] - s2[k] for k in common])
    return {"rows": [row1, row2], "starts": len(common),
            "scores": [sum(s1[k] for k in common) / len(common),
                       sum(s2[k] for k in common) / len(common)],
            "difference": diff, "ci95": [lo, hi]}


def t1_decision() -> bool | None:
    """RESULTS-strength.md's rule for the t1 candidate on the complete t1-engine row: adopted
    if it scores at least 0.5 and its interval does not lie below 0.5 (None: not complete)."""
    if not _complete("t1-engine"):
        return None
    s = partial("t1-engine")
    return s["score"] >= 0.5 and s["ci95"][1] >= 0.5


def _gains_and_holds(rows, peer: str, paired: str, equal: str) -> bool | None:
    """The shape of the p2 and c2 rules: the candidate's row ``peer`` is above ``paired``,
    paired by start, its interval above 0, and the row ``equal`` against ``engine`` does not
    lie below 0.5 (None: one of ``rows`` not complete)."""
    if not all(_complete(r) for r in rows):
        return None
    return compare(peer, paired)["ci95"][0] > 0 and partial(equal)["ci95"][1] >= 0.5


def p2_decision() -> bool | None:
    """The rule for the p2 candidate on the two complete p2 rows: adopted if p2-engine's
    interval does not lie below 0.5 and p2-server_ismcts is above r1-server_ismcts, paired
    by start, its interval above 0 (None: a row not complete)."""
    return _gains_and_holds(P2_AFTER_T1, "p2-server_ismcts", "r1-server_ismcts", "p2-engine")


def _above_half(row: str) -> bool | None:
    """Generation 2's rule, for a generation's row against ``engine``: adopted if the
    complete row's interval lies above 0.5 (None: not complete)."""
    if not _complete(row):
        return None
    return partial(row)["ci95"][0] > 0.5


def g3_decision() -> bool | None:
    """Generation 2's rule for generation 3 on the complete g3-engine row."""
    return _above_half("g3-engine")


def c2_decision() -> bool | None:
    """The rule for contempt on the two complete c2 rows: adopted if c2-server_ismcts is
    above p2-server_ismcts, paired by start, its interval above 0, and c1-engine's interval
    does not lie below 0.5 (None: a row not complete)."""
    return _gains_and_holds(C2_ROWS, "c2-server_ismcts", "p2-server_ismcts", "c1-engine")


def l1_decision() -> bool | None:
    """The rule for late progress on the two complete l1 rows: adopted if l1-server_ismcts
    is above c2-server_ismcts, paired by start, its interval above 0, and l1-engine's
    interval does not lie below 0.5 (None: a row not complete)."""
    return _gains_and_holds(L1_ROWS, "l1-server_ismcts", "c2-server_ismcts", "l1-engine")


def _gains(row: str, paired: str) -> bool | None:
    """Whether ``row`` is above ``paired``, paired by start, its interval above 0 (None:
    not complete)."""
    if not _complete(row):
        return None
    return compare(row, paired)["ci95"][0] > 0


def _gains_then_holds(gains: bool | None, equal: str) -> bool | None:
    """The shape of the w1, n1, m1, s1 and x1 rules: the candidate gained against a side
    that never picks up by choice (``gains``, from :func:`_gains`; only then is ``equal``
    played) and the row ``equal`` against ``engine`` does not lie below the score of equal
    sides (None: a row it needs not complete; False as soon as there is no gain)."""
    if not gains:
        return gains
    if not _complete(equal):
        return None
    s = partial(equal)
    return s["ci95"][1] >= s["equal_score"]


def w1_gains() -> bool | None:
    """Whether w1-greedy gains over f1-greedy (:func:`_gains`). Only then is w1-engine
    played."""
    return _gains("w1-greedy", "f1-greedy")


def w1_decision() -> bool | None:
    """The rule for progress against sides that never pick up by choice: adopted if
    w1-greedy gains (w1_gains) and w1-engine's interval does not lie below 0.5."""
    return _gains_then_holds(w1_gains(), "w1-engine")


def n1_gains() -> bool | None:
    """Whether n1-greedy-3p gains over w1-greedy-3p (:func:`_gains`). Only then is
    n1-engine-3p played."""
    return _gains("n1-greedy-3p", "w1-greedy-3p")


def n1_decision() -> bool | None:
    """The rule for the paranoid search with three players: adopted if n1-greedy-3p gains
    (n1_gains) and n1-engine-3p's interval does not lie below 2/3, equal sides' score
    with three players."""
    return _gains_then_holds(n1_gains(), "n1-engine-3p")


def _n1_in_engine() -> bool:
    return ENGINE.paranoid and ENGINE_END.paranoid


def _w1_in_engine() -> bool:
    return make_agent("engine").nopick_below == 1.0


def g4_decision() -> bool | None:
    """Generation 2's rule for generation 4 on the complete g4-engine row."""
    return _above_half("g4-engine")


def _after_n1(taken: dict) -> list:
    """The rows the w1 and n1 decisions added, then the measuring rows up to G5_AFTER."""
    return ((list(W1_ADOPTED) if taken["w1"] else [])
            + (list(N1_ADOPTED) if taken["n1"] else [])
            + list(AFTER_DECISION[:AFTER_DECISION.index(G5_AFTER) + 1]))


def _gaining(first: tuple, gained: tuple, gains) -> list:
    """A candidate's first rows, then the rows it plays only once ``gains()`` (read when
    the list is made) says the first have gained."""
    return list(first) + (list(gained) if gains() else [])


def _after_m1(taken: dict) -> list:
    """:func:`_after_n1`'s rows, the m1 rows played, and M1_ADOPTED with the m1 candidate
    adopted."""
    return (_after_n1(taken) + _gaining(M1_ROWS, M1_GAINED, m1_gains)
            + (list(M1_ADOPTED) if taken["m1"] else []))


def s1_gains() -> bool | None:
    """Whether s1-greedy-3p gains over w1-greedy-3p (:func:`_gains`). Only then are
    s1-engine and s1-greedy played."""
    return _gains("s1-greedy-3p", "w1-greedy-3p")


def s1_decision() -> bool | None:
    """The rule for the greedy style in the inference and the search: adopted if
    s1-greedy-3p gains (s1_gains) and s1-engine's interval does not lie below 0.5;
    s1-greedy decides nothing."""
    return _gains_then_holds(s1_gains(), "s1-engine")


def _s1_in_engine() -> bool:
    return (ENGINE.infer_greedy == 0.1 and ENGINE_END.infer_greedy == 0.1
            and ENGINE.model_styles and ENGINE_END.model_styles)


def m1_gains() -> bool | None:
    """Whether m1-greedy-3p gains over w1-greedy-3p (:func:`_gains`). Only then are
    m1-engine and m1-greedy played."""
    return _gains("m1-greedy-3p", "w1-greedy-3p")


def m1_decision() -> bool | None:
    """The rule for the greedy style in the inference: adopted if m1-greedy-3p gains
    (m1_gains) and m1-engine's interval does not lie below 0.5; m1-greedy decides
    nothing."""
    return _gains_then_holds(m1_gains(), "m1-engine")


def _m1_in_engine() -> bool:
    return ENGINE.infer_greedy == 0.1 and ENGINE_END.infer_greedy == 0.1


def _after_g5(taken: dict) -> list:
    """:func:`_after_m1`'s rows, S1_ADOPTED with the s1 candidate adopted, and g5-engine."""
    return (_after_m1(taken) + (list(S1_ADOPTED) if taken["s1"] else []) + ["g5-engine"])


def x1_gains() -> bool | None:
    """Whether x1-greedy-3p gains over w1-greedy-3p (:func:`_gains`). Only then are
    x1-engine and x1-engine-3p played."""
    return _gains("x1-greedy-3p", "w1-greedy-3p")


def x1_decision() -> bool | None:
    """The rule for both three-player candidates together: adopted if x1-greedy-3p gains
    (x1_gains) and neither x1-engine's interval lies below 0.5 nor x1-engine-3p's below
    2/3 (None while one it needs is not complete; False once one fails)."""
    two = _gains_then_holds(x1_gains(), "x1-engine")
    if not two:
        return two
    return _gains_then_holds(True, "x1-engine-3p")


def _x1_in_engine() -> bool:
    return (ENGINE.infer_greedy == 0.1 and ENGINE_END.infer_greedy == 0.1
            and ENGINE.paranoid and ENGINE_END.paranoid)


def _after_x1(taken: dict) -> list:
    """:func:`_after_g5`'s rows, the x1 rows played, and X1_ADOPTED with the x1 candidate
    adopted."""
    return (_after_g5(taken) + _gaining(X1_ROWS, X1_GAINED, x1_gains)
            + (list(X1_ADOPTED) if taken["x1"] else []))


def g6_decision() -> bool | None:
    """Generation 2's rule for generation 6 on the complete g6-engine row."""
    return _above_half("g6-engine")


def _g6_in_engine() -> bool:
    return ENGINE.weights == "gen6" and ENGINE_END.weights == "gen6"


def m3_gains() -> bool | None:
    """Whether m3-greedy-3p gains over m3-ref-greedy-3p, paired by start, the interval of
    the difference above 0 (None: either not complete). Only then is m3-engine played."""
    if not _complete("m3-ref-greedy-3p"):
        return None
    return _gains("m3-greedy-3p", "m3-ref-greedy-3p")


def m3_decision() -> bool | None:
    """The rule for the greedy style in the inference on new starts: adopted if
    m3-greedy-3p gains (m3_gains) and m3-engine's interval does not lie below 0.5."""
    return _gains_then_holds(m3_gains(), "m3-engine")


def _after_m3(taken: dict) -> list:
    """:func:`_after_g6`'s rows, the m3 rows played, and M3_ADOPTED with the m3 candidate
    adopted."""
    return (_after_g6(taken) + _gaining(M3_ROWS, M3_GAINED, m3_gains)
            + (list(M3_ADOPTED) if taken["m3"] else []))


def b2_reference() -> str | None:
    """The m3 row that played ``engine`` as the m3 decision leaves it, on the starts of
    b2-greedy-3p (None: the decision is not taken)."""
    decided = m3_decision()
    return None if decided is None else ("m3-greedy-3p" if decided else "m3-ref-greedy-3p")


def b2_gains() -> bool | None:
    """Whether b2-greedy-3p gains over :func:`b2_reference`, paired by start, the interval
    of the difference above 0 (None: either not complete). Only then is b2-engine played."""
    paired = b2_reference()
    if paired is None or not _complete(paired):
        return None
    return _gains("b2-greedy-3p", paired)


def b2_decision() -> bool | None:
    """The rule for the larger draw-phase budget: adopted if b2-greedy-3p gains
    (b2_gains) and b2-engine's interval does not lie below 0.5."""
    return _gains_then_holds(b2_gains(), "b2-engine")


def _b2_in_engine() -> bool:
    return ENGINE.nodes == B2_NODES


def _after_g6(taken: dict) -> list:
    """:func:`_after_x1`'s rows, g6-engine, and G6_ADOPTED with generation 6 adopted."""
    return (_after_x1(taken) + ["g6-engine"]
            + (list(G6_ADOPTED) if taken["g6"] else []))


def g5_decision() -> bool | None:
    """Generation 2's rule for generation 5 on the complete g5-engine row."""
    return _above_half("g5-engine")


def _g5_in_engine() -> bool:
    return ENGINE.weights == "gen5" and ENGINE_END.weights == "gen5"


def _g4_in_engine() -> bool:
    return ENGINE.weights == "gen4" and ENGINE_END.weights == "gen4"


def _l1_in_engine() -> bool:
    ag = make_agent("engine")
    return (ag.late_from, ag.late_below) == (200, 0.5)


def _c2_in_engine() -> bool:
    ag = make_agent("engine")
    return ag.config.contempt == 0.1 and ag.endgame.contempt == 0.1


def _g3_in_engine() -> bool:
    return ENGINE.weights == "gen3" and ENGINE_END.weights == "gen3"


def _t1_in_engine() -> bool:
    return ENGINE.infer_temp == 0.5 and ENGINE_END.infer_temp == 0.5


def _p2_in_engine() -> bool:
    ag = make_agent("engine")
    return (ag.pickup_margin, ag.pickup_below) == (0.05, 0.33)


_ASK = object()

#: The change the m1 and m3 rules ask for (the same candidate) once they adopt it.
_STYLES_CHANGE = (" adopted the greedy style in the inference: set ENGINE and ENGINE_END "
                  "infer_greedy=0.1 (palace_solver/sample/drawsearch.py; HINT and HINT_END "
                  "keep 0), pin infer_greedy=0:end_infer_greedy=0 in the agents of rows "
                  "begun before it and not complete (UNORDERED_AS_BEGUN, RESPECIFIED), then "
                  "queue again")

#: The decisions in the queue's order: name, the rows that take it (after those before),
#: its rule, whether ``engine`` already is the adopted candidate, why the list waits on it,
#: and the change an adoption asks for before the list goes on.
DECISIONS = (
    ("t1", (), lambda: t1_decision(), lambda: _t1_in_engine(),
     "t1-engine decides what engine is",
     "t1-engine adopted the tempered inference: set ENGINE and ENGINE_END infer_temp=0.5 "
     "(palace_solver/sample/drawsearch.py), then queue again"),
    ("p2", P2_AFTER_T1, lambda: p2_decision(), lambda: _p2_in_engine(),
     "the p2 rows decide what engine is",
     "the p2 rows adopted progress where the engine leads: make pickup_margin=0.05, "
     "pickup_below=0.33 engine's defaults (palace_solver/agents/registry.py), then queue "
     "again"),
    ("g3", ("g3-engine",), lambda: g3_decision(), lambda: _g3_in_engine(),
     "g3-engine decides what engine is",
     "g3-engine adopted generation 3: set ENGINE and ENGINE_END weights='gen3' "
     "(palace_solver/sample/drawsearch.py) and measure the analyses' calibration again, "
     "then queue again"),
    ("c2", C2_ROWS, lambda: c2_decision(), lambda: _c2_in_engine(),
     "the c2 rows decide what engine is",
     "the c2 rows adopted contempt: make contempt=0.1 and end_contempt=0.1 engine's "
     "defaults (palace_solver/agents/registry.py; the analyses keep none), then queue "
     "again"),
    # t1-noinfer, begun after the c2 decision, finishes before the l1 rows
    ("l1", lambda taken: (["t1-noinfer"] if taken["t1"] else []) + list(L1_ROWS),
     lambda: l1_decision(), lambda: _l1_in_engine(),
     "the l1 rows decide what engine is",
     "the l1 rows adopted late progress: make LATE_BELOW=0.5 engine's default "
     "(palace_solver/agents/registry.py), pin late_below=none in the agents of rows begun "
     "before it (UNORDERED_AS_BEGUN, RESPECIFIED), then queue again"),
    ("g4", ("g4-engine",), lambda: g4_decision(), lambda: _g4_in_engine(),
     "g4-engine decides what engine is",
     "g4-engine adopted generation 4: set ENGINE and ENGINE_END weights='gen4' "
     "(palace_solver/sample/drawsearch.py), pin weights=gen1:end_weights=gen1 in the agents "
     "of rows begun before it (RESPECIFIED), measure the analyses' calibration again, then "
     "queue again"),
    # the measuring rows up to W1_AFTER, then w1-greedy, and w1-engine only once w1-greedy
    # has shown a gain
    ("w1", lambda taken: (list(AFTER_DECISION[:AFTER_DECISION.index(W1_AFTER) + 1])
                          + ["w1-greedy"] + (["w1-engine"] if w1_gains() else [])),
     lambda: w1_decision(), lambda: _w1_in_engine(),
     "the w1 rows decide what engine is",
     "the w1 rows adopted progress against sides that never pick up by choice: make "
     "nopick_below=1 engine's default (palace_solver/agents/registry.py), pin "
     "nopick_below=none in the agents of rows begun before it (UNORDERED_AS_BEGUN, "
     "RESPECIFIED), then queue again"),
    ("n1", lambda taken: list(N1_ROWS) + (["n1-engine-3p"] if n1_gains() else []),
     lambda: n1_decision(), lambda: _n1_in_engine(),
     "the n1 rows decide what engine is",
     "the n1 rows adopted the paranoid search with three players: set ENGINE and ENGINE_END "
     "paranoid=True (palace_solver/sample/drawsearch.py; HINT and HINT_END keep max-n), pin "
     "paranoid=0:end_paranoid=0 in the agents of rows with three players begun before it, "
     "then queue again"),
    # the rows the w1 and n1 decisions added, the measuring rows up to G5_AFTER, then the
    # m1 rows: m1-greedy-3p, and m1-engine and m1-greedy once it has gained
    ("m1", lambda taken: _after_n1(taken) + _gaining(M1_ROWS, M1_GAINED, m1_gains),
     lambda: m1_decision(), lambda: _m1_in_engine(),
     "the m1 rows decide what engine is", "the m1 rows" + _STYLES_CHANGE),
    # the m1 rows again, m2-greedy-3p with the m1 candidate adopted, then the s1 rows:
    # s1-greedy-3p, and s1-engine and s1-greedy once it has gained
    ("s1", lambda taken: _after_m1(taken) + _gaining(S1_ROWS, S1_GAINED, s1_gains),
     lambda: s1_decision(), lambda: _s1_in_engine(),
     "the s1 rows decide what engine is",
     "the s1 rows adopted the greedy style in the inference and the search: set ENGINE and "
     "ENGINE_END infer_greedy=0.1 and model_styles=True (palace_solver/sample/drawsearch.py;"
     " HINT and HINT_END keep neither), pin infer_greedy=0:end_infer_greedy=0:model_styles=0"
     ":end_model_styles=0 in the agents of rows begun before it and not complete "
     "(UNORDERED_AS_BEGUN, RESPECIFIED), then queue again"),
    ("g5", _after_g5,
     lambda: g5_decision(), lambda: _g5_in_engine(),
     "g5-engine decides what engine is",
     "g5-engine adopted generation 5: set ENGINE and ENGINE_END weights='gen5' "
     "(palace_solver/sample/drawsearch.py), pin weights=gen4:end_weights=gen4 in the agents "
     "of rows begun before it and not complete (RESPECIFIED), then queue again; the analyses "
     "follow only by a calibration rule written first"),
    # the rows before, then x1-greedy-3p, and both guards once it has gained
    ("x1", lambda taken: _after_g5(taken) + _gaining(X1_ROWS, X1_GAINED, x1_gains),
     lambda: x1_decision(), lambda: _x1_in_engine(),
     "the x1 rows decide what engine is",
     "the x1 rows adopted both three-player candidates: set ENGINE and ENGINE_END "
     "infer_greedy=0.1 and paranoid=True (palace_solver/sample/drawsearch.py; HINT and "
     "HINT_END keep neither), pin infer_greedy=0:end_infer_greedy=0:paranoid=0:end_paranoid=0 "
     "in the agents of rows begun before it and not complete (UNORDERED_AS_BEGUN, "
     "RESPECIFIED), then queue again"),
    # the rows before (x2-greedy-3p with the x1 candidate adopted), then g6-engine
    ("g6", lambda taken: _after_x1(taken) + ["g6-engine"],
     lambda: g6_decision(), lambda: _g6_in_engine(),
     "g6-engine decides what engine is",
     "g6-engine adopted generation 6: set ENGINE and ENGINE_END weights='gen6' "
     "(palace_solver/sample/drawsearch.py), pin weights=gen4:end_weights=gen4 in the agents "
     "of rows begun before it and not complete (RESPECIFIED), then queue again; the analyses "
     "follow only by a calibration rule written first"),
    # the rows before (g6-greedy-3p with generation 6 adopted), then the m3 rows, and
    # m3-engine once the candidate has gained
    ("m3", lambda taken: _after_g6(taken) + _gaining(M3_ROWS, M3_GAINED, m3_gains),
     lambda: m3_decision(), lambda: _m1_in_engine(),
     "the m3 rows decide what engine is", "the m3 rows" + _STYLES_CHANGE),
    # the rows before (m4-greedy-3p with the m3 candidate adopted), then b2-greedy-3p, and
    # b2-engine once it has gained
    ("b2", lambda taken: _after_m3(taken) + _gaining(B2_ROWS, B2_GAINED, b2_gains),
     lambda: b2_decision(), lambda: _b2_in_engine(),
     "the b2 rows decide what engine is",
     "the b2 rows adopted the larger draw-phase budget: set ENGINE nodes=210_000 "
     "(palace_solver/sample/drawsearch.py; ENGINE_END, HINT and HINT_END keep theirs), pin "
     "nodes=120000 in the agents of rows begun before it and not complete (RESPECIFIED), "
     "measure the cost again (benchmarks/engine_cost.py), then queue again"),
)


def queue_rows(**given) -> tuple[list, str]:
    """The rows ``strength.py queue`` plays, in order, as the rules written before them
    decide (:data:`DECISIONS`), and why the list ends where it does. ``t1=``, ``p2=``,
    ``g3=``, ``c2=``, ``l1=``, ``g4=``, ``w1=``, ``n1=``, ``m1=``, ``s1=``, ``g5=``,
    ``x1=``, ``g6=``, ``m3=``, ``b2=``: a decision (True, False or None for not taken; by
    default its rule on the rows' files); ``t1_applied=`` and so on: whether ``engine``
    already is the adopted candidate. A decision that adopts a candidate stops the list until its
    change is in ``engine``: no row is begun with an engine its rule replaces. A row a
    decision lists again keeps its first place."""
    unknown = set(given) - {k for d in DECISIONS for k in (d[0], f"{d[0]}_applied")}
    if unknown:
        raise TypeError(f"queue_rows: no decision named {sorted(unknown)}")
    rows, taken = list(QUEUE), {}
    for name, extra, rule, in_engine, waiting, change in DECISIONS:
        rows += [r for r in (extra(taken) if callable(extra) else extra) if r not in rows]
        decided = given.get(name, _ASK)
        taken[name] = decided = rule() if decided is _ASK else decided
        if decided is None:
            return rows, waiting
        applied = given.get(f"{name}_applied", _ASK)
        if decided and not (in_engine() if applied is _ASK else applied):
            return rows, change
    if taken["b2"]:
        rows += [r for r in B2_ADOPTED if r not in rows]
    rest = [r for r in AFTER_DECISION if r not in rows]
    if taken["w1"]:
        rest.insert(rest.index(W2_BEFORE), "w2-engine1-3p")
    rows += rest
    return rows, "every planned row"


def _label(row: str, name: str) -> str:
    return "engine1" if row in BEFORE_GEN1 and name == "engine" else name


def _complete(row: str) -> bool:
    s = partial(row)
    return s is not None and s["starts"] >= ROWS[row][4]


def report(prefix: str = "", partial_scores: bool = False) -> str:
    """The Progress table of the rows named ``prefix``. A row short of its planned starts
    shows its starts, games and costs but not its score (unless ``partial_scores``): a row
    is never stopped or grown after a look at its score, so the table does not offer one."""
    lines = ["| row | A | B | players | starts (asked) | games | A score | 95% CI (paired) | p | "
             "A W/D/L | A ms/decision | B ms/decision | decisions/game |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in ROWS:
        if not row.startswith(prefix):
            continue
        s = partial(row)
        if s is None:
            continue
        ms = [("-" if s[k] is None else f"{s[k]:.1f}") for k in ("a_ms_per_decision",
                                                                  "b_ms_per_decision")]
        if _complete(row) or partial_scores:
            score = (f"{s['score']:.3f} | [{s['ci95'][0]:.3f}, {s['ci95'][1]:.3f}] | "
                     f"{s['p']:.1e} | {s['wins']}/{s['draws']}/{s['losses']}")
        else:
            score = "in progress | - | - | -"
        lines.append(f"| {row} | {_label(row, s['a'])} | {_label(row, s['b'])} | "
                     f"{s['players']} | {s['starts']} ({s['asked']}) | {s['games']} | "
                     f"{score} | {ms[0]} | {ms[1]} | {s['mean_decisions']:.1f} |")
    return "\n".join(lines)


def cpu_left(row: str) -> float | None:
    """Core-hours the row's games still to play would take at the mean CPU time of its
    games so far (both sides' seconds; None for a row with no game yet): a row's cost
    is planned from an earlier row, and this says what its own games show."""
    path = _file(row)
    if not path.exists():
        return None
    secs = [res["a_seconds"] + res["b_seconds"] for _, res in finished_results(path)]
    if not secs:
        return None
    left = ROWS[row][2] * ROWS[row][4] - len(secs)
    return max(0, left) * (sum(secs) / len(secs)) / 3600


def status() -> str:
    """The queue's rows in order (:func:`queue_rows`), each one's starts and games so far
    and whether it is complete, playing next or waiting, with the core-hours left by its
    own games' cost (:func:`cpu_left`), then the rows planned after the decision the list
    waits on, with why it waits; no score."""
    rows, why = queue_rows()
    # the rows after the decision the list waits on, as if each decision not yet taken kept
    # engine as it is (an adoption changes what they measure, not which they are)
    taken = {name: bool(rule()) for name, _, rule, *_ in DECISIONS}
    later, _ = queue_rows(**taken, **{f"{name}_applied": True for name in taken})
    lines, nxt = [], next((r for r in rows if not _complete(r)), None)
    for row in rows + [r for r in later if r not in rows]:
        s = partial(row)
        starts, games = (0, 0) if s is None else (s["starts"], s["games"])
        state = ("complete" if _complete(row) else "next" if row == nxt
                 else "waiting" if row in rows else "planned")
        left = None if state == "complete" else cpu_left(row)
        lines.append(f"{row:22s} {starts:4d}/{ROWS[row][4]:<4d} starts {games:5d} games  "
                     f"{state}" + ("" if left is None else f"  ~{left:.1f} core-h left"))
    lines.append(f"the list waits after {rows[-1]}: {why}" if len(later) > len(rows)
                 else f"the list ends there: {why}")
    return "\n".join(lines)


def replace_table(text: str, prefix: str, table: str) -> str:
    """``text`` (a Markdown file) with the table after the first line that names
    ``strength.py report --prefix PREFIX`` replaced by ``table``."""
    lines = text.split("\n")
    mark = f"strength.py report --prefix {prefix}"
    named = re.compile(re.escape(mark) + r"[`\s]")
    try:
        at = next(i for i, line in enumerate(lines) if named.search(line))
        first = next(i for i in range(at, len(lines)) if lines[i].startswith("| row |"))
    except StopIteration:
        raise SystemExit(f"no table after a line naming {mark!r}") from None
    last = first
    while last < len(lines) and lines[last].startswith("|"):
        last += 1
    return "\n".join(lines[:first] + table.split("\n") + lines[last:])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("run", "plan", "queue", "status", "report", "compare",
                                     "speed"),
                    help="plan: run every row named --prefix in order, each to its starts; "
                    "queue: the planned rows in order, each to its starts, as far as the "
                    "rules' decisions name them (queue_rows); "
                    "status: the queue's rows in order, their starts, games and "
                    "core-hours left (by their own games' cost), no score; "
                    "report: the Progress tables (a row short of its starts without its "
                    "score); compare ROW ROW: the first's score minus the second's, paired "
                    "by start (complete rows)")
    ap.add_argument("row", nargs="?", choices=list(ROWS), metavar="ROW",
                    help="run, compare: a row (strength.py ROWS; status lists the queue's)")
    ap.add_argument("other", nargs="?", choices=list(ROWS), metavar="OTHER",
                    help="compare: the second row")
    ap.add_argument("--starts", type=int, default=None, help="starts (default: the row's)")
    ap.add_argument("--jobs", type=int, default=1, help="local processes")
    ap.add_argument("--prefix", default="", help="report, plan: the rows named so (g1-)")
    ap.add_argument("--into", type=Path, help="report: also rewrite the table of FILE that "
                    "follows the line naming this report (RESULTS-strength.md's Progress)")
    ap.add_argument("--partial-scores", action="store_true",
                    help="report, compare: also the scores of rows short of their starts "
                    "(a look that must not stop or grow them)")
    args = ap.parse_args(argv)
    if args.what == "run":
        if args.row is None:
            ap.error("run needs a ROW")
        t0 = time.perf_counter()
        s = run(args.row, args.starts, args.jobs)
        print(json.dumps(s))
        print(f"wall {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    elif args.what == "plan":
        if not args.prefix:
            ap.error("plan needs --prefix (g1-)")
        for row in ROWS:
            if row.startswith(args.prefix) and not _complete(row):
                print(f"{row}: playing", file=sys.stderr)
                print(json.dumps(run(row, None, args.jobs)))
    elif args.what == "queue":
        played = None
        while True:     # a row's end may take a decision that lengthens the list
            rows, why = queue_rows()
            row = next((r for r in rows if not _complete(r)), None)
            if row is None:
                print(f"queue: every row complete; the list ends there: {why}",
                      file=sys.stderr)
                break
            if row == played:
                raise SystemExit(f"{row} is still short of its starts after a run: "
                                 f"see its file's failed games")
            print(f"{row}: playing", file=sys.stderr)
            print(json.dumps(run(row, None, args.jobs)))
            played = row
    elif args.what == "compare":
        if args.row is None or args.other is None:
            ap.error("compare needs two rows")
        short = [r for r in (args.row, args.other) if not _complete(r)]
        if short and not args.partial_scores:
            ap.error(f"{', '.join(short)} short of its starts: no score before the end "
                     f"(--partial-scores to look anyway)")
        print(json.dumps(compare(args.row, args.other)))
    elif args.what == "status":
        print(status())
    elif args.what == "report":
        table = report(args.prefix, args.partial_scores)
        print(table)
        if args.into:
            args.into.write_text(replace_table(args.into.read_text(), args.prefix, table))
    else:
        from speed import main as speed_main  # benchmarks/speed.py
        speed_main()


if __name__ == "__main__":
    main()
