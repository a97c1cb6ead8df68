"""Agents that play whole games: the bots by name, the search bots over the analysis
methods (:mod:`.method_bots`) and one game between them (:mod:`.play`). Imports the model,
the solvers, the samplers and :mod:`palace_solver.analysis`."""
