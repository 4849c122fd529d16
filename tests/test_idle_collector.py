"""The full garbage collection runs while nothing arrives, not whenever allocations trip it."""

from __future__ import annotations

import gc
import time

import pytest
from PySide6.QtCore import QTimer

from parler_desktop.ui.idle_collector import NEVER, IdleCollector

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def full_collections():
    """The monotonic times at which full collections started."""
    started: list[float] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == 2:
            started.append(time.monotonic())

    gc.callbacks.append(note)
    yield started
    gc.callbacks.remove(note)


def busy(collector: IdleCollector) -> QTimer:
    """Messages arriving every 10 ms until the timer is stopped."""
    arrivals = QTimer(interval=10)
    arrivals.timeout.connect(collector.activity)
    arrivals.start()
    return arrivals


def test_automatic_full_collections_are_off_while_it_runs(qtbot):
    before = gc.get_threshold()
    collector = IdleCollector()
    collector.start()
    try:
        assert gc.get_threshold() == (before[0], before[1], NEVER)
    finally:
        collector.stop()
    assert gc.get_threshold() == before


def test_it_collects_once_messages_stop_arriving(qtbot, full_collections):
    collector = IdleCollector(interval=0.05, quiet=0.3)
    arrivals = busy(collector)
    collector.start()
    try:
        started = time.monotonic()
        qtbot.waitUntil(lambda: time.monotonic() - started > 0.6, timeout=5000)
        assert full_collections == []  # a burst is never held up by one
        arrivals.stop()
        quiet_from = time.monotonic()
        qtbot.waitUntil(lambda: bool(full_collections), timeout=5000)
        assert full_collections[0] - quiet_from >= 0.25
    finally:
        arrivals.stop()
        collector.stop()


def test_a_room_that_never_falls_quiet_still_gets_collected(qtbot, full_collections):
    collector = IdleCollector(interval=0.05, quiet=100, longest=0.4)
    arrivals = busy(collector)
    started = time.monotonic()
    collector.start()
    try:
        qtbot.waitUntil(lambda: bool(full_collections), timeout=5000)
        assert full_collections[0] - started >= 0.35
    finally:
        arrivals.stop()
        collector.stop()


def test_after_each_collection_the_free_pages_go_back_to_the_system(qtbot, full_collections):
    """Issue 42: a room scrolled back through and closed left its freed pages with glibc."""
    from parler_desktop.ui import free_memory

    given_back: list[int] = []
    collector = IdleCollector(interval=0.05, quiet=0.05, give_back=lambda: given_back.append(len(full_collections)))
    collector.start()
    try:
        qtbot.waitUntil(lambda: len(given_back) >= 2, timeout=5000)
        assert given_back[0] >= 1  # after the collection, never before it
    finally:
        collector.stop()
    free_memory.give_back()  # (glibc here: it returns; elsewhere it does nothing)
