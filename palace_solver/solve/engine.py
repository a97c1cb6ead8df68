"""One interface over the two rules engines.

``"python"`` is the reference :class:`palace_solver.game.state.State`; ``"cython"`` is the
compiled :class:`palace_solver._engine.CState` (PLAY phase onwards: positions after the
deal). Both offer the same OpenSpiel-shaped API: ``current_player``, ``legal_moves``,
``apply``, ``chance_outcomes``, ``is_chance``, ``is_terminal``, ``result``, ``clone``,
``key``; ``to_state`` converts a compiled state back.

>>> from palace_solver.solve.engine import make_state, ENGINES
>>> ENGINES
('cython', 'python')
"""
from __future__ import annotations

ENGINES = ("cython", "python")

_MISSING = ("the compiled engine palace_solver._engine is not built: run `pip install .` "
            "(or `pip install -e .`) in the palace-solver source tree, or use "
            "engine='python'")


class EngineUnavailableError(RuntimeError):
    """The compiled engine was asked for but the extension module is not built."""


def _module():
    try:
        from .. import _engine
    except ImportError as e:
        raise EngineUnavailableError(f"{_MISSING} ({e})") from None
    if not hasattr(_engine, "CState"):
        raise EngineUnavailableError(f"{_MISSING} (the installed module is a stale build)")
    return _engine


def cython_available() -> bool:
    """Whether the compiled engine can be imported."""
    try:
        _module()
    except EngineUnavailableError:
        return False
    return True


def compiled():
    """The compiled module (``palace_solver._engine``).

    :raises EngineUnavailableError: with the build instruction when it is missing.
    """
    return _module()


def make_state(state, engine: str = "cython"):
    """A copy of ``state`` (a PLAY-phase :class:`State`) in the chosen engine.

    :raises ValueError: for an unknown engine name, or a state before the PLAY phase
        with the compiled engine.
    :raises EngineUnavailableError: when ``engine='cython'`` and the extension is missing.
    """
    if engine == "python":
        return state.clone()
    if engine == "cython":
        return _module().CState.from_state(state)
    raise ValueError(f"unknown engine {engine!r}: expected one of {', '.join(ENGINES)}")


def to_state(state):
    """A reference :class:`State` for a state of either engine."""
    return state.to_state() if hasattr(state, "to_state") else state.clone()


def default_engine() -> str:
    """``'cython'`` when built, else ``'python'``."""
    return "cython" if cython_available() else "python"
