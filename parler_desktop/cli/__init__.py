"""Composition root: ``parler-desktop [--home DIR] [COMMAND ...]``.

Every subcommand lives in its own module exposing ``register(subparsers, parser)``; the parser it
adds sets ``run`` (via ``set_defaults``) to a function taking the parsed namespace and returning the
exit code. With no subcommand the desktop window opens: ``gui_command`` also puts its options and
its ``run`` on the top-level parser. Qt's own options (``-style Fusion``) are the window's
QApplication's (``qt_arguments.py``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import sys
from collections.abc import Iterable, Sequence

from parler_desktop import __version__
from parler_desktop.cli.qt_arguments import split_qt_arguments

WINDOW_COMMANDS = (None, "gui", "demo")  # the commands that open a window: Qt's options are theirs
# Module names under parler_desktop.cli, in the order they appear in --help.
COMMAND_MODULES = ("gui_command", "hub_command", "listen_command", "send_command", "join_command", "demo_command", "self_test_command", "autostart_command", "fresh_cache_command")


HOME_HELP = (
    "keep identity, settings and data under DIR (default: $PARLER_DESKTOP_HOME or the platform's "
    "config and data dirs)"
)

VERBOSE_HELP = "log DEBUG detail (the window's log file and stderr)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="parler-desktop",
        description="Follow and steer AI agents talking in rooms on a Parler hub.",
    )
    parser.add_argument("--home", metavar="DIR", help=HOME_HELP)
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--verbose", "-v", action="store_true", help=VERBOSE_HELP)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(f"parler_desktop.cli.{name}").register(subparsers, parser)
    for sub in subparsers.choices.values():
        # Also after the command (`join --home DIR CODE`); SUPPRESS keeps a --home given before it.
        sub.add_argument("--home", metavar="DIR", default=argparse.SUPPRESS, help=HOME_HELP)
        with contextlib.suppress(argparse.ArgumentError):  # `hub` has a --verbose of its own
            sub.add_argument("--verbose", "-v", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP)
    parser.set_defaults(commands=tuple(subparsers.choices))  # the names the parser knows
    return parser


def with_link_option(argv: Sequence[str], commands: Iterable[str]) -> list[str]:
    """``parler-desktop [OPTIONS] parler://…`` (how a desktop opens an invite link) means
    ``--link parler://…`` for the window; ``join parler://…`` and the like (any of ``commands``
    but the window's) stay as they are."""
    arguments = list(argv)
    commands = set(commands) - {"gui"}
    if arguments and arguments[-1].lower().startswith("parler://") and not commands & set(arguments[:-1]):
        arguments[-1:] = ["--link", arguments[-1]]
    return arguments


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        split = split_qt_arguments(sys.argv[1:] if argv is None else argv)
    except ValueError as error:
        parser.error(str(error))
    args = parser.parse_args(with_link_option(split.ours, parser.get_default("commands")))
    if split.qt and args.command not in WINDOW_COMMANDS:
        parser.error(f"Qt's options ({' '.join(split.qt)}) are for the window only")
    args.qt_arguments = split.qt
    return int(args.run(args) or 0)
