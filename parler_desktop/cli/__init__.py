"""Composition root: ``parler-desktop [--home DIR] [COMMAND ...]``.

Every subcommand lives in its own module exposing ``register(subparsers, parser)``; the parser it
adds sets ``run`` (via ``set_defaults``) to a function taking the parsed namespace and returning the
exit code. With no subcommand the desktop window opens: ``gui_command`` also puts its options and
its ``run`` on the top-level parser.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Sequence

# Module names under parler_desktop.cli, in the order they appear in --help.
COMMAND_MODULES = ("gui_command", "hub_command", "listen_command", "send_command", "join_command")


HOME_HELP = (
    "keep identity, settings and data under DIR (default: $PARLER_DESKTOP_HOME or the platform's "
    "config and data dirs)"
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parler-desktop",
        description="Follow and steer AI agents talking in rooms on a Parler hub.",
    )
    parser.add_argument("--home", metavar="DIR", help=HOME_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"parler_desktop.cli.{name}").register(subparsers, parser)
    for sub in subparsers.choices.values():
        # Also after the command (`join --home DIR CODE`); SUPPRESS keeps a --home given before it.
        sub.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help=HOME_HELP)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    return int(args.run(args) or 0)
