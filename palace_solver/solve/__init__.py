"""Solving positions where every hand is known: the bridge to the compiled core
(:mod:`.engine`), the result types (:mod:`.results`), the readable reference solver
(:mod:`.exact`), the compiled exact graph with its depth-limited fallback (:mod:`.compiled`,
:mod:`.deepening`), the choice between them (:mod:`.solver`), the line tree, perft and the
bench. Imports only :mod:`palace_solver.game`."""
