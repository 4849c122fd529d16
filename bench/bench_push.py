"""Benchmark push latency end to end: an agent's send until the row is painted in the window, and
until ``listen --json`` prints it, each against a bare websockets subscriber in the same run.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_push.py [--messages 200]
[--reference-hub PATH]  (PATH: the reference ``parler-hub``, docs/interop.md: the same, on that hub)

The hub runs as its own process (``parler-desktop hub``); the sending agent and the bare
subscriber (a raw WebSocket that only decodes the frame, always the first the hub pushes to: see
``pushed_to_first``) run in a second process; the window (the real ``DesktopApp`` and
``MainWindow``, subscribed to the hub like any user) runs in this one. One message at a time,
with a quiet gap between messages (the everyday case: an agent says something, the supervisor
sees it, the pointer resting on the conversation). The window's paint
passes are timestamped when they end; a message counts as painted at the end of the first pass
that drew its row. Times are ``perf_counter`` (CLOCK_MONOTONIC, shared by the processes). Then
the window closes and the same is measured for ``listen --json`` (its stdout read by the agents'
process); last, for the floor window (``push_floor.py``): a window of the app's shape that shows
each pushed message with no client, model or item view, which says how much of the window's time
any Qt window on this machine would take.

Figures: p50 / p99 in ms and the p50 ratio to the bare subscriber (also to the bare subscriber of
the second pass, when the window no longer competes with it for the machine's cores); the same
until the row is on screen: until the repaint that painted it ended, when Qt has painted whatever
else was due in the window (the scroll bar, say) and handed the frame to the display; and where
the window's time goes: the p50 of each stage between the agent's send and the painted row (the
push read and decoded, announced to the window as it arrived or once stored, the row in the
model, the row painted). Last, what idling costs on this machine: the p50 time to decode one
delivery frame back to back, and after the same quiet gap as between the messages above (on a
shared virtual machine the caches are taken by other work in the gap, and each stage of the
window's way to the screen pays to bring its code and data back: see ``idle_slowdown``).
"""

from __future__ import annotations

import argparse
import bisect
from collections.abc import Sequence
import json
import asyncio
import gc
import multiprocessing
import statistics
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from PySide6.QtGui import QCursor, QPaintEvent
from PySide6.QtWidgets import QApplication

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_hub import percentile  # noqa: E402
from bench_ui import wait_for  # noqa: E402
from support.cli_runner import run_cli, started_cli  # noqa: E402
from support.hub_fixtures import HubProcess  # noqa: E402
from support.raw_agent import RawAgent  # noqa: E402
from support.reference_hub import ReferenceHub  # noqa: E402
from push_floor import SHOWN_ROWS, floor_window, show_deliveries  # noqa: E402

from parler_desktop.client.inbox import BoundedInbox  # noqa: E402
from parler_desktop.identity import Identity, load_or_create_identity  # noqa: E402
from parler_desktop.protocol.frames import decode_hub_frame  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402
from parler_desktop.ui.desktop import DesktopApp  # noqa: E402
from parler_desktop.ui.event_loop import AppEventLoop  # noqa: E402
from parler_desktop.ui.qt_environment import prepare_qt_environment  # noqa: E402

WARMUP = 20
GAP_SECS = 0.04  # quiet time between messages
ROOM = "push"
WINDOW_HOME, LISTEN_HOME = "window-home", "listen-home"
LISTEN_FIRST, FLOOR_FIRST = 100_000, 200_000  # the number of each pass's first message
Sent = list[tuple[float, float]]  # per message: (sent at, bare subscriber's delivery at)


def label(n: int) -> str:
    return f"push {n}: the **build** is green, `pytest -q` passed"


# ---- the agents' process ---------------------------------------------------------------------


async def send_one(sender: RawAgent, bare: RawAgent, n: int) -> tuple[float, float]:
    """Send message ``n``; (sent at, bare delivery at)."""
    text = label(n)
    sent_at = time.perf_counter()
    await sender.ok({"op": "send", "target": {"kind": "room", "room": ROOM}, "parts": [{"kind": "text", "text": text}]})
    while True:
        delivered = await bare.recv_delivery(timeout=30)
        arrived = time.perf_counter()
        if delivered["parts"][0]["text"] == text:
            return sent_at, arrived


def pushed_to_first(others: Sequence[str]) -> Identity:
    """An identity whose id sorts before ``others``. The hub pushes to a room's members in the
    order of their ids: the bare subscriber gets each push before the window and ``listen`` do,
    never after them. With ids left to chance, the order changed from run to run and moved the
    ratio by up to 0.3 (the window's read then also waits for a core behind the bare one's)."""
    while True:
        identity = Identity.generate()
        if identity.agent_id < min(others):
            return identity


async def agents(url: str, root: Path, pipe: Connection, count: int, subscriber_ids: Sequence[str]) -> None:
    owner = await RawAgent.connect(url, name="owner")
    sender = await RawAgent.connect(url, name="builder", role="worker")
    bare = await RawAgent.connect(url, pushed_to_first(subscriber_ids), name="bare")
    room_code = (await owner.ok({"op": "invite", "kind": "channel", "room": ROOM, "maxUses": 10}, "invited"))["code"]
    for agent in (sender, bare):
        await agent.ok({"op": "redeem", "code": room_code}, "joined")
    await bare.ok({"op": "subscribe"}, "subscribed")
    pipe.send(room_code)

    async def run(total: int, first: int = 0) -> Sent:
        times = []
        for n in range(first, first + total):
            times.append(await send_one(sender, bare, n))
            await asyncio.sleep(GAP_SECS)
        return times

    await asyncio.to_thread(pipe.recv)  # the window is live in the room
    pipe.send(await run(WARMUP + count))
    await asyncio.to_thread(pipe.recv)  # the window is closed: now the command line
    home = root / LISTEN_HOME
    joined = await run_cli(home, "join", "--hub", url, room_code)
    assert joined.status == 0, joined.stderr
    printed: dict[str, float] = {}
    async with started_cli(home, "listen", "--json", "--hub", url, "--room", ROOM) as listen:
        assert listen.stdout is not None

        async def read() -> None:
            while line := await listen.stdout.readline():
                arrived = time.perf_counter()
                printed[json.loads(line)["text"]] = arrived

        reader = asyncio.create_task(read())
        await send_one(sender, bare, -1)
        while label(-1) not in printed:  # listen is live
            await asyncio.sleep(0.05)
        rows = []
        for n in range(WARMUP + count):
            sent_at, bare_at = await send_one(sender, bare, n + LISTEN_FIRST)
            while label(n + LISTEN_FIRST) not in printed:
                await asyncio.sleep(0.001)
            rows.append((sent_at, bare_at, printed[label(n + LISTEN_FIRST)]))
            await asyncio.sleep(GAP_SECS)
        reader.cancel()
    pipe.send(rows)
    await asyncio.to_thread(pipe.recv)  # the floor window is live in the room
    pipe.send(await run(WARMUP + count, FLOOR_FIRST))
    for agent in (owner, sender, bare):
        await agent.close()


def agents_process(url: str, root: str, pipe: Connection, count: int, subscriber_ids: Sequence[str]) -> None:
    asyncio.run(agents(url, Path(root), pipe, count, subscriber_ids))


# ---- the window ------------------------------------------------------------------------------


class PaintWatch:
    """Timestamps the end of each timeline paint pass and notes which new rows it drew; and the
    end of each repaint the timeline asks for as rows arrive (``_paint_now``: Qt paints what is
    due in the window and hands the frame to the display), which puts a painted row on screen."""

    def __init__(self, desktop: DesktopApp) -> None:
        self.painted: dict[str, float] = {}
        self.repaints: list[tuple[float, float]] = []  # (began, ended) of each ``_paint_now``
        self.view = desktop.window.timeline
        self.model = desktop.window.timeline_model
        paint, paint_now = self.view.paintEvent, self.view._paint_now

        def timed_paint(event: QPaintEvent) -> None:
            paint(event)
            self._drawn(event)

        def timed_paint_now() -> None:
            began = time.perf_counter()
            paint_now()
            self.repaints.append((began, time.perf_counter()))

        self.view.paintEvent = timed_paint  # the instance's override: Qt calls it for each pass
        self.view._paint_now = timed_paint_now  # (called from Python: the instance's attribute)

    def _drawn(self, event: QPaintEvent) -> None:
        ended = time.perf_counter()
        area = event.rect()
        for row in range(self.model.rowCount() - 1, max(-1, self.model.rowCount() - 6), -1):
            entry = self.model.entry(row)
            rect = self.view.visualRect(self.model.index(row))
            if entry is not None and rect.intersects(area):
                self.painted.setdefault(entry.text, ended)

    def on_screen(self, text: str) -> float | None:
        """When the repaint that painted the row ended (None: it was painted outside one)."""
        painted = self.painted.get(text)
        index = bisect.bisect_right(self.repaints, (painted, float("inf"))) - 1 if painted is not None else -1
        if index < 0 or not self.repaints[index][0] <= painted <= self.repaints[index][1]:
            return None
        return self.repaints[index][1]


class StageWatch:
    """When each message reached the stages before its paint, by text: read off the socket and
    decoded (the session's push inbox), first announced to the window (the bridge: arrived, or
    stored), appended to the model. On the measured path only a clock reading and the objects are
    kept; the texts are looked up once the run is over."""

    def __init__(self, desktop: DesktopApp) -> None:
        self._seen: dict[str, list[tuple[float, Sequence]]] = {"read": [], "announced": [], "appended": []}
        put = BoundedInbox.put
        read, announced, appended = (self._seen[stage].append for stage in ("read", "announced", "appended"))

        def timed_put(inbox: BoundedInbox, message: object) -> None:
            read((time.perf_counter(), (message,)))
            put(inbox, message)

        BoundedInbox.put = timed_put  # this process's only session is the window's
        bridge, model = desktop.bridge, desktop.window.timeline_model
        deliver, append = bridge._deliver, model._append

        def timed_deliver(session: object, event: object) -> None:
            announced((time.perf_counter(), getattr(event, "messages", ())))
            deliver(session, event)

        def timed_append(fresh: list) -> None:
            appended((time.perf_counter(), fresh))
            append(fresh)

        bridge._deliver = timed_deliver
        model._append = timed_append

    def stage(self, name: str) -> dict[str, float]:
        """Text -> when it first reached stage ``name``."""
        reached: dict[str, float] = {}
        for at, messages in self._seen[name]:
            for message in messages:
                text = message.parts[0].get("text") if message.parts else None
                if isinstance(text, str):
                    reached.setdefault(text, at)
        return reached


def report_stages(stages: StageWatch, painted: dict[str, float], sent: Sent) -> None:
    """The p50 of each step from the send to the painted row (each message's own steps)."""
    steps = {"send -> read": [], "read -> announced": [], "announced -> model": [], "model -> painted": []}
    read, announced, appended = stages.stage("read"), stages.stage("announced"), stages.stage("appended")
    for n, (sent_at, _bare_at) in list(enumerate(sent))[WARMUP:]:
        text = label(n)
        times = [sent_at, read.get(text), announced.get(text), appended.get(text), painted.get(text)]
        if None in times:
            continue
        for name, start, end in zip(steps, times, times[1:]):
            steps[name].append(end - start)
    print("  window stages, p50: " + "; ".join(f"{name} {percentile(values, 0.5) * 1000:.2f} ms" for name, values in steps.items() if values))


def report(name: str, ours: list[float], bare: list[float]) -> None:
    ms = 1000.0
    print(
        f"{name}: p50 {percentile(ours, 0.5) * ms:6.2f} ms, p99 {percentile(ours, 0.99) * ms:6.2f} ms;"
        f" bare subscriber p50 {percentile(bare, 0.5) * ms:5.2f} ms, p99 {percentile(bare, 0.99) * ms:5.2f} ms;"
        f" p50 ratio {percentile(ours, 0.5) / percentile(bare, 0.5):.2f}x (mean {statistics.mean(ours) * ms:.2f} ms)"
    )


def idle_slowdown(rounds: int = 100) -> tuple[float, float]:
    """(back to back, after ``GAP_SECS`` idle): the p50 seconds to decode one delivery frame.

    The window idles between pushed messages, as people's agents do between messages. Where
    other work shares the machine, the code and data a push needs are no longer in the CPU's
    caches after the gap; each distinct piece of code on its way to the screen then costs many
    times what it costs warm. The bare subscriber's way (read a frame, decode it) touches far
    less code than the window's (the same, then the model, the row's layout and its paint), so
    the larger this slowdown, the more the window's ratio to it grows."""
    frame = json.dumps(
        {
            "type": "delivery",
            "message": {
                "seq": 7, "id": "0190f3c2-7b1e-7a00-9c1d-3e5f00000001", "room": ROOM, "ts": 1710000000000,
                "from": {"id": "U" * 56, "name": "builder", "role": "worker"},
                "parts": [{"kind": "text", "text": label(7)}],
            },
        }
    )
    warm, idle = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        decode_hub_frame(frame)
        warm.append(time.perf_counter() - start)
    for _ in range(rounds):
        time.sleep(GAP_SECS)
        start = time.perf_counter()
        decode_hub_frame(frame)
        idle.append(time.perf_counter() - start)
    return percentile(warm, 0.5), percentile(idle, 0.5)


async def main(count: int, reference_hub: str | None) -> tuple[StageWatch, PaintWatch, Sent]:
    """Measure and report; returns the window's pass as measured (stages, paints, sent)."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        if reference_hub:
            hub = ReferenceHub(reference_hub, root).start()
            print(f"hub: the reference parler-hub ({reference_hub})")
        else:
            hub = HubProcess(root / "hub.sqlite3", 0, ["--relaxed-limits"], root).start()
        homes = [Home.resolve(root / name).ensure() for name in (WINDOW_HOME, LISTEN_HOME)]
        floor_identity = Identity.generate()
        subscriber_ids = [load_or_create_identity(home.key_file).agent_id for home in homes]  # as they will use
        subscriber_ids.append(floor_identity.agent_id)
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        child = context.Process(target=agents_process, args=(hub.url, directory, theirs, count, subscriber_ids), daemon=True)
        child.start()
        try:
            code = await asyncio.to_thread(ours.recv)
            home = homes[0]
            save_settings(home.settings_file, Settings(display_name="boss"))
            desktop = DesktopApp(home, hub.url)
            gc.freeze()  # as the gui command does once the window is built
            desktop.collector.start()
            desktop.window.resize(1200, 800)
            desktop.window.show()
            desktop.window.activateWindow()  # the supervisor is watching: what arrives is read at once
            await wait_for(desktop.window.isActiveWindow, 10)
            await desktop.connect(hub.url)
            await wait_for(lambda: desktop.bridge.is_live, 15)
            await desktop.bridge.session.redeem(code)
            await wait_for(lambda: ROOM in desktop.window.rooms.room_names(), 10)
            desktop.window.room_panel.select_room(ROOM)
            await wait_for(lambda: desktop.window.timeline_model.room == ROOM and not desktop.window.timeline_model.loading, 10)
            timeline = desktop.window.timeline.viewport()
            QCursor.setPos(timeline.mapToGlobal(timeline.rect().center()))  # the pointer rests on the conversation
            watch = PaintWatch(desktop)
            stages = StageWatch(desktop)
            await asyncio.sleep(0.5)
            ours.send("go")
            sent = await asyncio.to_thread(ours.recv)
            await wait_for(lambda: label(WARMUP + count - 1) in watch.painted, 30)
            painted = [watch.painted[label(n)] - sent_at for n, (sent_at, _) in enumerate(sent)][WARMUP:]
            bare = [bare_at - sent_at for sent_at, bare_at in sent][WARMUP:]
            shown = [(watch.on_screen(label(n)), sent_at, bare_at) for n, (sent_at, bare_at) in enumerate(sent)][WARMUP:]
            await desktop.shutdown()
            desktop.window.close()
            ours.send("listen")
            rows = (await asyncio.to_thread(ours.recv))[WARMUP:]
            floor_painted, floor_bare = await floor_pass(hub.url, code, floor_identity, ours, count)
            await asyncio.to_thread(child.join, 30)
        finally:
            if child.is_alive():
                child.kill()
            hub.kill() if reference_hub else hub.terminate()
    report(f"push -> row painted ({count} messages)", painted, bare)
    on_screen = [(at - sent_at, bare_at - sent_at) for at, sent_at, bare_at in shown if at is not None]
    report(
        f"push -> row on screen, its repaint ended ({len(on_screen)} of {count} painted in one)",
        [ours for ours, _ in on_screen], [theirs for _, theirs in on_screen],
    )
    report_stages(stages, watch.painted, sent)
    listen_bare = [b - s for s, b, _ in rows]
    report(f"push -> listen --json line ({count} messages)", [p - s for s, _, p in rows], listen_bare)
    # The bare subscriber shares the machine with the window: while the window paints, the hub and
    # the agents' process wait for a core too. The same p50 against the bare subscriber of the
    # second pass (the window closed, only ``listen`` running) is the stricter figure.
    print(
        f"push -> row painted p50 against the bare subscriber p50 of the listen pass"
        f" ({percentile(listen_bare, 0.5) * 1000:.2f} ms): {percentile(painted, 0.5) / percentile(listen_bare, 0.5):.2f}x"
    )
    report(f"push -> row painted by the floor window ({count} messages, push_floor.py)", floor_painted, floor_bare)
    print(f"the window's push -> row painted p50 over the floor window's: {percentile(painted, 0.5) / percentile(floor_painted, 0.5):.2f}x")
    return stages, watch, sent


async def floor_pass(url: str, code: str, identity: Identity, pipe: Connection, count: int) -> tuple[list[float], list[float]]:
    """The floor window's pass (``push_floor``): per message, (painted, bare subscriber's delivery)
    in seconds after the send."""
    window, timeline = floor_window(1200, 800)  # the size of the app's window above
    window.show()
    subscriber = await RawAgent.connect(url, identity, name="floor")
    await subscriber.ok({"op": "redeem", "code": code}, "joined")
    await subscriber.ok({"op": "subscribe"}, "subscribed")
    for n in range(SHOWN_ROWS):  # a conversation already full, as the app's window's
        timeline.add(f"earlier message {n}")
    shower = asyncio.create_task(show_deliveries(subscriber, timeline.add))
    try:
        await asyncio.sleep(0.5)
        pipe.send("floor")
        sent = await asyncio.to_thread(pipe.recv)
        await wait_for(lambda: label(FLOOR_FIRST + WARMUP + count - 1) in timeline.painted, 30)
    finally:
        shower.cancel()
        await subscriber.close()
        window.close()
    painted = [timeline.painted[label(FLOOR_FIRST + n)] - sent_at for n, (sent_at, _) in enumerate(sent)][WARMUP:]
    return painted, [bare_at - sent_at for sent_at, bare_at in sent][WARMUP:]


def run(count: int, reference_hub: str | None = None) -> tuple[StageWatch, PaintWatch, Sent]:
    """``main`` on the window's event loop, in a QApplication set up as the app's."""
    prepare_qt_environment()  # as the app does
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)  # the benchmark ends when main() returns
    loop = AppEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        return loop.run_until_complete(main(count, reference_hub))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200)
    parser.add_argument("--reference-hub", metavar="PATH", help="measure on the reference parler-hub at PATH")
    arguments = parser.parse_args()
    run(arguments.messages, arguments.reference_hub)
    warm, idle = idle_slowdown()  # off the event loop: it sleeps between rounds
    print(
        f"idling on this machine: decoding one delivery frame takes {warm * 1e6:.0f} µs back to back,"
        f" {idle * 1e6:.0f} µs after {GAP_SECS * 1000:.0f} ms idle ({idle / warm:.1f}x)"
    )
