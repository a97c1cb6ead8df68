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


def weights_path(name: str = "") -> str:
    """The file of a shipped network of the learned evaluation: ``""`` the default
    (``palace_solver/data/eval_weights.npz``), else ``eval_weights-NAME.npz`` beside it
    (one file a generation: ``gen0`` was learned from greedy games, ``gen1`` from the
    games of the engine of ``gen0``, ...), or a path to a ``.npz`` file.

    :raises ValueError: for a name with no file.
    """
    import os
    if name.endswith(".npz"):
        path = name
    else:
        data = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data")
        path = os.path.join(data, f"eval_weights-{name}.npz" if name else "eval_weights.npz")
    if not os.path.exists(path):
        raise ValueError(f"no weights {name!r} (looked for {path})")
    return path


#: the file :func:`use_eval_weights` last took the policy model from (None: not yet): the
#: policy may come from another generation than the network
_policy_from: list = [None]


def use_eval_weights(name: str = "", policy: str = "") -> None:
    """Load a shipped network (:func:`weights_path`) into the compiled evaluation unless it
    is the one loaded: agents with different generations share one process, and each
    switches to its own before it searches (a copy of about 60 KB). A generation's file
    may also hold its policy model of the other seats (``policy``: ext/policy.pxi); with
    ``policy`` (a name as for :func:`weights_path`) the model is that file's instead, so
    that one generation's network can search with another's model of the other seats.

    :raises ValueError: for a name with no file, or a ``policy`` file without a model.
    """
    eng = _module()
    path = weights_path(name)
    source = weights_path(policy) if policy else path
    fresh = eng.eval_weights_loaded() != path
    if not fresh and (_policy_from[0] == source or (_policy_from[0] is None and not policy)):
        return          # (None: the network loaded by another path, with its own model)
    import numpy as np
    if fresh or source == path:
        with np.load(path) as f:     # one read of the file for the network and its model
            if fresh:
                eng.load_eval_weights(*(np.ascontiguousarray(f[k], dtype=np.float32)
                                        for k in ("w1", "b1", "w2", "b2", "w3")), source=path)
            if source == path:
                _hold_policy(eng, f, path, required=False)
                return
    with np.load(source) as f:
        _hold_policy(eng, f, source, required=True)


def _hold_policy(eng, f, path: str, required: bool) -> None:
    """Hold the policy model of the open file ``f`` (``path``), or none if it has none."""
    if "policy" in f.files:
        eng.load_policy_weights(f["policy"].tolist())
    elif required:
        raise ValueError(f"{path} holds no policy model")
    else:
        eng.unload_policy_weights()
    _policy_from[0] = path
