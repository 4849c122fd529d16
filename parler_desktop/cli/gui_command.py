"""``parler-desktop [--hub URL]`` (or ``parler-desktop gui``): open the desktop window.

With no hub configured the embedded hub runs in-process on 127.0.0.1 and the window connects to
it, so the first launch needs no setup; ``--hub`` (or Connect… in the window) picks another hub
and is remembered. The window runs on a qasync loop: asyncio and Qt share the main thread.
Qt's own options (``-platform xcb``, ``-style Fusion``, ``-reverse``, …) go to Qt.

One window per home: a later launch on the same home finds the home locked and hands its request
to the running window over the single-instance channel: raise yourself, or open this invite
link (``parler-desktop parler://HOST:PORT/join/CODE``, which asks first). It exits at once, with
no display needed; only if the window cannot be reached does it say so and exit with
EXIT_ALREADY_RUNNING, before it starts a hub or a session.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import os
import signal
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from parler_desktop import system_libs
from parler_desktop.assets import APP_ID, ICON_SIZES, icon_png
from parler_desktop.logs import log_unhandled_exceptions, logging_to
from parler_desktop.paths import Home
from parler_desktop.cli.help_text import description
from parler_desktop.cli.qt_arguments import platform_option

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # Qt is imported only once a window is wanted
    from PySide6.QtWidgets import QApplication

    from parler_desktop.demo.plan import DemoPlan

EXIT_RUNTIME = 1
EXIT_ALREADY_RUNNING = 3


class _EachHub(argparse.Action):
    """``--hub`` may be given several times for the window: ``hubs`` holds every one, ``hub``
    the first (what the other commands, which take one hub, read)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object, option_string: str | None = None) -> None:
        namespace.hubs = [*(getattr(namespace, "hubs", None) or []), values]
        namespace.hub = namespace.hubs[0]


def _add_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    parser.add_argument(
        "--hub",
        metavar="URL",
        action=_EachHub,
        default=default,
        help="also hold this hub (ws://, wss://, parler:// or HOST:PORT) and remember it; the first one given "
        "is shown; an empty value is the embedded local hub; repeat it for several hubs",
    )
    parser.add_argument(
        "--link", metavar="LINK", help="open an invite link (parler://HOST:PORT/join/CODE): asks, then joins; "
        "or a message link (parler://HOST:PORT/room/ROOM/SEQ): shows it; a bare link as the only argument means the same",
    )


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("gui", help="open the desktop window (the default)", description=description(__doc__))
    _add_options(sub, argparse.SUPPRESS)  # `--hub URL gui` keeps URL
    sub.set_defaults(run=run)
    _add_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from parler_desktop.client.address import normalize_hub_url, parse_invite

    link = getattr(args, "link", None)
    try:
        hubs = [normalize_hub_url(url) if url else "" for url in getattr(args, "hubs", None) or []]
        if link is not None:
            parse_invite(link)
    except ValueError as error:
        print(f"parler-desktop: {error}", file=sys.stderr)
        return 2
    home = Home.resolve(args.home)
    with logging_to(home.log_dir, getattr(args, "verbose", False)):
        return _run_home(home, hubs[0] if hubs else None, link, getattr(args, "demo", None), hubs[1:], getattr(args, "qt_arguments", []))


def _run_home(
    home: Home, hub_url: str | None, link: str | None, demo: "DemoPlan | None", more_hubs: Sequence[str] = (),
    qt_arguments: Sequence[str] = (),
) -> int:
    """``qt_arguments``: Qt's own options (``-style Fusion``), for the QApplication."""
    from parler_desktop.instance_lock import AlreadyRunning, lock_home

    try:
        home_lock = lock_home(home.ensure())
    except AlreadyRunning as refusal:
        return _hand_over(home, link, demo is not None, refusal)
    except OSError as error:
        print(f"parler-desktop: cannot lock the home {home.data_dir}: {error.strerror or error}", file=sys.stderr)
        return EXIT_RUNTIME
    with home_lock:
        problem = system_libs.check(platform=platform_option(qt_arguments))
        if problem is not None:  # Qt would abort while loading its platform plugin
            print(problem, file=sys.stderr)
            if _nobody_reads_stderr():
                system_libs.tell_desktop(problem)
            return system_libs.EXIT_MISSING_LIBRARIES
        return _run_window(home, hub_url, demo, link, more_hubs, qt_arguments)


def _nobody_reads_stderr() -> bool:
    """Started from a launcher, or with no stderr at all: Windows' pythonw.exe (what the Run key
    starts) and a windowed bundle run with ``sys.stderr`` None."""
    return sys.stderr is None or not sys.stderr.isatty()


def _hand_over(home: Home, link: str | None, demo: bool, refusal: Exception) -> int:
    """The home's window runs already: pass it our request and exit, or say why not."""
    from parler_desktop.app.hubs.instance_channel import channel_name, hand_over

    if hand_over(channel_name(home), link, demo):
        print(_handed_over(link, demo), flush=True)
        return 0
    print(refusal, file=sys.stderr)  # the sentence names the program itself
    if _nobody_reads_stderr() and _display_available() and system_libs.check() is None:
        _show_refusal(str(refusal))
    return EXIT_ALREADY_RUNNING


def _handed_over(link: str | None, demo: bool) -> str:
    """What a launch beside the open window did: it exits at once, and saying nothing read as
    nothing done."""
    if link:
        return "parler-desktop: the window already open for this home opens the link."
    if demo:
        from parler_desktop.demo.script import BUILD, PLANNING, REVIEW

        return (
            f"parler-desktop: the window already open for this home starts the demo on the hub it shows "
            f"(rooms {PLANNING}, {BUILD} and {REVIEW}; one demo at a time)."
        )
    return "parler-desktop: the window already open for this home is brought to the front."


def _display_available() -> bool:
    """Whether Qt can show a window here; without a display it would abort instead."""
    if not sys.platform.startswith("linux"):
        return True
    return any(os.environ.get(name) for name in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"))


def _application(qt_arguments: Sequence[str] = ()) -> "QApplication":
    """The process's QApplication (made on first use, reading Qt's options), named for the desktop."""
    from PySide6.QtWidgets import QApplication

    from parler_desktop.ui.qt_environment import prepare_qt_environment

    prepare_qt_environment()
    app = QApplication.instance() or QApplication([*sys.argv[:1], *qt_arguments])
    app.setApplicationName("Parler")
    return app


def _show_refusal(text: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    app = _application()  # kept alive while the box shows
    QMessageBox.information(None, "Parler", text)


def _run_window(
    home: Home, hub_url: str | None, demo: "DemoPlan | None", link: str | None, more_hubs: Sequence[str], qt_arguments: Sequence[str],
) -> int:
    from PySide6.QtGui import QIcon

    from parler_desktop.ui.desktop import DesktopApp
    from parler_desktop.ui.event_loop import AppEventLoop

    app = _application(qt_arguments)
    app.setDesktopFileName(APP_ID)
    app.setQuitOnLastWindowClosed(False)  # closing the window ends DesktopApp.run(), which shuts down in order
    icon = QIcon()
    for size in ICON_SIZES:
        icon.addFile(str(icon_png(size)))
    app.setWindowIcon(icon)
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        log_unhandled_exceptions(loop)
        desktop = DesktopApp(home, hub_url, demo, link, more_hubs)
        # What exists now (modules, classes, the widgets) lives as long as the process: keep it out
        # of the full collections, which otherwise walk all of it and hold the window for ~50 ms;
        # and run those while no message arrives (ui/idle_collector.py). (Process-wide, so here,
        # once, not in DesktopApp, which tests build many times.)
        gc.freeze()
        desktop.collector.start()
        for stop_signal in (signal.SIGINT, signal.SIGTERM):  # quit, as from the tray menu (not to the tray)
            signal.signal(stop_signal, lambda *_: desktop.quit())
        log.info("The window runs on Qt's %s platform in the %s style", app.platformName(), app.style().name())
        loop.run_until_complete(desktop.run())
    return 0
