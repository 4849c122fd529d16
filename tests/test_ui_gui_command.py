"""``parler-desktop`` with no subcommand opens the window: the gui options live on the root too."""

from __future__ import annotations

import argparse
import asyncio
import signal

import pytest
from support.cli_runner import started_cli
from support.os_needs import posix_signals

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


@pytest.mark.parametrize("stderr", ["a pipe", "none"])
def test_a_second_window_on_one_home_says_so_and_starts_nothing(qtbot, tmp_path, capsys, monkeypatch, stderr):
    """``none``: Windows' pythonw.exe (what the Run key starts) and a windowed bundle run with
    ``sys.stderr`` None (Python's docs, sys.__stderr__: 'can be None' for GUI applications)."""
    import sys

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    from parler_desktop.instance_lock import lock_home
    from parler_desktop.paths import Home

    home = Home.resolve(tmp_path / "home").ensure()
    shown: list[str] = []
    looks = []

    def close_the_box() -> None:  # the refusal is modal: read it and dismiss it like a user would
        box = next(  # this refusal's box: another test's may still be on screen
            (w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible() and "already running" in w.text()),
            None,
        )
        looks.append(box)
        if box is None:
            if len(looks) < 250:
                QTimer.singleShot(20, close_the_box)
            return
        shown.append(box.text())
        box.accept()

    if stderr == "none":
        monkeypatch.setattr(sys, "stderr", None)
    with lock_home(home):  # the first window
        QTimer.singleShot(0, close_the_box)
        code = gui_command.run(parser_with_gui().parse_args(["--home", str(tmp_path / "home")]))
    monkeypatch.undo()
    message = (
        f"parler-desktop is already running for this home ({tmp_path / 'home'}); "
        "switch to its window, or use --home DIR for another identity"
    )
    assert code == gui_command.EXIT_ALREADY_RUNNING != 0
    assert capsys.readouterr().err == ("" if stderr == "none" else f"{message}\n")
    assert shown == [message]  # stderr is not a terminal here, as when started from a launcher
    assert not home.embedded_hub_dir.exists() and not (home.data_dir / "stores").exists()


def test_qt_options_are_taken_out_for_qt_in_every_form_qt_accepts():
    from parler_desktop.cli.qt_arguments import platform_option, split_qt_arguments

    split = split_qt_arguments(["-platform", "xcb", "--style=Fusion", "--hub", "h:1", "-reverse", "-v", "-qmljsdebugger", "port:9", "--", "-style"])
    assert split.qt == ["-platform", "xcb", "-style", "Fusion", "-reverse", "-qmljsdebugger=port:9"]
    assert split.ours == ["--hub", "h:1", "-v", "--", "-style"]  # after "--", nothing is an option
    assert platform_option(split.qt) == "xcb" and platform_option([]) is None
    with pytest.raises(ValueError, match="-style needs a value"):
        split_qt_arguments(["-style"])


def test_qt_options_on_a_command_without_a_window_are_refused(capsys):
    from parler_desktop.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["listen", "--hub", "h:1", "-style", "Fusion"])
    assert exited.value.code == 2 and "Qt's options (-style Fusion) are for the window only" in capsys.readouterr().err


@posix_signals
async def test_the_window_takes_qt_s_own_platform_and_style_options(tmp_path):
    """Issue 46 item 10: ``parler-desktop -platform … -style Fusion`` was refused ("invalid
    choice"); the window now runs with them (-platform wins over QT_QPA_PLATFORM, as in any Qt
    application: set to xcb without a display, the window would not start)."""
    async with started_cli(tmp_path / "home", "--verbose", "-platform", "offscreen", "-style", "Fusion", QT_QPA_PLATFORM="xcb", DISPLAY="") as window:
        said = []
        while b"Qt's offscreen platform in the fusion style" not in (line := await asyncio.wait_for(window.stderr.readline(), 30)):
            said.append(line)
            assert line, f"the window ended: {b''.join(said).decode()}"
        window.send_signal(signal.SIGTERM)  # quits as from the tray menu
        assert await asyncio.wait_for(window.wait(), 30) == 0
