"""``parler-desktop self-test``: check this installation end to end, then exit 0.

Starts the embedded hub in a private temporary home, builds the real window (offscreen, so no
display is needed) and connects it; an agent invites the window into a room and posts, the
message must arrive in the window, the window posts back and the agent must receive it. That
exercises Qt and its plugins, qasync, SQLite, WebSockets and the signatures (PyNaCl/libsodium):
what a frozen bundle most easily gets wrong. It also checks that the modules this OS's seams load
only when used (``platform/native_modules.py``: notifications, wake, the credential store) are there. ``packaging/build.py`` runs it on every bundle.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time

from parler_desktop import system_libs
from parler_desktop.assets import ICON_SIZES, desktop_entry, icon_png, metainfo
from parler_desktop.cli.help_text import description
from parler_desktop.paths import Home
from parler_desktop.platform.native_modules import missing_native_modules

EXIT_FAILED = 1
TIMEOUT_SECS = 60.0
ROOM = "self-test"


def register(subparsers: argparse._SubParsersAction, parser: argparse.ArgumentParser) -> None:
    sub = subparsers.add_parser("self-test", help="check this installation end to end", description=description(__doc__))
    sub.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    os.environ["QT_QPA_PLATFORM"] = "offscreen"  # the check needs no display
    # keyring is loaded as always, but the scratch home's throw-away identity never reaches the
    # user's Keychain or Credential Manager (platform/secrets).
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyring.backends.null.Keyring"
    problem = system_libs.check()
    if problem is not None:
        print(problem, file=sys.stderr)
        return system_libs.EXIT_MISSING_LIBRARIES
    from PySide6.QtWidgets import QApplication

    from parler_desktop.ui.event_loop import AppEventLoop
    from parler_desktop.ui.qt_environment import prepare_qt_environment

    prepare_qt_environment()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory(prefix="parler-self-test-") as scratch:
        loop = AppEventLoop(app)
        asyncio.set_event_loop(loop)
        try:
            with loop:
                timings = loop.run_until_complete(asyncio.wait_for(exercise(Home.resolve(scratch)), TIMEOUT_SECS))
        except Exception as error:  # noqa: BLE001 - any failure is the answer a self-test gives
            print(f"parler-desktop self-test: FAILED: {type(error).__name__}: {error}", file=sys.stderr)
            return EXIT_FAILED
    print("self-test ok: " + ", ".join(f"{name} {ms:.0f} ms" for name, ms in timings.items()), flush=True)
    return 0


async def exercise(home: Home) -> dict[str, float]:
    from parler_desktop.demo.agent import DemoAgent
    from parler_desktop.identity import Identity
    from parler_desktop.ui.desktop import DesktopApp

    started = time.perf_counter()
    timings: dict[str, float] = {}
    assets = [icon_png(size) for size in ICON_SIZES] + [desktop_entry(), metainfo()]
    if missing := [str(path) for path in assets if not path.is_file()]:
        raise RuntimeError(f"the app's assets are missing: {', '.join(missing)}")
    if missing := missing_native_modules():  # the seams would fall back quietly without them
        raise RuntimeError(f"this OS's own modules are missing: {', '.join(missing)}")
    desktop = DesktopApp(home, "")
    agent: DemoAgent | None = None
    try:
        desktop.window.show()
        if not await desktop.connect(""):
            raise RuntimeError("the window could not connect to its embedded hub")
        await until(lambda: desktop.bridge.is_live)
        timings["window connected"] = (time.perf_counter() - started) * 1000
        assert desktop.local_hub is not None
        agent = await DemoAgent.connect(desktop.local_hub.url, "self-test-agent", "worker", Identity.generate())
        await agent.subscribe()
        invited = await agent.open_room(ROOM)
        await desktop.bridge.redeem(invited.code)
        arrived = asyncio.get_running_loop().create_future()

        def stored(room: str, messages: tuple, _live: bool) -> None:
            if room == ROOM and any(m.text == "ping from an agent" for m in messages) and not arrived.done():
                arrived.set_result(None)

        desktop.bridge.messagesStored.connect(stored)
        sent_at = time.perf_counter()
        await agent.post(ROOM, "ping from an agent")
        await arrived
        await desktop.bridge.post(ROOM, "pong from the window")  # returns once it is in the outbox
        while not any(message.text == "pong from the window" for message in await agent.messages()):
            pass
        timings["message round trip"] = (time.perf_counter() - sent_at) * 1000
    finally:
        if agent is not None:
            await agent.close()
        await desktop.shutdown()
        desktop.window.close()
    return timings


async def until(condition, interval: float = 0.02) -> None:  # noqa: ANN001 - a zero-argument predicate
    while not condition():
        await asyncio.sleep(interval)
