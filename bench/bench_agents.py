"""Benchmark the Agents view (issue 43): 5 hubs x 100 rooms x 200 agents, 10,000 task receipts.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_agents.py

Each hub is a cache filled as the session fills it (rooms, a roster of 20 of the hub's agents per
room, 20 messages a room and 2,000 task receipts a hub) behind a store-backed session that
answers ``discover`` with the hub's 200 cards; gc runs as the app runs it (frozen, then the idle
collector). Measured on the Qt thread (the 2 ms StallMeter of bench_ui.py), "painted" being the
time from the action to the whole window painted (the action, then a synchronous repaint):
- the view's first open: painted, then the read of every hub's cache and directory behind it,
  and the longest event-loop gap while both run;
- a second open (every hub read: 1,005 rows); each filter and each grouping chosen in the view's
  combo boxes (by room: one row per agent and room, 11,400 rows): the time until its rows are
  shown, the longest event-loop gap meanwhile, and whether the selected agent (far down the list)
  is still selected and in sight;
- 1,000 more receipts arriving as stored messages, a batch of 20 at a time: each added to the
  kept totals (no rescan), the longest gap meanwhile;
- every agent's presence changing five times, a hub's directory at a time (200 rows each), the
  longest gap meanwhile;
against baselines in the same run: the longest gap of the idle loop over a second, and a bare
QTableView of a 1,000-row, 9-column static model in a window of the same size, painted.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from PySide6.QtGui import QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QTableView, QWidget

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_ui import StallMeter, idle_baseline, run_on_app_loop, wait_for  # noqa: E402
from support.stored_session import StoreBackedSession  # noqa: E402

from parler_desktop.app.agents.fleet_model import AGENT_KEY, COLUMNS, FILTERS, GROUPS, FleetModel  # noqa: E402
from parler_desktop.app.attention.attention_settings import AttentionSettings  # noqa: E402
from parler_desktop.app.hubs.hub_list import HubList  # noqa: E402
from parler_desktop.app.needs_you.hub_needs import HubNeeds  # noqa: E402
from parler_desktop.app.room_list.agent_watch import HubAgentWatches  # noqa: E402
from parler_desktop.client.events import ConnectionState, MessagesStored, StateChanged  # noqa: E402
from parler_desktop.protocol.values import (  # noqa: E402
    AgentCard, DirectoryEntry, EndpointRef, RoomInfo, RosterEntry, StoredMessage,
)
from parler_desktop.store import LocalStore, StoreWorker  # noqa: E402
from parler_desktop.ui.agents.agents_view import AgentsView  # noqa: E402
from parler_desktop.ui.idle_collector import IdleCollector  # noqa: E402

HUBS, ROOMS, AGENTS, RECEIPTS = 5, 100, 200, 10_000
PER_ROOM_ROSTER, PER_ROOM_TEXTS, LIVE_RECEIPTS, LIVE_BATCH = 20, 20, 1_000, 20
NOW_MS = int(time.time() * 1000)
PRESENCES = ("idle", "working", "waiting", "offline")


def agent_ref(hub: int, n: int) -> EndpointRef:
    return EndpointRef(id=f"H{hub}A{n:03d}", name=f"agent-{hub}-{n:03d}", role=("coder", "reviewer", "planner")[n % 3])


class DirectorySession(StoreBackedSession):
    """The store-backed session of bench_ui and the tests, with a hub directory of ``cards``."""

    def __init__(self, store: StoreWorker, hub: int) -> None:
        super().__init__(store)
        self.hub_url = f"ws://hub{hub}.invalid/ws"
        self.cards = tuple(
            DirectoryEntry(
                card=AgentCard(id=agent_ref(hub, n).id, name=agent_ref(hub, n).name, kind="agent", role=agent_ref(hub, n).role),
                visibility="private", status=PRESENCES[n % 4], hub="h", verified=n % 2 == 0,
                first_seen=NOW_MS - 86_400_000, last_seen=NOW_MS - n * 1000, activity=f"step {n}",
            )
            for n in range(AGENTS)
        )

    async def discover(self, scope: str = "hub", **_filters: object) -> tuple[DirectoryEntry, ...]:
        return self.cards


def task_message(hub: int, seq: int, room: str, n: int, status: str) -> StoredMessage:
    part: dict = {"kind": "com.parler.task", "status": status, "task": f"t{seq}"}
    if seq % 3:
        part.update(tokens=100 + n, elapsedMs=1000 * n)  # a third without figures
    return StoredMessage(seq=seq, id=f"m{seq}", room=room, sender=agent_ref(hub, n), parts=(part,), ts=NOW_MS - seq * 10)


def fill(store: LocalStore, hub: int) -> int:
    """The hub's cache; returns its highest seq."""
    rooms = [f"room-{r:03d}" for r in range(ROOMS)]
    store.replace_rooms([RoomInfo(name=room, kind="channel", members=PER_ROOM_ROSTER + 1, unread=0) for room in rooms])
    messages, seq = [], 0
    for r, room in enumerate(rooms):
        members = [(r * 7 + k) % AGENTS for k in range(PER_ROOM_ROSTER)]
        store.replace_roster(
            room, [RosterEntry(id=agent_ref(hub, n).id, name=agent_ref(hub, n).name, status="idle", last_seen=NOW_MS, role=agent_ref(hub, n).role) for n in members]
        )
        for k in range(PER_ROOM_TEXTS):
            seq += 1
            n = members[k % len(members)]
            messages.append(StoredMessage(seq=seq, id=f"m{seq}", room=room, sender=agent_ref(hub, n), parts=({"kind": "text", "text": f"note {seq}"},), ts=NOW_MS - seq))
    for k in range(RECEIPTS // HUBS):
        seq += 1
        r = k % ROOMS
        messages.append(task_message(hub, seq, rooms[r], (r * 7 + k) % AGENTS, ("done", "failed", "cancelled")[k % 3 if k % 10 == 0 else 0]))
    store.insert_messages(messages, index_now=False)
    return seq


def painted_ms(view: QWidget, show: Callable[[], None]) -> float:
    """ms from ``show`` to the whole window painted (a synchronous repaint after it: the show,
    the layout and every child's paint, not just the moment painting starts)."""
    started = time.perf_counter()
    show()
    view.repaint()
    return (time.perf_counter() - started) * 1000


def baseline_paint() -> float:
    """ms from show to a bare table of 1,000 static rows painted."""
    model = QStandardItemModel(HUBS * AGENTS, len(COLUMNS))
    for row in range(HUBS * AGENTS):
        for column in range(len(COLUMNS)):
            model.setItem(row, column, QStandardItem(f"cell {row}.{column}"))
    view = QTableView()
    view.setModel(model)
    view.resize(1100, 560)
    took = painted_ms(view, view.show)
    view.close()
    return took


async def switch_gap(model: FleetModel, view: AgentsView, meter: StallMeter, control: QComboBox, text: str) -> tuple[float, float]:
    """Choose ``text`` in the view's ``control`` (as a user does): ms until the new rows are shown
    (the model's ``updated``) and painted, and the longest event-loop gap meanwhile."""
    shown: list[bool] = []
    model.updated.connect(lambda: shown.append(True))
    meter.start()
    started = time.perf_counter()
    control.setCurrentText(text)
    await wait_for(lambda: bool(shown), 10)
    await asyncio.sleep(0.03)  # the paint that follows
    took = (time.perf_counter() - started) * 1000 - 30
    model.updated.disconnect()
    return took, meter.stop()


async def switches(model: FleetModel, view: AgentsView, meter: StallMeter, idle: float) -> None:
    """Each filter (ungrouped), then each grouping (all agents), chosen in the view's combo
    boxes, an agent far down the list selected: the longest gap of each, and whether the agent is
    still selected and in sight after the switch where it is shown."""
    view.list.select_key(model.layout.rows[-1])  # the last row: far below the first screen
    selected = view.list.currentIndex().data(AGENT_KEY)
    longest = 0.0
    for control, choices in ((view.filter, FILTERS[1:] + FILTERS[:1]), (view.group, GROUPS[1:] + GROUPS[:1])):
        for text in choices:
            took, gap = await switch_gap(model, view, meter, control, text)
            longest = max(longest, gap)
            current = view.list.currentIndex()
            kept = "-" if model.row_of(selected) is None else "yes" if current.data(AGENT_KEY) == selected and view.list.viewport().rect().intersects(view.list.visualRect(current)) else "NO"
            print(
                f"  {control.accessibleName()} {text:<13}: shown in {took:6.1f} ms, {model.rowCount():6,} rows; longest event-loop gap "
                f"{gap:5.1f} ms ({gap / idle:.2f}x idle); the selected agent selected and in sight: {kept}"
            )
    print(f"filter and grouping switches: longest event-loop gap {longest:5.1f} ms ({longest / idle:.2f}x idle)")


async def main() -> None:
    meter = StallMeter()
    with tempfile.TemporaryDirectory() as directory:
        hubs, sessions, last_seqs = HubList(), [], []
        for hub in range(HUBS):
            worker = StoreWorker(Path(directory) / f"hub{hub}.sqlite3")
            await worker.open()
            last_seqs.append(await worker.call(fill, hub))
            session = DirectorySession(worker, hub)
            entry = hubs.add(session.hub_url)
            entry.bridge.attach(session)
            session.emit(StateChanged(ConnectionState.LIVE, session.hub_url, session.agent_id))
            sessions.append(session)
        watches = HubAgentWatches(hubs, AttentionSettings)
        needs = HubNeeds(hubs)  # as the main window makes it, at start-up: not when the view opens
        await asyncio.sleep(1.0)  # the agent watches read their pages, the Needs you queue its caches
        idle = await idle_baseline(meter)
        print(f"baseline: nothing to do, longest event-loop gap {idle:5.1f} ms (the machine's own noise)")
        base = min(baseline_paint() for _ in range(3))
        print(f"baseline: a bare table of {HUBS * AGENTS:,} rows x {len(COLUMNS)} columns paints in {base:6.1f} ms")

        model = FleetModel(hubs, watches, needs)
        view = AgentsView(model)
        collector = IdleCollector(view)  # as the gui command runs the window: gc.freeze, then this
        gc.freeze()
        collector.start()
        meter.start()
        started = time.perf_counter()
        painted = [painted_ms(view, view.open_view)]
        loaded = asyncio.Event()
        model.feed.loaded.connect(loaded.set)
        await asyncio.wait_for(loaded.wait(), 30)
        load_s = time.perf_counter() - started
        await asyncio.sleep(0.3)  # the rebuild after the load
        stall = meter.stop()
        rows = model.rowCount()
        print(
            f"first open: painted in {painted[0]:6.1f} ms ({painted[0] / base:.2f}x baseline); every hub's cache and "
            f"directory read in {load_s * 1000:6.0f} ms ({model.costs.counted:,} receipts, {len(model.state.agents):,} agents, "
            f"{rows:,} rows); longest event-loop gap {stall:5.1f} ms, {meter.stalls} over 50 ms"
        )
        view.hide()
        await asyncio.sleep(0.1)
        painted.append(painted_ms(view, view.open_view))
        print(f"second open (1,005 rows, every hub read): painted in {painted[1]:6.1f} ms ({painted[1] / base:.2f}x baseline)")

        await switches(model, view, meter, idle)

        meter.start()
        counted = model.costs.counted
        started = time.perf_counter()
        for k in range(0, LIVE_RECEIPTS, LIVE_BATCH):
            hub = k // LIVE_BATCH % HUBS
            batch = []
            for j in range(LIVE_BATCH):
                last_seqs[hub] += 1
                batch.append(task_message(hub, last_seqs[hub], "room-000", (k + j) % AGENTS, "done"))
            stored = await sessions[hub].store.call(LocalStore.insert_messages, batch, index_now=False)
            sessions[hub].emit(MessagesStored("room-000", tuple(stored), True))
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.3)
        elapsed = time.perf_counter() - started
        print(
            f"{LIVE_RECEIPTS:,} receipts arriving in batches of {LIVE_BATCH}: {model.costs.counted - counted:,} added in "
            f"{elapsed:.2f} s; longest event-loop gap {meter.stop():5.1f} ms, {meter.stalls} over 50 ms"
        )

        meter.start()
        started = time.perf_counter()
        for turn in range(1, 6):  # every agent's presence moves on, a hub's directory at a time
            for hub, session in enumerate(sessions):
                session.cards = tuple(replace(card, status=PRESENCES[(n + turn) % 4]) for n, card in enumerate(session.cards))
                await model.feed.refresh_directory(hubs.entries[hub])
                await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        print(
            f"{5 * HUBS * AGENTS:,} presence changes, a directory of {AGENTS} at a time: in {time.perf_counter() - started:.2f} s; "
            f"longest event-loop gap {meter.stop():5.1f} ms, {meter.stalls} over 50 ms"
        )
        view.close()
        for session in sessions:
            await session.store.close()


if __name__ == "__main__":
    run_on_app_loop(main())
