"""Benchmark the window: event-loop stalls during a 5,000-message burst, and opening a 100k room.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_ui.py

Both figures are measured on the Qt thread (which also runs asyncio under qasync) by a 2 ms
QTimer that records the longest gap between its ticks and counts the gaps over 50 ms, against the same meter on the idle window
in the same run. The burst comes from a raw-wire agent through a real hub (both in a child process, as any hub
but the embedded one would be) into the open, active room, through the session, store, models
and painting.
The big room (100,000 stored messages) is compared with a 200-message room.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import multiprocessing
import statistics
import time
from collections.abc import Coroutine
from multiprocessing.connection import Connection
from typing import Any
from pathlib import Path

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support.raw_agent import RawAgent  # noqa: E402
from support.stored_session import StoreBackedSession  # noqa: E402

from parler_desktop.app.hubs.bridge import SessionBridge  # noqa: E402
from parler_desktop.app.hubs.hub_list import HubList  # noqa: E402
from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.protocol.values import EndpointRef, StoredMessage  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402
from parler_desktop.store import LocalStore, StoreWorker  # noqa: E402
from parler_desktop.ui.desktop import DesktopApp  # noqa: E402
from parler_desktop.ui.event_loop import AppEventLoop  # noqa: E402
from parler_desktop.ui.idle_collector import IdleCollector  # noqa: E402
from parler_desktop.ui.qt_environment import prepare_qt_environment  # noqa: E402
from parler_desktop.ui.main_window import MainWindow  # noqa: E402

BURST = 5_000
BIG_ROOM = 100_000
SMALL_ROOM = 200
TEXT = "Step {n}: rebuilt the **index**, ran `pytest -q` and pushed the fix.\n\n- 3 files changed\n- all green"


STALL_MS = 50.0  # a gap this long is a visible hitch


class StallMeter(QObject):
    """The longest gap between ticks of a 2 ms timer (how long the Qt thread was held), and how
    many gaps were longer than ``STALL_MS``."""

    def __init__(self) -> None:
        super().__init__()
        self.longest_ms = 0.0
        self.stalls = 0
        self._clock = QElapsedTimer()
        self._timer = QTimer(self, interval=2)
        self._timer.timeout.connect(self._tick)
        self._last = 0

    def start(self) -> None:
        self.longest_ms = 0.0
        self.stalls = 0
        self._clock.start()
        self._last = 0
        self._timer.start()

    def stop(self) -> float:
        self._timer.stop()
        return self.longest_ms

    def _tick(self) -> None:
        now = self._clock.nsecsElapsed()
        gap_ms = (now - self._last) / 1e6
        self.longest_ms = max(self.longest_ms, gap_ms)
        self.stalls += gap_ms > STALL_MS
        self._last = now


class PaintClock(QObject):
    """When the watched widget was last painted (perf_counter seconds)."""

    def __init__(self) -> None:
        super().__init__()
        self.last_paint = 0.0

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.last_paint = time.perf_counter()
        return False


async def wait_for(condition, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the condition did not become true in time")
        await asyncio.sleep(0.005)


async def idle_baseline(meter: StallMeter) -> float:
    meter.start()
    await asyncio.sleep(1.0)
    return meter.stop()


def hub_and_agents(root: str, pipe: Connection) -> None:
    """Child process: the hub and the bursting agent, so their work does not share our GIL."""

    async def serve() -> None:
        hub = EmbeddedHub(HubConfig(db_path=Path(root) / "hub.sqlite3", port=0, limits=HubLimits().relaxed()))
        url = await asyncio.to_thread(hub.start)
        owner = await RawAgent.connect(url, name="owner")
        for_window = await owner.ok({"op": "invite", "kind": "channel", "room": "burst"}, "invited")
        for_agent = await owner.ok({"op": "invite", "kind": "channel", "room": "burst"}, "invited")
        agent = await RawAgent.connect(url, name="burster", role="worker")
        await agent.ok({"op": "redeem", "code": for_agent["code"]}, "joined")
        pipe.send((url, for_window["code"]))
        await asyncio.to_thread(pipe.recv)  # go
        last = 0
        for n in range(BURST):
            frame = {"op": "send", "target": {"kind": "room", "room": "burst"}, "parts": [{"kind": "text", "text": TEXT.format(n=n)}]}
            last = (await agent.ok(frame, "sent"))["seq"]
        pipe.send(last)
        await asyncio.to_thread(pipe.recv)  # done
        await agent.close()
        await owner.close()
        await asyncio.to_thread(hub.stop)

    asyncio.run(serve())


async def bench_burst(root: Path, meter: StallMeter) -> tuple[float, int, float]:
    """The window in this process; hub and agent in another, as with any hub but the embedded one."""
    ours, theirs = multiprocessing.get_context("spawn").Pipe()
    child = multiprocessing.get_context("spawn").Process(target=hub_and_agents, args=(str(root), theirs), daemon=True)
    child.start()
    url, code = await asyncio.to_thread(ours.recv)
    home = Home.resolve(root / "home").ensure()
    save_settings(home.settings_file, Settings(display_name="boss"))
    desktop = DesktopApp(home, url)
    gc.freeze()  # as the gui command does once the window is built
    desktop.collector.start()
    desktop.window.show()
    await desktop.connect(url)
    await wait_for(lambda: desktop.bridge.is_live, 15)
    await desktop.bridge.session.redeem(code)
    await wait_for(lambda: "burst" in desktop.window.rooms.room_names(), 10)
    desktop.window.room_panel.select_room("burst")
    model = desktop.window.timeline_model
    await asyncio.sleep(0.5)
    meter.start()
    start = time.perf_counter()
    ours.send("go")
    last = await asyncio.to_thread(ours.recv)
    await wait_for(lambda: model.newest_seq >= last, 300)
    elapsed = time.perf_counter() - start
    stall = meter.stop()
    stalls = meter.stalls
    await desktop.shutdown()
    desktop.window.close()
    ours.send("done")
    await asyncio.to_thread(child.join, 30)
    return stall, stalls, elapsed


def fill_store(path: Path) -> None:
    store = LocalStore(path)
    sender = EndpointRef(id="UAGENT", name="agent", role="worker")
    for room, count in (("big", BIG_ROOM), ("small", SMALL_ROOM)):
        first = 1 if room == "big" else BIG_ROOM + 1
        for start in range(first, first + count, 5000):
            batch = [
                StoredMessage(seq=n, id=f"m{n}", room=room, sender=sender, parts=({"kind": "text", "text": TEXT.format(n=n)},), ts=1_710_000_000_000 + n)
                for n in range(start, min(first + count, start + 5000))
            ]
            store.insert_messages(batch)
    store.close()


async def bench_open(root: Path, meter: StallMeter) -> dict[str, tuple[float, float]]:
    """Median (time to first paint, longest stall) of three opens of each room."""
    path = root / "rooms.sqlite3"
    await asyncio.to_thread(fill_store, path)
    store = StoreWorker(path)
    await store.open()
    hubs = HubList()
    hub = hubs.add("bench")
    hub.bridge.attach(StoreBackedSession(store))  # the window reads what is already on disk
    window = MainWindow(SessionBridge(), hubs)  # its bridge follows the hub's session
    collector = IdleCollector(window)  # as the gui command runs the window: gc.freeze, then this
    gc.freeze()
    collector.start()
    window.show()
    painted = PaintClock()
    window.timeline.viewport().installEventFilter(painted)
    await asyncio.sleep(0.3)
    results: dict[str, list[tuple[float, float]]] = {"small": [], "big": []}
    for room in ("small", "big") * 3:
        window.show_room("bench", "nothing")
        window.timeline.message_delegate.layouts.clear()  # a cold open: nothing parsed or laid out yet
        window.timeline.message_delegate.sizes.clear()
        await asyncio.sleep(0.2)
        loaded: list[float] = []
        window.timeline_model.roomLoaded.connect(lambda _room: loaded.append(time.perf_counter()))
        meter.start()
        start = time.perf_counter()
        window.show_room("bench", room)
        await wait_for(lambda: bool(loaded) and painted.last_paint > loaded[0], 30)
        results[room].append((painted.last_paint - start, meter.stop()))
    collector.stop()
    window.close()
    await window.bridge.tasks.cancel_all()
    await hub.bridge.tasks.cancel_all()
    await store.close()
    return {room: (statistics.median(t for t, _ in runs), statistics.median(s for _, s in runs)) for room, runs in results.items()}


async def main() -> None:
    meter = StallMeter()
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        idle = await idle_baseline(meter)
        print(f"baseline: idle window, longest event-loop gap {idle:7.1f} ms")
        opened = await bench_open(root, meter)
        small_time, small_stall = opened["small"]
        big_time, big_stall = opened["big"]
        print(f"open a {SMALL_ROOM}-message room: {small_time * 1000:7.1f} ms to first paint, longest stall {small_stall:6.1f} ms")
        print(
            f"open a {BIG_ROOM:,}-message room: {big_time * 1000:7.1f} ms to first paint, longest stall {big_stall:6.1f} ms "
            f"({big_time / small_time:.2f}x the small room)"
        )
        stall, stalls, elapsed = await bench_burst(root, meter)
        print(
            f"burst of {BURST:,} messages into the open room: all shown after {elapsed:.1f} s "
            f"({BURST / elapsed:,.0f} msg/s); longest event-loop stall {stall:6.1f} ms ({stall / max(idle, 0.1):.1f}x idle), "
            f"{stalls} stalls over {STALL_MS:.0f} ms"
        )


def run_on_app_loop(work: Coroutine[Any, Any, None]) -> None:
    """Run a benchmark's ``work`` on the window's own loop (Qt's offscreen or real platform, as
    the app prepares it); every window benchmark ends this way."""
    prepare_qt_environment()  # as the app does
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)  # the benchmark ends when ``work`` returns
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(work)


if __name__ == "__main__":
    run_on_app_loop(main())
