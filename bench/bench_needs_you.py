"""Benchmark Needs you: opening the queue with 1,000 open items on 5 hubs × 100 rooms, to its
first paint, against opening it empty in the same run; and the derivation's cost per stored
message, against the agent states' (``AgentActivity.observe``), which every wake already pays.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_needs_you.py
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from parler_desktop.app.hubs.bridge import SessionBridge  # noqa: E402
from parler_desktop.app.hubs.hub_list import HubList  # noqa: E402
from parler_desktop.app.needs_you.needs_rules import Me  # noqa: E402
from parler_desktop.app.room_list.agent_activity import AgentActivity  # noqa: E402
from parler_desktop.protocol.values import EndpointRef, StoredMessage  # noqa: E402
from parler_desktop.ui.main_window import MainWindow  # noqa: E402

HUBS, ROOMS, ITEMS, WAKE = 5, 100, 1000, 50_000
ME = Me("UME", "boss", "supervisor")
AGENT = EndpointRef(id="UALICE", name="alice", role="planner")


def message(seq: int, room: str, text: str) -> StoredMessage:
    return StoredMessage(seq=seq, id=f"m{seq}", room=room, sender=AGENT, parts=({"kind": "text", "text": text},),
                         ts=1_700_000_000_000 + seq, mentions=())


class FirstPaint(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def eventFilter(self, _watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.at is None:
            self.at = time.perf_counter()
        return False


def open_queue(window: MainWindow) -> float:
    """Seconds from Ctrl+I's slot to the list's first paint."""
    window.needs_you.hide_queue()
    QApplication.processEvents()
    meter = FirstPaint()
    window.needs_you.view.list.viewport().installEventFilter(meter)
    start = time.perf_counter()
    window.needs_you.show_queue()
    while meter.at is None:
        QApplication.processEvents()
    window.needs_you.view.list.viewport().removeEventFilter(meter)
    return meter.at - start


def main() -> None:
    app = QApplication.instance() or QApplication([])
    hubs = HubList()
    for number in range(HUBS):
        hubs.add(f"ws://127.0.0.{number + 1}:1/ws")
    window = MainWindow(SessionBridge(), hubs)
    window.resize(1200, 800)
    window.show()
    empty = statistics.median(open_queue(window) for _ in range(5))
    seq = 0
    for entry in hubs.entries:
        watch = window.needs.watch(entry)
        watch.ledger.me = ME
        for n in range(ITEMS // HUBS):
            seq += 1
            watch.ledger.observe(message(seq, f"room-{n % ROOMS}", f"@boss question {seq}"))
        watch.refresh()
    assert window.needs.count() == ITEMS
    full = statistics.median(open_queue(window) for _ in range(5))
    print(f"open the queue, first paint: empty {empty * 1000:.1f} ms, {ITEMS} items {full * 1000:.1f} ms (≤ 100 ms wanted)")

    wake = [message(s, f"room-{s % ROOMS}", "@boss hi" if s % 50 == 0 else "chatter") for s in range(1, WAKE + 1)]
    from parler_desktop.app.needs_you.needs_rules import NeedsLedger

    start = time.perf_counter()
    activity = AgentActivity(ME.agent_id)
    for m in wake:
        activity.observe(m)
    states = time.perf_counter() - start
    start = time.perf_counter()
    ledger = NeedsLedger(ME)
    for m in wake:
        ledger.observe(m)
    needs = time.perf_counter() - start
    print(f"{WAKE} stored messages: agent states {states * 1000:.0f} ms, Needs you {needs * 1000:.0f} ms "
          f"(ratio {needs / states:.2f}; {needs / WAKE * 1e6:.1f} µs a message)")
    window.close()
    app.processEvents()


if __name__ == "__main__":
    main()
