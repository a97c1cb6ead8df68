"""The live-game assistant: a session that follows a real game from what one player sees.

Modules, each importing only those above it in this list (and the model,
:mod:`palace_solver.analysis` and :mod:`palace_solver.jobs` below the package):

- :mod:`~palace_solver.live.events`: the event language, a line to an :class:`Event`;
  :class:`LiveError`.
- :mod:`~palace_solver.live.phrasing`: the English of the replies (cards, counts, turns).
- :mod:`~palace_solver.live.hints`: the analysis in a child process; hints as data and text.
- :mod:`~palace_solver.live.setup`: what the user sees at the start, checked; the record at
  the start and who plays first (rule 3).
- :mod:`~palace_solver.live.store`: the session file, written atomically.
- :mod:`~palace_solver.live.session`: the session model: events applied, undo, save/load,
  autosave, summary as data. The seat's view it keeps is :mod:`palace_solver.game.view`.
- :mod:`~palace_solver.live.picture`: the table drawn as text.
- :mod:`~palace_solver.live.start`: a session from the words a user types.
- :mod:`~palace_solver.live.repl`: the prompt and the scripted driver.
"""
