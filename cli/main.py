"""The ``palace`` command group. Each command lives in its own module."""
from __future__ import annotations

import click

from palace_solver import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="palace")
def cli() -> None:
    """palace: analysis engine for the card game Palace (Shithead, Karma, Shed).

    Positions are JSON files (see POSITION.md) or the one-line text form; run
    `palace COMMAND --help` for each command.
    """


def _register() -> None:
    import importlib

    for mod in ("play_cmd", "analyze_cmd", "bench_cmd", "show_cmd", "live_cmd", "swap_cmd",
                "swap_table_cmd", "serve_cmd", "match_cmd", "review_cmd"):
        try:
            m = importlib.import_module(f"palace_solver.cli.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"palace_solver.cli.{mod}":
                raise
            continue
        for c in m.COMMANDS:
            cli.add_command(c)


_register()


def main() -> None:
    cli(prog_name="palace")


if __name__ == "__main__":
    main()
