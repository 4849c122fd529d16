"""``parler-desktop [--hub URL]`` (or ``parler-desktop gui``): open the desktop window.

With no hub configured the embedded hub runs in-process on 127.0.0.1 and the window connects to
it, so the first launch needs no setup; ``--hub`` (or Connect… in the window) picks another hub
and is remembered. The window runs on a qasync loop: asyncio and Qt share the main thread.

One window per home: a second launch on the same home finds the home locked, says so and exits
with EXIT_ALREADY_RUNNING before it starts a hub or a session.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from importlib import resources
from typing import TYPE_CHECKING

from parler_desktop.paths import Home
from parler_desktop.cli.help_text import description

if TYPE_CHECKING:  # Qt is imported only once a window is wanted
    from PySide6.QtWidgets import QApplication

EXIT_RUNTIME = 1
EXIT_ALREADY_RUNNING = 3


def _add_options(parser: argparse.ArgumentParser, default: object = None) -> None:
    parser.add_argument(
        "--hub",
        metavar="URL",
        default=default,
        help="connect to this hub (ws://, wss://, parler:// or HOST:PORT) and remember it; "
        "an empty value goes back to the embedded local hub",
    )
    parser.add_argument(
        "--open",
        metavar="LINK",
        dest="open_link",
        help="show this message once connected (a parler://HOST:PORT/room/ROOM/SEQ link from Copy link)",
    )


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("gui", help="open the desktop window (the default)", description=description(__doc__))
    _add_options(sub, argparse.SUPPRESS)  # `--hub URL gui` keeps URL
    sub.set_defaults(run=run)
    _add_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from parler_desktop.client.address import normalize_hub_url
    from parler_desktop.instance_lock import AlreadyRunning, lock_home

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    hub_url = args.hub
    if hub_url:
        try:
            hub_url = normalize_hub_url(hub_url)
        except ValueError as error:
            print(f"parler-desktop: {error}", file=sys.stderr)
            return 2
    home = Home.resolve(args.home)
    try:
        home_lock = lock_home(home.ensure())
    except AlreadyRunning as refusal:
        print(refusal, file=sys.stderr)  # the sentence names the program itself
        if not sys.stderr.isatty():  # started from a launcher: nobody reads stderr
            _show_refusal(str(refusal))
        return EXIT_ALREADY_RUNNING
    except OSError as error:
        print(f"parler-desktop: cannot lock the home {home.data_dir}: {error.strerror or error}", file=sys.stderr)
        return EXIT_RUNTIME
    with home_lock:
        return _run_window(home, hub_url, args.open_link)


def _application() -> "QApplication":
    """The process's QApplication (made on first use), named for the desktop."""
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Parler")
    return app


def _show_refusal(text: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    app = _application()  # kept alive while the box shows
    QMessageBox.information(None, "Parler", text)


def _run_window(home: Home, hub_url: str | None, open_link: str | None = None) -> int:
    import qasync
    from PySide6.QtGui import QIcon

    from parler_desktop.ui.desktop import DesktopApp

    app = _application()
    app.setDesktopFileName("parler-desktop")
    app.setQuitOnLastWindowClosed(False)  # closing the window ends DesktopApp.run(), which shuts down in order
    icon = resources.files("parler_desktop") / "resources" / "parler-desktop-256.png"
    app.setWindowIcon(QIcon(str(icon)))
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        desktop = DesktopApp(home, hub_url, open_link)
        for stop_signal in (signal.SIGINT, signal.SIGTERM):  # quit, as from the tray menu (not to the tray)
            signal.signal(stop_signal, lambda *_: desktop.quit())
        loop.run_until_complete(desktop.run())
    return 0
