# cython: language_level=3
"""Compiled core of palace-solver (placeholder until the core lands)."""

def core_version():
    return 0
