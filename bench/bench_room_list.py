"""Benchmark what the window's Qt thread spends on the sidebar and the open room while agents talk
fast, without the network: the window's own share of bench_hubs.py's traffic, measured as CPU
time of the Qt thread (robust on a shared machine, where wall-clock stalls are also the others').

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_room_list.py [--hubs 5] [--rooms 100]
     [--rate 60] [--secs 15] [--profile FILE]

``--profile FILE`` records the Qt thread's calls during the traffic with cProfile (``pstats``
file; the Qt thread runs at about half speed meanwhile, so its figures are not comparable).

Each hub is a stand-in session over a real local store (``tests/support/stored_session.py``),
attached to a real ``MainWindow`` (1200 x 800, shown); the messages are written to the stores as
the session writes pushes (one at a time, ``hot-share`` of them into the open room) and announced
as ``MessagesStored``; meanwhile another room is opened every half second. Reported: the Qt
thread's CPU per message and per second, the sidebar's and the timeline's paints (how many, their
CPU and their time on the clock: a paint waits for the GIL at each call into Python while another
thread runs Python), the time from opening a room to its page loaded and painted, and the longest gap of bench_ui.py's 2 ms meter,
against the same window idle for as long (the baseline).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_hub import percentile  # noqa: E402
from bench_ui import StallMeter, run_on_app_loop, wait_for  # noqa: E402
from support.stored_session import ALICE, StoreBackedSession  # noqa: E402

from parler_desktop.app.hubs.bridge import SessionBridge  # noqa: E402
from parler_desktop.app.hubs.hub_list import HubList  # noqa: E402
from parler_desktop.client.events import ConnectionState, MessagesStored, StateChanged  # noqa: E402
from parler_desktop.protocol.values import RoomInfo, StoredMessage  # noqa: E402
from parler_desktop.store import LocalStore, StoreWorker  # noqa: E402
from parler_desktop.ui.idle_collector import IdleCollector  # noqa: E402
from parler_desktop.ui.main_window import MainWindow  # noqa: E402

TEXT = "msg{n:07d}: rebuilt the **index**, ran `pytest -q` and pushed the fix.\n\n- 3 files changed\n- all green"


def room_name(n: int) -> str:
    return f"r{n:03d}"


class PaintCost:
    """How often ``view`` painted and the Qt thread's CPU its paints took (``paintEvent``
    overridden on the instance, as bench_push.py's ``PaintWatch`` does)."""

    def __init__(self, view: Any) -> None:
        self.count, self.cpu, self.wall, self.longest = 0, 0.0, 0.0, 0.0
        paint = view.paintEvent

        def timed_paint(event: object) -> None:
            started, began = time.thread_time(), time.perf_counter()
            paint(event)
            self.count += 1
            self.cpu += time.thread_time() - started
            took = time.perf_counter() - began
            self.wall += took
            self.longest = max(self.longest, took)

        view.paintEvent = timed_paint

    def __str__(self) -> str:
        return (
            f"{self.count} paints, {1000 * self.cpu:.0f} ms of CPU ({1000 * self.cpu / max(1, self.count):.2f} ms each), "
            f"{1000 * self.wall / max(1, self.count):.2f} ms each on the clock (longest {1000 * self.longest:.1f} ms)"
        )


class LiveSession(StoreBackedSession):
    """A stand-in session that is live (the room list reloads as it does for a live session)."""

    async def refresh_roster(self, room: str) -> None:
        pass

    async def join_requests(self, room: str, *, urgent: bool = True) -> tuple:
        return ()

    async def mark_read(self, room: str, seq: int) -> None:
        pass

    async def pull_older(self, room: str, before: int) -> int:
        return 0  # the hub holds nothing older than the store


async def stand_in_hubs(root: Path, hubs: int, rooms: int) -> tuple[HubList, list[LiveSession], int]:
    """``hubs`` live stand-in sessions over stores in ``root``, ``rooms`` rooms each with one
    message, held by a ``HubList``; the last seq used."""
    held, sessions, seq = HubList(), [], 0
    for index in range(hubs):
        store = StoreWorker(root / f"hub{index}.sqlite3")
        await store.open()
        await store.call(LocalStore.replace_rooms, [RoomInfo(room_name(n), "channel", 3, 0) for n in range(rooms)])
        first = []
        for n in range(rooms):
            seq += 1
            first.append(StoredMessage(seq, f"m{seq}", room_name(n), ALICE, ({"kind": "text", "text": TEXT.format(n=seq)},), 1_700_000_000_000 + seq))
        await store.call(LocalStore.insert_messages, first)
        session = LiveSession(store)
        sessions.append(session)
        entry = held.add(f"ws://hub{index}/ws")
        entry.bridge.attach(session)
        session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, session.agent_id))
    return held, sessions, seq


async def close_stand_ins(window: MainWindow, hubs: HubList, sessions: list[LiveSession]) -> None:
    """Close ``window`` and what ``stand_in_hubs`` made: every hub's tasks, then the stores."""
    window.close()
    for entry in hubs.entries:
        await entry.bridge.tasks.cancel_all()
    await window.bridge.tasks.cancel_all()
    for session in sessions:
        await session.store.close()


async def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as directory:
        hubs, sessions, seq = await stand_in_hubs(Path(directory), args.hubs, args.rooms)
        window = MainWindow(SessionBridge(), hubs)
        collector = IdleCollector(window)
        gc.freeze()
        collector.start()
        window.resize(1200, 800)
        window.show()
        window.activateWindow()
        await wait_for(lambda: all(entry.rooms.rowCount() == args.rooms for entry in hubs.entries), 30)
        window.show_room(hubs.entries[0].url, room_name(0))
        await wait_for(lambda: window.timeline_model.room == room_name(0) and not window.timeline_model.loading, 30)
        await asyncio.sleep(1.0)

        meter = StallMeter()
        meter.start()
        cpu = time.thread_time()
        await asyncio.sleep(args.secs)
        idle_cpu, idle_gap = time.thread_time() - cpu, meter.stop()

        rng = random.Random(42)
        sidebar, timeline = PaintCost(window.room_panel.view), PaintCost(window.timeline)
        switches = asyncio.ensure_future(switching(window, hubs, args))
        meter.start()
        profiler = cProfile.Profile() if args.profile else None
        if profiler is not None:
            profiler.enable()
        cpu, started, sent = time.thread_time(), time.perf_counter(), 0
        while (now := time.perf_counter()) < started + args.secs:
            due = int((now - started) * args.rate)
            while sent < due:
                hub = 0 if rng.random() < args.hot_share else rng.randrange(args.hubs)
                room = room_name(0) if hub == 0 and rng.random() < 0.5 else room_name(rng.randrange(args.rooms))
                seq += 1
                sent += 1
                new = StoredMessage(seq, f"m{seq}", room, ALICE, ({"kind": "text", "text": TEXT.format(n=seq)},), int(time.time() * 1000))
                stored = await sessions[hub].store.call(LocalStore.insert_messages, [new])
                if stored:
                    sessions[hub].emit(MessagesStored(room, tuple(stored), True))
            await asyncio.sleep(0.002)
        await asyncio.sleep(0.5)  # the last reloads
        busy_cpu, busy_gap = time.thread_time() - cpu, meter.stop()
        loads, paints = await switches
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        secs = time.perf_counter() - started
        window_rows = window.timeline_model.rowCount()
        print(
            f"{args.hubs} hubs x {args.rooms} rooms, {sent} messages in {secs:.1f} s ({sent / secs:.0f} msg/s, "
            f"{args.hot_share:.0%} into the open room; it shows {window_rows} rows)"
        )
        print(f"Qt thread CPU: {1000 * busy_cpu / sent:.2f} ms a message, {100 * busy_cpu / secs:.1f} % of a core "
              f"(idle window: {100 * idle_cpu / args.secs:.1f} %)")
        print(f"sidebar: {sidebar}; timeline: {timeline}")
        print(
            f"switching rooms (show_room, every other one on another hub), {len(loads)}: to the page loaded p50 "
            f"{percentile(loads, 0.5):.1f} ms, max {max(loads):.1f} ms; to the first paint after it p50 {percentile(paints, 0.5):.1f} ms, "
            f"max {max(paints):.1f} ms"
        )
        print(f"longest gap of the 2 ms meter: {busy_gap:.1f} ms ({meter.stalls} over 50 ms); idle window {idle_gap:.1f} ms")
        collector.stop()
        await close_stand_ins(window, hubs, sessions)


async def switching(window: MainWindow, hubs: HubList, args: argparse.Namespace) -> tuple[list[float], list[float]]:
    """Open another room every half second while the messages come (every other one on another
    hub; the traffic's own room last): ms until its page is in, and until the timeline's first
    paint after that."""
    model, loads, paints = window.timeline_model, [], []
    painted: list[float] = []
    paint = window.timeline.paintEvent

    def timed_paint(event: object) -> None:
        paint(event)
        painted.append(time.perf_counter())

    window.timeline.paintEvent = timed_paint
    rng = random.Random(7)
    n = 0
    deadline = time.perf_counter() + args.secs - 1.0
    while time.perf_counter() < deadline:
        await asyncio.sleep(0.5)
        n += 1
        hub = hubs.entries[(n // 2) % len(hubs.entries)].url
        room = room_name(rng.randrange(1, args.rooms))
        loaded: list[float] = []
        model.roomLoaded.connect(lambda _room: loaded.append(time.perf_counter()))
        started = time.perf_counter()
        window.show_room(hub, room)
        await wait_for(lambda: bool(loaded) and any(t > loaded[-1] for t in painted[-3:]), 15)
        model.roomLoaded.disconnect()
        loads.append(1000 * (loaded[-1] - started))
        paints.append(1000 * (next(t for t in painted if t > loaded[-1]) - started))
    window.show_room(hubs.entries[0].url, room_name(0))
    window.timeline.paintEvent = paint
    return loads, paints


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hubs", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--rate", type=float, default=60.0)
    parser.add_argument("--secs", type=float, default=15.0)
    parser.add_argument("--hot-share", type=float, default=0.1)
    parser.add_argument("--profile", metavar="FILE", help="record the Qt thread's calls during the traffic (cProfile)")
    return parser.parse_args()


if __name__ == "__main__":
    run_on_app_loop(run(parse()))
