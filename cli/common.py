"""What every command shares: the one-line failure and the rule options."""
from __future__ import annotations

import sys

import click

from palace_solver.rules import Rules, RulesError


def fail(message: str) -> None:
    """One line on standard error, nothing on standard output, exit status 2 (POSITION.md)."""
    click.echo(f"palace: {message}", err=True)
    sys.exit(2)


def rules_from_options(rules_name: str, variants, players: int) -> Rules:
    """``--rules`` (standard or a variant list) plus repeated ``--variant``, checked against
    the player count; exits with status 2 on an unknown name or an impossible seating."""
    try:
        base = Rules.from_json(rules_name.strip() or "standard")
        rules = Rules.with_variants(list(base.variants()) + list(variants))
        rules.check_players(players)
    except RulesError as e:
        fail(str(e))
    return rules
