"""Forcing the compiled horizon evaluation's mode inside a test.

Tests that mirror or depend on one evaluation (the card count of ext/deepen.pxi, or the
learned network) say so with ``with eval_mode("cardcount"):`` instead of relying on the
module's default, which may change; the previous mode comes back afterwards.
"""
from __future__ import annotations

from contextlib import contextmanager

from palace_solver import _engine


@contextmanager
def eval_mode(mode: str):
    old = _engine.set_eval_mode(mode)
    try:
        yield
    finally:
        _engine.set_eval_mode(old)


def cardcount_eval():
    """``with cardcount_eval():`` the softmax of cards left, whatever the default."""
    return eval_mode("cardcount")


@contextmanager
def loaded_weights(w: dict):
    """The compiled network holds the weights ``w`` inside the block; the shipped weights
    are loaded again afterwards."""
    _engine.load_eval_weights(w["w1"], w["b1"], w["w2"], w["b2"], w["w3"])
    try:
        yield
    finally:
        _engine._load_default_weights()
