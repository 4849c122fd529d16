"""``parler-desktop`` with no subcommand opens the window: the gui options live on the root too."""

from __future__ import annotations

import argparse

from parler_desktop.cli import gui_command


def parser_with_gui() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="parler-desktop")
    parser.add_argument("--home")
    gui_command.register(parser.add_subparsers(dest="command"), parser)
    return parser


def test_no_subcommand_runs_the_window_with_the_hub_option():
    args = parser_with_gui().parse_args(["--hub", "ws://example.org:7070/ws"])
    assert args.run is gui_command.run and args.hub == "ws://example.org:7070/ws" and args.command is None


def test_gui_subcommand_takes_the_same_options():
    args = parser_with_gui().parse_args(["--home", "/tmp/h", "gui", "--hub", "hub.example:7070"])
    assert args.run is gui_command.run and args.hub == "hub.example:7070" and args.home == "/tmp/h"


def test_a_bad_hub_address_is_a_message_not_a_traceback(capsys):
    args = parser_with_gui().parse_args(["--hub", "   "])
    assert gui_command.run(args) == 2
    assert capsys.readouterr().err.startswith("parler-desktop: ")
