"""What every command shares: the one-line failure, the rule options, a run time in words."""
from __future__ import annotations

import sys

import click

from palace_solver.game.rules import VARIANTS, Rules, RulesError


def fail(message: str) -> None:
    """One line on standard error, nothing on standard output, exit status 2 (POSITION.md)."""
    click.echo(f"palace: {message}", err=True)
    sys.exit(2)


def duration(secs: float) -> str:
    """A predicted run time as a person reads it: seconds, minutes or hours."""
    if secs < 90:
        return f"{secs:.0f} s"
    if secs < 5400:
        return f"{secs / 60:.0f} min"
    return f"{secs / 3600:.1f} h"


def rules_options(f):
    """``--rules`` and repeated ``--variant`` of the commands that deal new games (read them
    with :func:`rules_from_options`)."""
    f = click.option("--variant", "-v", "variants", multiple=True,
                     help=f"Switch a variant on (repeatable). Known: {', '.join(VARIANTS)}.")(f)
    f = click.option("--rules", "rules_name", default="standard", show_default=True,
                     help="Base rule set: 'standard', or a comma-separated variant list "
                          "such as 'seven_low,invisible_8'.")(f)
    return f


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


def batch_options(result: str, task: str):
    """``--jobs``, ``--ray`` and ``--output`` of the commands that play games on the batch
    layer (palace_solver/jobs/batch.py): ``result`` names what does not depend on the workers,
    ``task`` what one saved line of the output file holds."""
    def apply(f):
        f = click.option(
            "--output", type=click.Path(dir_okay=False), default=None,
            help=f"Save each finished task ({task}) to this JSONL file; the same command "
                 "resumes a killed run without replaying them.")(f)
        f = click.option(
            "--ray", "ray_address", default=None, metavar="ADDRESS",
            help="Play on a Ray cluster: 'auto' (the cluster this machine belongs to), "
                 "HOST:PORT, ray://HOST:PORT, or 'local' (start one on this machine). "
                 "Needs pip install '.[ray]'.")(f)
        f = click.option(
            "--jobs", "-j", type=int, default=1, show_default=True,
            help=f"Local processes playing the games ({result} does not depend on it). "
                 "With --ray: the most tasks running at once.")(f)
        return f
    return apply
