"""Benchmark the sidebar letting go of its held order (the pointer leaving the list), one hub a
turn (``HubRoomsModel.hold_order``), against the same let-go in one callback (every hub at once,
as before issue 42's change) in the same run.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_let_go.py [--hubs 5] [--rooms 100]
     [--changed 40] [--rounds 8]

Each hub is a stand-in session over a real local store (``tests/support/stored_session.py``)
attached to a real ``MainWindow`` (1200 x 800, shown). Each round holds the order, stores one
message in each of ``--changed`` rooms spread over the hubs (as traffic does while the pointer is
over the list), lets go and times each callback of the let-go on the Qt thread's CPU clock, the
sidebar painted at its end; rounds alternate between one hub a turn and every hub at once
(painted once). One hub a turn paints the sidebar once a hub: more CPU in all, less at a time.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_room_list import TEXT, close_stand_ins, room_name, stand_in_hubs  # noqa: E402
from bench_ui import run_on_app_loop, wait_for  # noqa: E402
from support.stored_session import ALICE  # noqa: E402

from parler_desktop.app.hubs.bridge import SessionBridge  # noqa: E402
from parler_desktop.app.room_list.hub_rooms_model import HubRoomsModel  # noqa: E402
from parler_desktop.client.events import MessagesStored  # noqa: E402
from parler_desktop.protocol.values import StoredMessage  # noqa: E402
from parler_desktop.store import LocalStore  # noqa: E402
from parler_desktop.ui.main_window import MainWindow  # noqa: E402


class TimedSteps:
    """Each callback of ``HubRoomsModel``'s let-go timed (ms of the Qt thread's CPU, ``view``
    painted at its end), wrapped on the class before the window makes its model."""

    def __init__(self) -> None:
        self.steps: list[float] = []
        self.view = None
        self.paint = True  # each callback paints the sidebar at its end (the baseline paints once, at the end of all)
        step = HubRoomsModel._let_go_of_one

        def timed(model: HubRoomsModel) -> None:
            started = time.thread_time()
            step(model)
            if self.paint:
                self.view.viewport().repaint()
            self.steps.append(1000 * (time.thread_time() - started))

        HubRoomsModel._let_go_of_one = timed


async def run(args: argparse.Namespace) -> None:
    timed = TimedSteps()
    with tempfile.TemporaryDirectory() as directory:
        hubs, sessions, seq = await stand_in_hubs(Path(directory), args.hubs, args.rooms)
        window = MainWindow(SessionBridge(), hubs)
        window.resize(1200, 800)
        window.show()
        panel = window.room_panel
        timed.view = panel.view
        model = panel.model
        await wait_for(lambda: all(entry.rooms.rowCount() == args.rooms for entry in hubs.entries), 30)
        await asyncio.sleep(1.0)
        per_turn: list[tuple[float, float]] = []  # (longest callback, all of them)
        at_once: list[float] = []
        for round_ in range(2 * args.rounds):
            model.hold_order(True)
            for k in range(args.changed):
                seq += 1
                hub, room = k % args.hubs, room_name((round_ * 37 + k * 13) % args.rooms)
                new = StoredMessage(seq, f"m{seq}", room, ALICE, ({"kind": "text", "text": TEXT.format(n=seq)},), int(time.time() * 1000) + seq)
                stored = await sessions[hub].store.call(LocalStore.insert_messages, [new])
                sessions[hub].emit(MessagesStored(room, tuple(stored), True))
            summary = lambda k: hubs.entries[k % args.hubs].rooms.summary(room_name((round_ * 37 + k * 13) % args.rooms))  # noqa: E731
            await wait_for(lambda: all(summary(k) is not None and summary(k).max_seq >= seq - args.changed for k in range(args.changed)), 30)
            await asyncio.sleep(0.5)  # the reloads' ticks shown
            timed.steps.clear()
            if round_ % 2 == 0:
                panel._let_go()  # as the pointer leaving the list does, SORT_AGAIN_AFTER_MS later
                await wait_for(lambda: not model._held, 10)
                per_turn.append((max(timed.steps), sum(timed.steps)))
            else:  # the baseline: every hub's in one callback, painted once
                timed.paint = False
                started = time.thread_time()
                model.hold_order(False)
                while model._held:
                    model._let_go_of_one()
                panel.view.viewport().repaint()
                at_once.append(1000 * (time.thread_time() - started))
                timed.paint = True
                await wait_for(lambda: not model._letting_go.isActive(), 10)
        longest = statistics.median(step for step, _ in per_turn)
        baseline = statistics.median(at_once)
        print(f"{args.hubs} hubs x {args.rooms} rooms, {args.changed} changed while held, {args.rounds} rounds of each way")
        print(
            f"letting go, one hub a turn: the longest callback p50 {longest:.1f} ms of the Qt thread's CPU "
            f"(all of its callbacks {statistics.median(total for _, total in per_turn):.1f} ms, the sidebar painted after each)"
        )
        print(f"baseline, every hub at once in one callback (painted once): p50 {baseline:.1f} ms; ratio {longest / baseline:.2f}x")
        await close_stand_ins(window, hubs, sessions)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hubs", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=100)
    parser.add_argument("--changed", type=int, default=40, help="rooms that get a message while the order is held")
    parser.add_argument("--rounds", type=int, default=8, help="let-gos of each way")
    return parser.parse_args()


if __name__ == "__main__":
    run_on_app_loop(run(parse()))
