"""The live-game assistant: a session that follows a real game from what one player sees.
Imports the model and :mod:`palace_solver.analysis`."""
