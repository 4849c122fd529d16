"""Benchmark the window at scale (issue 34 item 5): 5 hubs x 100 rooms x 20 agents posting 10
messages/s in all, each figure against a baseline measured in the same run.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_hubs.py
     [--hubs 5] [--rooms 100] [--agents 20] [--rate 10] [--duration 180 | --hour]
     [--burst-rate 200] [--burst-secs 10] [--night 50000] [--history 20] [--switches 60]
     [--idle-secs 30] [--repeats 3] [--only wake | --only traffic]
     [--profile-wake FILE] [--profile-traffic FILE] [--profile-switches FILE] [--needs-cost] [--stall-causes]

The full size is the default; every size can be scaled down for a small machine (the output's
first line says which size ran); ``--only wake`` runs figure 6 alone, ``--only traffic`` figures
2, 3 and 5 (after a first launch fills the caches). ``--profile-wake FILE`` records the wake with
py-spy, ``--profile-traffic FILE`` the traffic and the burst (every thread, as a speedscope file;
py-spy must be installed; its sampling options in ``PYSPY_MODE``, ``--idle`` unless set:
``PYSPY_MODE=--gil`` samples only the thread holding the GIL). ``--needs-cost`` also wakes copies
of the home with the window's Needs you derivation off, before and after figure 6, and prints what
keeping it current adds to the wake (``wake_needs_cost.py``). ``--stall-causes`` prints what held the
Qt thread in the stalls of the traffic, the burst and the wake, by the callback and the innermost frame of ours
(``stall_causes.py``); ``--profile-switches FILE`` records the Qt thread from each click of the
switching until its room is painted (cProfile). What runs where:

- the hubs: ``--hubs`` processes of our hub (``python -m parler_desktop hub --relaxed-limits``);
- the agents: one child process (multiprocessing) of raw-wire agents (``tests/support/raw_agent``),
  ``--agents`` of them spread over the hubs, every one a member of every room of its hub; it
  also plays the supervisor's earlier joins (the window's identity redeems every room's invite),
  the night's backlog and the bare client;
- the window: launched as the app is (``parler-desktop --home H``, see ``launch_probe``) for the
  cold starts and the idle CPU; in this process (the real ``DesktopApp`` and ``MainWindow``, the
  loop the app runs on) for everything else.

Figures and their baselines:

1. cold start: a launch on a home whose caches a first launch filled, from the process start
   until the window shows every hub's rooms (each hub's room list holds all its rooms and the
   sidebar has painted since, and the timeline painted the room it opened). Median of
   ``--repeats`` launches; baseline: the same for a home holding one hub and one room. Target
   <= 1.5 s. The launched process runs this file with ``--launch-probe``: it imports this file's
   modules (mostly the app's own), then calls the app's command line (``parler_desktop.cli.main``)
   with ``DesktopApp.run`` wrapped by a watcher that only timestamps paints and reloads.
2. switching rooms under traffic: a click on a sidebar row (QTest) of a room on another hub than
   the one shown, until the end of the timeline's first paint after that room's page loaded (as
   bench_push.py times paints: the end of the pass), while the agents post as in 3.; p99 of
   ``--switches`` clicks; baseline: the same clicks between two rooms of one hub, under the same
   load. Target p99 <= 50 ms.
3. stalls under traffic: the longest gap of bench_ui.py's ``StallMeter`` (a 2 ms QTimer on the Qt
   thread, which also runs asyncio) and the gaps over 50 ms, while the agents post ``--rate``
   messages/s for ``--duration`` seconds (``--hot-share`` of them into the room the window shows,
   the rest into random rooms of every hub); baseline: the same meter on the idle window. Target:
   no gap over 50 ms. A bare Qt process (``floor_process``: the same meter, nothing else) runs
   meanwhile; a gap of the window's that overlaps one of its is the machine's (another process
   or VM had the cores), not the window's: the notes say how many. The switching of 2. runs
   within it. Then a burst: ``--burst-rate`` messages/s for ``--burst-secs`` (the same share into
   the shown room), the same meter and floor. After each, the notes say how soon every sidebar row
   and the open room's last row showed the last message posted to them.
4. idle CPU: the launched window's CPU time (every thread of its process) over ``--idle-secs`` of
   wall time, no traffic, once it has been live for a few seconds; baseline: the one-hub,
   one-room window the same way. Target < 1 %.
5. memory: this process's RSS at the end of the traffic against after its first minute (or a
   third of ``--duration`` when shorter). Target (over an hour, ``--hour``): <= 2x and <= 400 MB.
6. waking after a night away: the window closed, the agents post ``--night`` messages spread over
   every room; then the window launches on the same home (a new ``DesktopApp`` in this process,
   another window active, as when the human has not looked at it yet, so nothing gets read) until
   every room's sidebar row shows the hub's unread count and its last message; baseline: a bare
   client (raw-wire, the window's identity, one connection per hub, all hubs at once) asking each
   hub for its rooms and pulling the same pages (since each room's last message before the night,
   500 a page, as the session does), one request at a time before and after the window's pass,
   and once asking for every room's first page at once (the session asks for 16 rooms' at once):
   the fastest of the three counts; and
   the longest stall meanwhile (target: none over 50 ms), its gaps split into those of the launch
   (until every room list is loaded from the cache) and those of the catch-up, with the floor
   process as above.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import bisect
import cProfile
import dataclasses
import gc
import json
import multiprocessing
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QEnterEvent
from PySide6.QtWidgets import QApplication, QWidget

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from bench_hub import percentile  # noqa: E402
from bench_ui import STALL_MS, StallMeter, run_on_app_loop, wait_for  # noqa: E402
from stall_causes import StallCauses  # noqa: E402
from wake_needs_cost import copy_home, cost_rows, needs_derivation_off, needs_share_row, needs_timed, night_message  # noqa: E402
from support.hub_fixtures import HubProcess  # noqa: E402
from support.raw_agent import RawAgent  # noqa: E402

from parler_desktop.app import roles  # noqa: E402
from parler_desktop.identity import Identity, load_or_create_identity  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402
from parler_desktop.store import LocalStore  # noqa: E402
from parler_desktop.ui.desktop import DesktopApp  # noqa: E402

PAGE = 500  # the session's pull page (client/sync.py DEFAULT_PAGE_SIZE): the bare client pulls the same
IN_FLIGHT = 64  # sends one agent has on the wire before it reads their replies (setting up, the night)
SETTLE_SECS = 5.0  # a launched window live this long before its idle CPU is measured
IDLE_STALL_SECS = 10.0  # the idle window's StallMeter baseline
TEMPLATES = (
    "rebuilt the **index**, ran `pytest -q` and pushed the fix.\n\n- 3 files changed\n- all green",
    "CI is red on `main`: `test_sync_marks` times out after 30 s. Looking into it.",
    "Here is the plan:\n\n1. bisect the regression\n2. write a test\n3. fix it\n\n```python\nassert store.max_seq('team') == 42\n```",
    "done, see the [report](https://example.com/r/7)",
)
# The targets (issue 34 item 5).
COLD_START_SECS = 1.5  # launch to everything shown, the caches filled
SWITCH_MS = 50.0  # p99, click to the room painted
IDLE_CPU_PCT = 1.0  # of one core, no traffic
RSS_GROWTH, RSS_MB = 2.0, 400.0  # after an hour against after a minute; and at most
WAKE_RATIO = 1.5  # the wake's time against the bare client's (issue 42; it was 2 before)
# No UI stall over bench_ui.py's STALL_MS (50 ms), under traffic or while waking.


def room_name(n: int) -> str:
    return f"r{n:03d}"


def token(n: int) -> str:
    """The start of message ``n``'s text: unique, and never part of another (fixed width)."""
    return f"msg{n:07d}"


def rss_mb() -> float:
    """This process's resident set (VmRSS) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@dataclasses.dataclass(frozen=True)
class Plan:
    hubs: int
    rooms: int
    agents: int
    rate: float  # messages per second, every agent together
    history: int  # messages per room before the first launch
    hot_share: float  # the share of the traffic that goes to the room the window shows

    def agents_on(self, hub: int) -> int:
        """How many of the agents live on hub ``hub`` (at least one each)."""
        return max(1, self.agents // self.hubs + (1 if hub < self.agents % self.hubs else 0))


# ---- the agents' process ---------------------------------------------------------------------


class Crowd:
    """Every agent of every hub, in one process of its own (not on the window's loop). Commands
    come over a pipe: ``setup``, ``traffic``, ``night``, ``bare``, ``quit``; each answers a dict."""

    def __init__(self, urls: Sequence[str], plan: Plan) -> None:
        self.urls = list(urls)
        self.plan = plan
        self.rooms = [room_name(n) for n in range(plan.rooms)]
        self.agents: dict[str, list[RawAgent]] = {}
        self.last_seq = {url: dict.fromkeys(self.rooms, 0) for url in self.urls}
        self.last_token = {url: dict.fromkeys(self.rooms, "") for url in self.urls}
        self.before_night: dict[str, dict[str, int]] = {}
        self.count = 0  # messages posted so far (the next one's number)
        self.needs_mix = False  # the night's messages include what Needs you parses (wake_needs_cost.night_message)
        self.rng = random.Random(34)
        self.window_identity: Identity | None = None

    async def serve(self, pipe: Connection) -> None:
        while True:
            command, argument = await asyncio.to_thread(pipe.recv)
            if command == "quit":
                break
            pipe.send(await getattr(self, command)(argument))
        for agents in self.agents.values():
            for agent in agents:
                await agent.close()

    def _frame(self, room: str) -> tuple[dict, str]:
        """A send of the next message into ``room``, and its token."""
        mark = token(self.count)
        self.count += 1
        text = f"{mark}: {TEMPLATES[self.count % len(TEMPLATES)]}"
        parts = night_message(self.count, mark) if self.needs_mix else None
        return {"op": "send", "target": {"kind": "room", "room": room}, "parts": parts or [{"kind": "text", "text": text}]}, mark

    def _record(self, url: str, room: str, seq: int, mark: str) -> None:
        if seq > self.last_seq[url][room]:
            self.last_seq[url][room] = seq
            self.last_token[url][room] = mark

    @staticmethod
    async def pipelined(agent: RawAgent, frames: Sequence[dict], expected: str) -> list[dict]:
        """Send ``frames`` with up to ``IN_FLIGHT`` on the wire (the hub answers in order); the replies."""
        replies = []
        for start in range(0, len(frames), IN_FLIGHT):
            chunk = frames[start:start + IN_FLIGHT]
            for frame in chunk:
                await agent.send_text(json.dumps(frame))
            for frame in chunk:
                reply = await agent.recv(timeout=120)
                assert reply.get("type") == expected, (frame, reply)
                replies.append(reply)
        return replies

    async def _post(self, url: str, rooms: Sequence[str]) -> None:
        """One message into each of ``rooms`` (repeats allowed), spread over the hub's agents."""
        agents = self.agents[url]
        work: list[list[tuple[dict, str, str]]] = [[] for _ in agents]
        for n, room in enumerate(rooms):
            frame, mark = self._frame(room)
            work[n % len(agents)].append((frame, room, mark))

        async def one(agent: RawAgent, items: list[tuple[dict, str, str]]) -> None:
            replies = await self.pipelined(agent, [frame for frame, _room, _mark in items], "sent")
            for (_frame, room, mark), reply in zip(items, replies):
                self._record(url, room, reply["seq"], mark)

        await asyncio.gather(*(one(agent, items) for agent, items in zip(agents, work)))

    async def setup(self, keys: dict[str, str]) -> dict:
        """Rooms on every hub, every agent of the hub in each; the window's identity (``keys
        ["window"]``) joined to every room, the baseline's (``keys["baseline"]``) to the first
        room of the first hub; ``history`` messages in every room."""
        started = time.perf_counter()
        self.window_identity = load_or_create_identity(Path(keys["window"]))
        baseline_identity = load_or_create_identity(Path(keys["baseline"]))

        async def one_hub(index: int, url: str) -> None:
            agents = [await RawAgent.connect(url, name=f"agent-{index}-{k}", role="worker") for k in range(self.plan.agents_on(index))]
            self.agents[url] = agents
            invites = [{"op": "invite", "kind": "channel", "room": room, "maxUses": len(agents) + 2} for room in self.rooms]
            codes = [reply["code"] for reply in await self.pipelined(agents[0], invites, "invited")]
            joiners = agents[1:]
            window = await RawAgent.connect(url, self.window_identity, name="boss", role="supervisor")
            joiners.append(window)
            redeems = [{"op": "redeem", "code": code} for code in codes]
            await asyncio.gather(*(self.pipelined(joiner, redeems, "joined") for joiner in joiners))
            await window.close()
            if index == 0:
                baseline = await RawAgent.connect(url, baseline_identity, name="boss", role="supervisor")
                await baseline.ok({"op": "redeem", "code": codes[0]}, "joined")
                await baseline.close()

        await asyncio.gather(*(one_hub(index, url) for index, url in enumerate(self.urls)))
        await asyncio.gather(*(self._post(url, self.rooms * self.plan.history) for url in self.urls))
        return {"secs": time.perf_counter() - started, "tokens": self.last_token}

    async def traffic(self, pace: tuple[float, float]) -> dict:
        """For ``pace`` (seconds, messages per second) every agent posts at its share of the rate
        into random rooms of its hub (agents of the first hub also into the shown room, so it
        gets ``hot_share`` of all messages)."""
        seconds, rate = pace
        plan = self.plan
        total_agents = sum(plan.agents_on(index) for index in range(plan.hubs))
        interval = total_agents / rate
        hot = min(1.0, plan.hot_share * total_agents / plan.agents_on(0))
        started = time.monotonic()
        until = started + seconds
        sent = 0

        async def chatter(hub: int, agent: RawAgent) -> None:
            nonlocal sent
            url = self.urls[hub]
            next_at = started + self.rng.uniform(0, interval)
            while next_at < until:
                await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                room = self.rooms[0] if hub == 0 and self.rng.random() < hot else self.rng.choice(self.rooms)
                frame, mark = self._frame(room)
                self._record(url, room, (await agent.ok(frame, "sent"))["seq"], mark)
                sent += 1
                next_at += interval

        await asyncio.gather(*(chatter(hub, agent) for hub, url in enumerate(self.urls) for agent in self.agents[url]))
        return {"sent": sent, "secs": time.monotonic() - started, "tokens": self.last_token}

    async def night(self, plan: dict) -> dict:
        """``plan["total"]`` messages spread evenly over every room of every hub, as fast as the hubs
        take them (with ``plan["needs_mix"]``, some of them what Needs you parses)."""
        total, self.needs_mix = plan["total"], plan["needs_mix"]
        self.before_night = {url: dict(seqs) for url, seqs in self.last_seq.items()}
        started = time.perf_counter()
        per_hub = [total // len(self.urls) + (1 if index < total % len(self.urls) else 0) for index in range(len(self.urls))]
        await asyncio.gather(*(
            self._post(url, [self.rooms[n % len(self.rooms)] for n in range(count)]) for url, count in zip(self.urls, per_hub)
        ))
        self.needs_mix = False
        posted = {url: {room: seq for room, seq in seqs.items() if seq > self.before_night[url].get(room, 0)} for url, seqs in self.last_seq.items()}
        return {"secs": time.perf_counter() - started, "tokens": self.last_token, "seqs": posted}

    async def bare(self, pipelined: object) -> dict:
        """The bare client: the window's identity on every hub at once; each hub's rooms (their
        unread counts), then every room pulled forward from its last message before the night,
        500 a page, until a short page: one request at a time, as the reference client asks, or
        (``pipelined``) every room's first page asked for at once, ``IN_FLIGHT`` on the wire, as
        the session asks for several rooms' (the rest one at a time). The time, and the hub's
        unread counts (what the window must show)."""
        assert self.window_identity is not None
        started = time.perf_counter()
        unread: dict[str, dict[str, int]] = {}
        pages = messages = 0

        async def one_hub(url: str) -> None:
            nonlocal pages, messages
            agent = await RawAgent.connect(url, self.window_identity, name="boss", role="supervisor")
            rooms = (await agent.ok({"op": "rooms"}, "rooms"))["rooms"]
            unread[url] = {room["name"]: room["unread"] for room in rooms}
            rooms.sort(key=lambda r: (-r["unread"], r["name"]))  # busiest first, as the session
            pull = lambda room, since: {"op": "pull", "room": room["name"], "since": since, "limit": PAGE}  # noqa: E731
            firsts = [pull(room, self.before_night.get(url, {}).get(room["name"], 0)) for room in rooms]
            first_pages = await self.pipelined(agent, firsts, "pulled") if pipelined else [None] * len(rooms)
            for room, frame, reply in zip(rooms, firsts, first_pages):
                while True:
                    reply = reply or await agent.ok(frame, "pulled")
                    pages += 1
                    got = reply["messages"]
                    messages += len(got)
                    if len(got) < PAGE:
                        break
                    frame, reply = pull(room, got[-1]["seq"]), None
            await agent.close()

        await asyncio.gather(*(one_hub(url) for url in self.urls))
        return {"secs": time.perf_counter() - started, "unread": unread, "pages": pages, "messages": messages}


def agents_process(pipe: Connection, urls: Sequence[str], plan: Plan) -> None:
    asyncio.run(Crowd(urls, plan).serve(pipe))


class Agents:
    """This side of the pipe to the agents' process."""

    def __init__(self, urls: Sequence[str], plan: Plan) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self.process = context.Process(target=agents_process, args=(theirs, list(urls), plan), daemon=True)
        self.process.start()

    async def ask(self, command: str, argument: object = None) -> dict:
        self._pipe.send((command, argument))
        return await asyncio.to_thread(self._pipe.recv)

    def quit(self) -> None:
        try:
            self._pipe.send(("quit", None))
        except OSError:  # it ended already (its traceback is on stderr)
            pass
        self.process.join(30)
        if self.process.is_alive():
            self.process.kill()


# ---- timing the window -------------------------------------------------------------------------


class GapMeter(StallMeter):
    """bench_ui.py's ``StallMeter``, also keeping each gap over ``STALL_MS``: (when it ended,
    perf_counter; its length in ms). ``causes`` (``--stall-causes``) is told of every tick."""

    causes: StallCauses | None = None

    def start(self) -> None:
        self.gaps: list[tuple[float, float]] = []
        super().start()

    def _tick(self) -> None:
        gap_ms = (self._clock.nsecsElapsed() - self._last) / 1e6
        super()._tick()
        if self.causes is not None:
            self.causes.beat()
        if gap_ms > STALL_MS:
            self.gaps.append((time.perf_counter(), gap_ms))


def watch_causes(args: argparse.Namespace, meter: GapMeter) -> None:
    """With ``--stall-causes``, sample what holds the Qt thread in ``meter``'s gaps from now on."""
    if args.stall_causes:
        meter.causes = StallCauses(STALL_MS)
        meter.causes.start()


def causes_notes(meter: GapMeter, what: str) -> list[str]:
    """The report of ``watch_causes``' sampling since it began (none without ``--stall-causes``)."""
    causes, meter.causes = meter.causes, None
    if causes is None:
        return []
    causes.stop()
    return [f"what held the Qt thread ({what}):", *causes.report()]


def floor_process(pipe: Connection) -> None:
    """A bare Qt process with the same meter and nothing else: its gaps are the machine's (another
    process or VM took the cores), not the window's. ``start``, ``stop`` (answers longest, count,
    gaps), ``quit``."""
    from PySide6.QtCore import QCoreApplication, QTimer

    app = QCoreApplication(sys.argv[:1])
    meter = GapMeter()

    def poll() -> None:
        while pipe.poll():
            command = pipe.recv()
            if command == "start":
                meter.start()
            elif command == "stop":
                meter.stop()
                pipe.send((meter.longest_ms, meter.stalls, meter.gaps))
            else:
                app.quit()

    timer = QTimer(interval=20)
    timer.timeout.connect(poll)
    timer.start()
    pipe.send("ready")
    app.exec()


class Floor:
    """This side of the pipe to ``floor_process``."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self.process = context.Process(target=floor_process, args=(theirs,), daemon=True)
        self.process.start()
        assert self._pipe.recv() == "ready"

    def start(self) -> None:
        self._pipe.send("start")

    async def stop(self) -> tuple[float, int, list[tuple[float, float]]]:
        self._pipe.send("stop")
        return await asyncio.to_thread(self._pipe.recv)

    def quit(self) -> None:
        try:
            self._pipe.send("quit")
        except OSError:  # it ended already
            pass
        self.process.join(10)
        if self.process.is_alive():
            self.process.kill()


def shared_with_floor(gaps: Sequence[tuple[float, float]], floor_gaps: Sequence[tuple[float, float]]) -> int:
    """How many of ``gaps`` overlap in time a gap of the floor process (the machine stalled both)."""
    return sum(
        1 for end, length in gaps
        if any(end - length / 1000 <= other_end and other_end - other_length / 1000 <= end for other_end, other_length in floor_gaps)
    )


def floor_note(what: str, window_gaps: Sequence[tuple[float, float]], floor: tuple[float, int, list]) -> str:
    longest, count, gaps = floor
    return (
        f"{what}: a bare Qt process (the same 2 ms meter, nothing else) meanwhile: longest gap {longest:.1f} ms, {count} over "
        f"{STALL_MS:g} ms; {shared_with_floor(window_gaps, gaps)} of the window's {len(window_gaps)} gaps over {STALL_MS:g} ms overlap one of its"
    )


class PaintEnds:
    """When each paint pass of ``view`` ended (its ``paintEvent`` overridden on the instance, as
    bench_push.py's ``PaintWatch`` does: Qt calls it for each pass)."""

    def __init__(self, view: QWidget) -> None:
        self.times: list[float] = []
        paint = view.paintEvent

        def timed_paint(event: object) -> None:
            paint(event)
            self.times.append(time.perf_counter())

        view.paintEvent = timed_paint

    def first_after(self, moment: float) -> float | None:
        index = bisect.bisect_right(self.times, moment)
        return self.times[index] if index < len(self.times) else None


def sidebar(entry: Any) -> dict[str, tuple[int, str]]:
    """Every room row of the hub ``entry`` as its room list has it: room -> (unread, the
    preview's text). Read from the summaries the rows are drawn from (``RoomListModel._rooms``;
    ``data`` returns ``int(unread)`` and "sender: preview" of them): through ``data`` the check
    itself held the Qt thread for ~13 ms per reload of 500 rows, a third of the wake's time."""
    return {room.name: (int(room.unread), room.last_preview or "") for room in entry.rooms._rooms}


def shows_last(preview: str, mark: str) -> bool:
    """The row's preview is of the message whose text starts with ``mark``."""
    return preview.startswith(f"{mark}:")


async def settled_everywhere(desktop: DesktopApp, rooms: int) -> bool:
    """Every hub's store holds a settled count for every room (its last pull was complete)."""
    for entry in desktop.hubs.entries:
        store = entry.bridge.store
        if store is None or len(await store.call(LocalStore.settled_unread)) < rooms:
            return False
    return True


# ---- the launched window (this file run with --launch-probe) ---------------------------------------


def launch_probe(args: argparse.Namespace) -> int:
    """The app as ``parler-desktop --home H`` runs it, with a watcher around ``DesktopApp.run``.

    ``--mode fill`` waits until every hub's cache holds every room, settled (another window is
    active meanwhile, so nothing is read), then quits; ``--mode cold`` records when everything was
    shown, then (``--idle-secs``) the idle CPU, then quits. The report is JSON at ``--launch-probe``."""
    from parler_desktop.cli import main as cli_main

    expected = json.loads(Path(args.expect).read_text())  # hub URL -> number of rooms
    report: dict[str, Any] = {}
    run = DesktopApp.run

    async def watched_run(desktop: DesktopApp) -> None:
        watcher = asyncio.ensure_future(watch(desktop, args, expected, report))
        try:
            await run(desktop)
        finally:
            watcher.cancel()

    DesktopApp.run = watched_run
    code = cli_main(["--home", args.home])
    Path(args.launch_probe).write_text(json.dumps(report))
    return code


async def watch(desktop: DesktopApp, args: argparse.Namespace, expected: dict[str, int], report: dict) -> None:
    try:
        await _watch(desktop, args, expected, report)
    except Exception as error:  # reported, and the window quits: the bench must not hang
        report["error"] = repr(error)
    desktop.quit()


async def _watch(desktop: DesktopApp, args: argparse.Namespace, expected: dict[str, int], report: dict) -> None:
    report["run"] = time.perf_counter()  # DesktopApp built, the loop running
    window = desktop.window
    sidebar_paints, timeline_paints = PaintEnds(window.room_panel.view), PaintEnds(window.timeline)
    listed: list[float] = []  # when every hub's room list held all its rooms
    loaded: list[float] = []  # when the timeline's room page was in

    def all_listed() -> None:
        entries = {entry.url: entry for entry in desktop.hubs.entries}
        if not listed and entries.keys() == expected.keys() and all(
            entries[url].rooms.rowCount() == count for url, count in expected.items()
        ):
            listed.append(time.perf_counter())

    def follow(entry: Any) -> None:
        entry.rooms.reloaded.connect(all_listed)

    for entry in desktop.hubs.entries:
        follow(entry)
    desktop.hubs.added.connect(follow)
    window.timeline_model.roomLoaded.connect(lambda _room: loaded.append(time.perf_counter()))
    decoy = None
    if args.mode == "fill":  # the human looks elsewhere: nothing is read, every count settles
        await wait_for(window.isVisible, 30)
        decoy = QWidget()
        decoy.show()
        decoy.activateWindow()
    deadline = time.monotonic() + args.timeout
    while True:
        if listed and loaded:
            sidebar_at, timeline_at = sidebar_paints.first_after(listed[0]), timeline_paints.first_after(loaded[-1])
            if sidebar_at is not None and timeline_at is not None:
                report["shown"] = max(sidebar_at, timeline_at)
                break
        if time.monotonic() > deadline:
            raise TimeoutError(f"not everything shown: listed={bool(listed)} loaded={bool(loaded)}")
        await asyncio.sleep(0.01)
    firsts = [times[0] for times in (sidebar_paints.times, timeline_paints.times) if times]
    report["first_paint"] = min(firsts)
    report["rss_shown_mb"] = rss_mb()
    live = lambda: all(entry.bridge.is_live for entry in desktop.hubs.entries)  # noqa: E731
    if args.mode == "fill":
        while not (live() and await settled_everywhere(desktop, min(expected.values()))):
            if time.monotonic() > deadline:
                raise TimeoutError("the caches did not fill in time")
            await asyncio.sleep(0.25)
        report["filled"] = time.perf_counter()
        await asyncio.sleep(1.0)  # the last acks and writes
        return
    if args.idle_secs > 0:
        await wait_for(live, args.timeout)
        await asyncio.sleep(SETTLE_SECS)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(args.idle_secs)
        report["idle_cpu_pct"] = 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)


def launch(root: Path, home: Home, expected: dict[str, int], mode: str, idle_secs: float = 0, timeout: float = 600) -> dict:
    """Launch the window on ``home`` (``launch_probe`` in a new process) and wait for it to quit;
    its report, with ``start`` (just before the process was made; perf_counter is the machine's
    monotonic clock, shared by the processes)."""
    expect = root / "expect.json"
    expect.write_text(json.dumps(expected))
    report_path, stderr_path = root / "probe.json", root / "probe-stderr.log"
    report_path.unlink(missing_ok=True)
    command = [
        sys.executable, str(Path(__file__).resolve()), "--launch-probe", str(report_path), "--home", str(home.config_dir.parent),
        "--expect", str(expect), "--mode", mode, "--idle-secs", str(idle_secs), "--timeout", str(timeout),
    ]
    with open(stderr_path, "w") as stderr:
        start = time.perf_counter()
        status = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=stderr, timeout=timeout + 60).returncode
    report = json.loads(report_path.read_text()) if report_path.exists() else {}
    if status != 0 or "error" in report or "shown" not in report:
        raise RuntimeError(f"the launched window failed ({status}): {report.get('error')}\n{stderr_path.read_text()[-3000:]}")
    report["start"] = start
    return report


# ---- the window in this process ----------------------------------------------------------------


async def open_window(home: Home, hubs: int, rooms: int) -> tuple[DesktopApp, asyncio.Future]:
    """A DesktopApp run as the app runs it; returns once every hub is live with all its rooms listed."""
    desktop = DesktopApp(home)
    gc.freeze()  # as the gui command does once the window is built
    desktop.collector.start()
    desktop.window.resize(1200, 800)
    running = asyncio.ensure_future(desktop.run())
    await wait_for(desktop.window.isVisible, 30)
    desktop.window.activateWindow()  # the human looks at it: the shown room is read as it comes
    await wait_for(
        lambda: len(desktop.hubs.entries) == hubs and all(e.bridge.is_live and e.rooms.rowCount() == rooms for e in desktop.hubs.entries), 120
    )
    return desktop, running


async def close_window(desktop: DesktopApp, running: asyncio.Future) -> None:
    desktop.quit()
    await asyncio.wait_for(running, 30)


async def show(desktop: DesktopApp, paints: PaintEnds, hub: str, room: str) -> None:
    """Click ``room``'s row of ``hub`` unless the window shows it already."""
    window = desktop.window
    if window.shown_hub is None or window.shown_hub.url != hub or window.timeline_model.room != room:
        await click_room(desktop, paints, hub, room)


async def click_room(desktop: DesktopApp, paints: PaintEnds, hub: str, room: str) -> float:
    """Click ``room``'s row of ``hub`` in the sidebar; seconds until the end of the timeline's
    first paint after the room's page was in."""
    from PySide6.QtTest import QTest

    window = desktop.window
    panel, model = window.room_panel, window.timeline_model
    viewport = panel.view.viewport()
    # The pointer comes over the list first, as a person's does: the rows hold their order under it
    # (``HubRoomsModel.hold_order``), so traffic does not move the row between the aim and the click.
    QApplication.sendEvent(viewport, QEnterEvent(QPointF(5, 5), QPointF(5, 5), QPointF(5, 5)))
    def row() -> Any:
        return next(
            panel.proxy.index(row, 0) for row in range(panel.proxy.rowCount())
            if panel.proxy.index(row, 0).data(roles.HUB_URL) == hub and not panel.proxy.index(row, 0).data(roles.HUB_HEADER)
            and panel.proxy.index(row, 0).data(roles.ROOM_NAME) == room
        )

    index = row()
    panel.view.scrollTo(index)
    await asyncio.sleep(0.05)  # the sidebar's scroll painted before the clock starts
    if index.data(roles.ROOM_NAME) != room or index.data(roles.HUB_URL) != hub:
        print(f"the row of {room} moved under the pointer (it shows {index.data(roles.ROOM_NAME)} now)", file=sys.stderr, flush=True)
        index = row()  # aimed again (the click measures the switch, not the aim)
    loaded: list[float] = []

    def on_loaded(name: str) -> None:
        if name == room:
            loaded.append(time.perf_counter())

    model.roomLoaded.connect(on_loaded)
    if SWITCH_PROFILE is not None:
        SWITCH_PROFILE.enable()
    start = time.perf_counter()
    QTest.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=panel.view.visualRect(index).center())
    QApplication.sendEvent(viewport, QEvent(QEvent.Type.Leave))
    try:
        await wait_for(
            lambda: window.shown_hub is not None and window.shown_hub.url == hub and model.room == room
            and bool(loaded) and paints.first_after(loaded[-1]) is not None, 15,
        )
    except TimeoutError:
        current = panel.view.currentIndex()
        raise TimeoutError(
            f"the click on {room} of {hub} was not shown: the window shows {model.room} of "
            f"{window.shown_hub.url if window.shown_hub else None} (loaded: {bool(loaded)}, loading: {model.loading}); "
            f"the sidebar's current row is {current.data(roles.ROOM_NAME)} of {current.data(roles.HUB_URL)}, its shown room "
            f"{panel.shown_room}; the row clicked then showed {index.data(roles.ROOM_NAME)} of {index.data(roles.HUB_URL)}"
        ) from None
    finally:
        if SWITCH_PROFILE is not None:
            SWITCH_PROFILE.disable()
        model.roomLoaded.disconnect(on_loaded)
    LOADED_AFTER.append(loaded[-1] - start)
    return paints.first_after(loaded[-1]) - start


SWITCH_PROFILE: cProfile.Profile | None = None  # ``--profile-switches``: on from each click until its room is painted
LOADED_AFTER: list[float] = []  # each click's seconds until its room's page was in (the rest: laying it out and painting)


async def bench_switching(desktop: DesktopApp, urls: Sequence[str], rooms: int, count: int) -> tuple[list[float], list[float]]:
    """(across hubs, two rooms of one hub): seconds per click, in two interleaved rounds."""
    paints = PaintEnds(desktop.window.timeline)
    rng = random.Random(5)
    across: list[float] = []
    within: list[float] = []
    shown = urls[0]
    for _round in range(2):
        await show(desktop, paints, urls[0], room_name(0))
        for n in range(count // 2):  # the baseline: back and forth between two rooms of the first hub
            within.append(await click_room(desktop, paints, urls[0], room_name((n + 1) % 2)))
            await asyncio.sleep(0.1)
        shown = urls[0]
        for _ in range(count // 2):  # every click to a room of another hub than the one shown
            hub = rng.choice([url for url in urls if url != shown] or list(urls))
            room = room_name(rng.randrange(rooms))
            while hub == shown and room == desktop.window.timeline_model.room:  # (one hub only)
                room = room_name(rng.randrange(rooms))
            across.append(await click_room(desktop, paints, hub, room))
            shown = hub
            await asyncio.sleep(0.1)
    await show(desktop, paints, urls[0], room_name(0))  # the room the traffic's share goes to
    model = desktop.window.timeline_model
    if model.has_newer:  # it opened at its first unread: the human goes to the bottom and follows it
        model.load_latest()
        await wait_for(lambda: not model.loading, 15)
    return across, within


async def wait_caught_up(desktop: DesktopApp, tokens: dict[str, dict[str, str]], timeout: float) -> float:
    """Seconds until every room's sidebar row shows the last message posted to it, and the
    timeline's last row is the open room's last message."""
    started = time.perf_counter()
    window = desktop.window

    def open_room_current() -> bool:
        model, hub = window.timeline_model, window.shown_hub
        last = model._stored[-1] if model._stored else None
        return hub is None or model.room is None or (last is not None and shows_last(last.text, tokens[hub.url][model.room]))

    def caught_up() -> bool:
        return open_room_current() and all(
            shows_last(preview, tokens[entry.url][room]) for entry in desktop.hubs.entries for room, (_n, preview) in sidebar(entry).items()
        )

    try:
        await wait_for(caught_up, timeout)
    except TimeoutError:
        model = window.timeline_model
        behind = sum(
            not shows_last(preview, tokens[entry.url][room]) for entry in desktop.hubs.entries for room, (_n, preview) in sidebar(entry).items()
        )
        last = model._stored[-1].text[:12] if model._stored else None
        raise TimeoutError(
            f"not caught up: {behind} sidebar rows behind; the open room {model.room!r} ends with {last!r} "
            f"(has_newer {model.has_newer}, following {model.following})"
        ) from None
    return time.perf_counter() - started


async def bench_wake(home: Home, urls: Sequence[str], rooms: int, expected: dict, args: argparse.Namespace | None = None) -> dict:
    """Launch on the same home after the night (another window active: nothing gets read); the
    time until every sidebar row shows the hub's unread count and the room's last message, the
    longest stall meanwhile, and the gaps over ``STALL_MS`` before every room list was loaded from
    the cache (the launch) and after (the catch-up); then the time and CPU time until the store held
    every message of the night (``caught_secs``, ``caught_cpu``: the rows can be right before,
    from the hub's room list, while pages are still being pulled)."""
    meter = GapMeter()
    decoy = QWidget()  # another application the human is looking at
    started, cpu = time.perf_counter(), time.process_time()
    desktop = DesktopApp(home)
    desktop.collector.start()
    desktop.window.resize(1200, 800)
    meter.start()
    if args is not None:
        watch_causes(args, meter)
    running = asyncio.ensure_future(desktop.run())
    await wait_for(desktop.window.isVisible, 30)
    decoy.show()
    decoy.activateWindow()
    await wait_for(lambda: not desktop.window.read_tracker.window_active, 10)
    done: list[float] = []
    caught: list[tuple[float, float]] = []  # (wall, CPU time) when the store held every room's last message of the night
    missing = {(url, room) for url, seqs in expected["seqs"].items() for room in seqs}
    listed: list[float] = []  # when every hub's room list held all its rooms (from the cache)
    wrong: dict[str, int] = {}  # hub -> rooms not right yet (checked on each reload of its room list)

    def check(entry: Any) -> None:
        if not listed and len(desktop.hubs.entries) == len(urls) and all(e.rooms.rowCount() == rooms for e in desktop.hubs.entries):
            listed.append(time.perf_counter())
        unread, last = expected["unread"][entry.url], expected["last"][entry.url]
        rows = sidebar(entry)
        wrong[entry.url] = len(last.keys() - rows.keys()) + sum(
            1 for room, (count, preview) in rows.items() if count != unread.get(room) or not shows_last(preview, last.get(room, "?"))
        )
        if not done and len(wrong) == len(urls) and not any(wrong.values()):
            done.append(time.perf_counter())

    def stored(url: str, room: str, messages: Sequence[Any]) -> None:
        if missing and messages and max(m.seq for m in messages) >= expected["seqs"][url].get(room, 0):
            missing.discard((url, room))
            if not missing:
                caught.append((time.perf_counter(), time.process_time()))

    def follow(entry: Any) -> None:
        entry.rooms.reloaded.connect(lambda: check(entry))
        entry.bridge.messagesStored.connect(lambda room, messages, _live: stored(entry.url, room, messages))

    for entry in desktop.hubs.entries:
        follow(entry)
    desktop.hubs.added.connect(follow)
    try:
        await wait_for(lambda: bool(done), 600)
    except TimeoutError:
        raise TimeoutError(f"after the night, rooms still wrong in the sidebar, by hub: {wrong}") from None
    longest = meter.stop()
    causes = causes_notes(meter, "wake")
    cpu_start, cpu = cpu, time.process_time() - cpu
    requests = sum(getattr(getattr(entry.bridge.session, "_pacer", None), "total", 0) for entry in desktop.hubs.entries)
    try:
        await wait_for(lambda: bool(caught), 600)
    except TimeoutError:
        raise TimeoutError(f"after the night, rooms whose last message the store lacks: {sorted(missing)[:10]}") from None
    await close_window(desktop, running)
    decoy.close()
    launch_gaps = [gap for gap in meter.gaps if gap[0] - gap[1] / 1000 <= listed[0]]
    return {
        "secs": done[0] - started, "stall": longest, "requests": requests, "cpu": cpu, "gaps": meter.gaps,
        "listed": listed[0] - started, "launch_gaps": launch_gaps, "catch_up_gaps": [gap for gap in meter.gaps if gap not in launch_gaps],
        "caught_secs": caught[0][0] - started, "caught_cpu": caught[0][1] - cpu_start, "causes": causes,
    }


# ---- the report -------------------------------------------------------------------------------


class Table:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, str, str]] = []

    def add(self, name: str, value: str, baseline: str, ratio: float | None, target: str, ok: bool | str | None) -> None:
        """``ok``: True, False, None (no target) or the verdict itself."""
        verdict = ok if isinstance(ok, str) else "—" if ok is None else "PASS" if ok else "OVER TARGET"
        self.rows.append((name, value, baseline, "—" if ratio is None else f"{ratio:.2f}x", target, verdict))

    def print(self) -> None:
        header = ("figure", "measured", "baseline (same run)", "ratio", "target", "verdict")
        widths = [max(len(row[i]) for row in [header, *self.rows]) for i in range(len(header))]
        line = lambda row: "  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip()  # noqa: E731
        print(line(header))
        print("  ".join("-" * width for width in widths))
        for row in self.rows:
            print(line(row))


def stall_cells(longest: float, gaps: Sequence[tuple[float, float]], floor: tuple[float, int, list]) -> tuple[str, str]:
    """The measured cell and the verdict of a stall figure: a gap the bare Qt process had too is
    the machine's, said so in both."""
    shared = shared_with_floor(gaps, floor[2])
    measured = f"{longest:.1f} ms, {len(gaps)} over {STALL_MS:g} ms" + (f" ({shared} also in a bare Qt process)" if shared else "")
    verdict = "PASS" if not gaps else "PASS (the machine's)" if shared == len(gaps) else "OVER TARGET"
    return measured, verdict


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def span(seconds: float) -> str:
    """A duration as people say it: 45 s, 3 min, 1.5 min."""
    return f"{seconds:.0f} s" if seconds < 60 else f"{seconds / 60:.3g} min"


def py_spy(path: str) -> subprocess.Popen:
    """py-spy recording this process (every thread, idle ones too) into ``path`` until SIGINT."""
    beside = Path(sys.executable).with_name("py-spy")  # installed in the same environment, else on PATH
    command = [str(beside) if beside.exists() else "py-spy", "record", "--pid", str(os.getpid()), *os.environ.get("PYSPY_MODE", "--idle").split(), "--threads", "--rate", "250", "--format", "speedscope", "-o", path]
    recorder = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    time.sleep(1.0)  # attached before the clock starts
    return recorder


async def night_and_wake(
    args: argparse.Namespace, plan: Plan, home: Home, urls: Sequence[str], agents: Agents, floor: Floor, table: Table,
    notes: list[str], idle_gap: float | None,
) -> None:
    """6.: the night's messages posted with the window closed, the bare client's pass, the window's
    wake on ``home`` and the bare client's pass again; figures into ``table`` and ``notes``. With
    ``--needs-cost``, copies of ``home`` made before the night wake too, Needs you off, one before
    figure 6's wake and one after (``wake_needs_cost.py``)."""
    without_needs = [copy_home(home, f"home-needs-off-{n}") for n in range(2)] if args.needs_cost else []
    if without_needs:  # a window opened once in this process first: the first wake would pay for its imports alone
        warm_up = await open_window(copy_home(home, "home-warm-up"), plan.hubs, plan.rooms)
        await close_window(*warm_up)
    night = await agents.ask("night", {"total": args.night, "needs_mix": args.needs_cost})
    print(f"the night: {args.night:,} messages posted with the window closed in {night['secs']:.1f} s", flush=True)
    bare_before = await agents.ask("bare", False)
    expected = {"unread": bare_before["unread"], "last": night["tokens"], "seqs": night["seqs"]}
    off: list[dict] = []

    async def wake_without_needs(copy: Home) -> None:
        with needs_derivation_off():
            off.append(await bench_wake(copy, urls, plan.rooms, expected))
        print(
            f"wake with Needs you off: {off[-1]['caught_secs']:.2f} s to every message stored, {off[-1]['caught_cpu']:.2f} s of CPU,"
            f" longest stall {off[-1]['stall']:.1f} ms", flush=True,
        )

    if without_needs:
        await wake_without_needs(without_needs[0])
    floor.start()
    profiler = py_spy(args.profile_wake) if args.profile_wake else None
    needs_spent = [0.0]
    try:
        with needs_timed(needs_spent) if without_needs else contextlib.nullcontext():
            woke = await bench_wake(home, urls, plan.rooms, expected, args)
    finally:
        if profiler is not None:
            profiler.send_signal(signal.SIGINT)  # py-spy writes its file and ends
            await asyncio.to_thread(profiler.wait, 60)
    wake_floor = await floor.stop()
    if without_needs:
        print(
            f"wake with Needs you on: {woke['caught_secs']:.2f} s to every message stored, {woke['caught_cpu']:.2f} s of CPU,"
            f" longest stall {woke['stall']:.1f} ms", flush=True,
        )
        await wake_without_needs(without_needs[1])
        for row in cost_rows(woke, off):
            table.add(*row)
        table.add(*needs_share_row(needs_spent[0], woke["caught_cpu"]))
    bare_after = await agents.ask("bare", False)
    bare_pipelined = await agents.ask("bare", True)
    bare = min(bare_before["secs"], bare_after["secs"], bare_pipelined["secs"])
    table.add(
        f"wake after {args.night:,} messages: every count right", f"{woke['secs']:.2f} s",
        f"{bare:.2f} s (bare client, same pages)", woke["secs"] / bare, f"<= {WAKE_RATIO:g}x", woke["secs"] <= WAKE_RATIO * bare,
    )
    measured, verdict = stall_cells(woke["stall"], woke["gaps"], wake_floor)
    table.add(
        "longest stall while waking", measured, "—" if idle_gap is None else f"{idle_gap:.1f} ms (idle window)",
        None if idle_gap is None else woke["stall"] / idle_gap,
        f"none over {STALL_MS:g} ms", verdict,
    )
    notes.append(
        f"wake: the bare client took {bare_before['secs']:.2f} s before the window's pass and {bare_after['secs']:.2f} s after, "
        f"{bare_pipelined['secs']:.2f} s asking for every room's first page at once, "
        f"{bare_before['pages']} pages, {bare_before['messages']:,} messages, {bare_before['pages'] + plan.hubs} requests (rooms, pulls); "
        f"the window's sessions made {woke['requests']} requests of every kind and its process used {woke['cpu']:.1f} s of CPU (every thread)"
    )
    gaps_text = lambda gaps: f"{len(gaps)} gaps over {STALL_MS:g} ms" + (f" (longest {max(g for _, g in gaps):.1f} ms)" if gaps else "")  # noqa: E731
    notes.append(
        f"wake: every room list loaded from the cache {woke['listed']:.2f} s after the launch; before that (the launch) "
        f"{gaps_text(woke['launch_gaps'])}, after it (the catch-up) {gaps_text(woke['catch_up_gaps'])}"
    )
    notes.append(floor_note("wake", woke["gaps"], wake_floor))
    notes.extend(woke["causes"])


async def launched_figures(
    args: argparse.Namespace, plan: Plan, root: Path, homes: tuple[Home, Home], urls: Sequence[str], table: Table, notes: list[str],
) -> None:
    """1. and 4.: the first launches fill the caches of ``homes`` (every hub's; the baseline's),
    then launches on them."""
    home, baseline_home = homes
    everything, one_room = dict.fromkeys(urls, plan.rooms), {urls[0]: 1}
    # 1. cold start, and 4. idle CPU: first launches fill the caches; then launches on them.
    for each, expected in ((home, everything), (baseline_home, one_room)):
        filled = await asyncio.to_thread(launch, root, each, expected, "fill")
        print(f"first launch on the {len(expected)}-hub home: caches filled {filled['filled'] - filled['start']:.1f} s after the start", flush=True)
    cold: dict[str, list[dict]] = {"full": [], "baseline": []}
    for repeat in range(args.repeats):
        idle = args.idle_secs if repeat == args.repeats - 1 else 0
        for name, each, expected in (("full", home, everything), ("baseline", baseline_home, one_room)):
            cold[name].append(await asyncio.to_thread(launch, root, each, expected, "cold", idle))
    shown = {name: statistics.median(r["shown"] - r["start"] for r in runs) for name, runs in cold.items()}
    first = {name: statistics.median(r["first_paint"] - r["start"] for r in runs) for name, runs in cold.items()}
    table.add(
        f"cold start, cached, to all {plan.hubs * plan.rooms} rooms shown (median of {args.repeats})", f"{shown['full']:.2f} s",
        f"{shown['baseline']:.2f} s (1 hub, 1 room)", shown["full"] / shown["baseline"], f"<= {COLD_START_SECS} s",
        shown["full"] <= COLD_START_SECS,
    )
    each_launch = {name: ", ".join(f"{r['shown'] - r['start']:.2f}" for r in runs) for name, runs in cold.items()}
    notes.append(
        f"cold start: first paint of the window {first['full']:.2f} s (baseline {first['baseline']:.2f} s); every launch "
        f"{each_launch['full']} s (baseline {each_launch['baseline']} s); RSS when shown "
        f"{cold['full'][-1]['rss_shown_mb']:.0f} MB (baseline {cold['baseline'][-1]['rss_shown_mb']:.0f} MB)"
    )
    if args.idle_secs > 0:
        cpu, base_cpu = cold["full"][-1]["idle_cpu_pct"], cold["baseline"][-1]["idle_cpu_pct"]
        table.add(
            f"idle CPU, no traffic ({args.idle_secs:g} s, launched window)", f"{cpu:.2f} %", f"{base_cpu:.2f} % (1 hub, 1 room)",
            cpu / base_cpu if base_cpu else None, f"< {IDLE_CPU_PCT:g} %", cpu < IDLE_CPU_PCT,
        )



async def window_figures(
    args: argparse.Namespace, plan: Plan, home: Home, urls: Sequence[str], agents: Agents, floor: Floor, table: Table, notes: list[str],
) -> float:
    """2., 3. and 5. on the window in this process (its caches filled by a first launch), closed
    at the end, every room's last pull complete. The idle window's longest gap (ms), the stall
    baseline."""
    rss_first = min(60.0, args.duration / 3)
    desktop, running = await open_window(home, plan.hubs, plan.rooms)
    await asyncio.sleep(SETTLE_SECS)  # its catch-up (a rooms call per hub) is over
    meter = GapMeter()
    meter.start()
    floor.start()
    await asyncio.sleep(IDLE_STALL_SECS)
    idle_gap, idle_stalls, idle_gaps = meter.stop(), meter.stalls, meter.gaps
    idle_floor = await floor.stop()
    notes.append(floor_note(f"idle window ({IDLE_STALL_SECS:g} s)", idle_gaps, idle_floor))

    # 3. stalls under traffic, 2. switching rooms meanwhile, and 5. memory.
    await asyncio.sleep(1.0)
    profiler = py_spy(args.profile_traffic) if args.profile_traffic else None
    meter.start()
    watch_causes(args, meter)
    floor.start()
    started = time.perf_counter()
    traffic = asyncio.ensure_future(agents.ask("traffic", (args.duration, plan.rate)))
    await asyncio.sleep(1.0)  # the traffic under way
    global SWITCH_PROFILE
    SWITCH_PROFILE = cProfile.Profile() if args.profile_switches else None
    across, within = await bench_switching(desktop, urls, plan.rooms, args.switches)
    if SWITCH_PROFILE is not None:
        SWITCH_PROFILE.dump_stats(args.profile_switches)
    rss_marks: list[float] = []
    await asyncio.sleep(max(0.0, started + rss_first - time.perf_counter()))
    rss_marks.append(rss_mb())
    ran = await traffic
    rss_marks.append(rss_mb())
    gap = meter.stop()
    traffic_causes = causes_notes(meter, "traffic")
    traffic_floor = await floor.stop()
    lag = await wait_caught_up(desktop, ran["tokens"], 120)
    p99, base_p99 = percentile(across, 0.99), percentile(within, 0.99)
    table.add(
        f"switch rooms across hubs under {plan.rate:g} msg/s, click -> painted, p99 of {len(across)}", ms(p99),
        f"{ms(base_p99)} (2 rooms of 1 hub, same load)", p99 / base_p99, f"<= {SWITCH_MS:g} ms", p99 <= SWITCH_MS / 1000,
    )
    notes.append(
        f"switching (under traffic): across hubs p50 {ms(percentile(across, 0.5))}, max {ms(max(across))}; "
        f"within one hub p50 {ms(percentile(within, 0.5))}, max {ms(max(within))}; "
        f"click -> the room's page in (every click) p50 {ms(percentile(LOADED_AFTER, 0.5))}, p99 {ms(percentile(LOADED_AFTER, 0.99))}"
    )
    measured, verdict = stall_cells(gap, meter.gaps, traffic_floor)
    table.add(
        f"longest stall, {plan.rate:g} msg/s for {span(args.duration)} (switching meanwhile)", measured,
        f"{idle_gap:.1f} ms, {idle_stalls} over (idle window)", gap / idle_gap, f"none over {STALL_MS:g} ms", verdict,
    )
    growth = rss_marks[1] / rss_marks[0]
    table.add(
        f"RSS after {span(args.duration)} of traffic", f"{rss_marks[1]:.0f} MB", f"{rss_marks[0]:.0f} MB (after {span(rss_first)})",
        growth, f"<= {RSS_GROWTH:g}x and <= {RSS_MB:g} MB", growth <= RSS_GROWTH and rss_marks[1] <= RSS_MB,
    )
    notes.append(
        f"traffic: {ran['sent']:,} messages in {ran['secs']:.0f} s ({ran['sent'] / ran['secs']:.1f} msg/s); "
        f"every room's last message in the sidebar and the open room {lag:.2f} s after the last send; {time.perf_counter() - started:.0f} s in all"
    )
    notes.append(
        floor_note("traffic", meter.gaps, traffic_floor)
        + (f"; the window's: {', '.join(f'{length:.0f} ms' for _, length in meter.gaps[:10])}" if meter.gaps else "")
    )
    notes.extend(traffic_causes)
    if args.burst_secs > 0:
        await burst_figure(args, desktop, agents, floor, meter, (idle_gap, idle_stalls), table, notes)
    if profiler is not None:
        profiler.send_signal(signal.SIGINT)  # py-spy writes its file and ends
        await asyncio.to_thread(profiler.wait, 60)

    # 6. waking after a night away.
    settling = time.monotonic()
    while not (settled := await settled_everywhere(desktop, plan.rooms)) and time.monotonic() < settling + 60:
        await asyncio.sleep(0.5)  # every room's last pull complete: the marks are where the bare client starts
    notes.append(
        f"before the night every room's last pull was complete {time.monotonic() - settling:.1f} s after the traffic"
        if settled else "before the night some rooms' pulls were still incomplete after 60 s (the window pulls a little more than the bare client)"
    )
    await close_window(desktop, running)
    return idle_gap


async def burst_figure(
    args: argparse.Namespace, desktop: DesktopApp, agents: Agents, floor: Floor, meter: GapMeter, idle: tuple[float, int],
    table: Table, notes: list[str],
) -> None:
    """3b.: the longest stall while the agents post ``--burst-rate`` messages/s for ``--burst-secs``
    (the same share into the shown room), and how soon the sidebar and the open room caught up."""
    await asyncio.sleep(1.0)
    meter.start()
    watch_causes(args, meter)
    floor.start()
    ran = await agents.ask("traffic", (args.burst_secs, args.burst_rate))
    gap = meter.stop()
    burst_causes = causes_notes(meter, "burst")
    burst_floor = await floor.stop()
    lag = await wait_caught_up(desktop, ran["tokens"], 120)
    measured, verdict = stall_cells(gap, meter.gaps, burst_floor)
    idle_gap, idle_stalls = idle
    table.add(
        f"longest stall, a burst of {args.burst_rate:g} msg/s for {span(args.burst_secs)}", measured,
        f"{idle_gap:.1f} ms, {idle_stalls} over (idle window)", gap / idle_gap, f"none over {STALL_MS:g} ms", verdict,
    )
    notes.append(
        f"burst: {ran['sent']:,} messages in {ran['secs']:.1f} s ({ran['sent'] / ran['secs']:.1f} msg/s); every room's last "
        f"message in the sidebar and the open room {lag:.2f} s after the last send; "
        + floor_note("burst", meter.gaps, burst_floor)
        + (f"; the window's: {', '.join(f'{length:.0f} ms' for _, length in meter.gaps[:10])}" if meter.gaps else "")
    )
    notes.extend(burst_causes)



async def start_hubs(root: Path, count: int) -> list[HubProcess]:
    """``count`` of our hubs (``--relaxed-limits``), each in its own process and folder under ``root``."""
    hubs = [HubProcess(root / f"hub{index}.sqlite3", 0, ["--relaxed-limits"], root / f"hub{index}") for index in range(count)]
    for index in range(count):
        (root / f"hub{index}").mkdir()
    await asyncio.gather(*(asyncio.to_thread(hub.start) for hub in hubs))
    return hubs

async def main(args: argparse.Namespace) -> None:
    plan = Plan(args.hubs, args.rooms, args.agents, args.rate, args.history, args.hot_share)
    total_agents = sum(plan.agents_on(index) for index in range(plan.hubs))
    print(
        f"size: {plan.hubs} hubs x {plan.rooms} rooms, {total_agents} agents posting {plan.rate:g} msg/s for {args.duration:g} s "
        f"({plan.hot_share:.0%} into the shown room); {plan.history} messages per room before; {args.night:,} during the night; "
        f"{args.switches} switches of each kind; {args.repeats} launches of each home; on {os.cpu_count()} cores", flush=True,
    )
    table = Table()
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        hubs = await start_hubs(root, plan.hubs)
        urls = [hub.url for hub in hubs]
        home, baseline_home = Home.resolve(root / "home").ensure(), Home.resolve(root / "baseline-home").ensure()
        save_settings(home.settings_file, Settings(display_name="boss", hubs=tuple(urls)))
        save_settings(baseline_home.settings_file, Settings(display_name="boss", hubs=(urls[0],)))
        for each in (home, baseline_home):
            load_or_create_identity(each.key_file)  # made here, so the agents' process joins rooms with it
        agents = Agents(urls, plan)
        floor = Floor()
        try:
            made = await agents.ask("setup", {"window": str(home.key_file), "baseline": str(baseline_home.key_file)})
            print(f"set up: {plan.hubs * plan.rooms} rooms, {plan.hubs * plan.rooms * plan.history:,} messages in {made['secs']:.1f} s", flush=True)
            if args.only is None:
                await launched_figures(args, plan, root, (home, baseline_home), urls, table, notes)
            else:  # the first launch fills the caches, as before figure 1
                filled = await asyncio.to_thread(launch, root, home, dict.fromkeys(urls, plan.rooms), "fill")
                print(f"first launch: caches filled {filled['filled'] - filled['start']:.1f} s after the start", flush=True)
            idle_gap = None if args.only == "wake" else await window_figures(args, plan, home, urls, agents, floor, table, notes)
            if args.only != "traffic":
                await night_and_wake(args, plan, home, urls, agents, floor, table, notes, idle_gap)
        finally:
            floor.quit()
            agents.quit()
            for hub in hubs:
                hub.terminate()
    print()
    table.print()
    print()
    for note in notes:
        print(note)


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hubs", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=100, help="rooms per hub")
    parser.add_argument("--agents", type=int, default=20, help="agents in all, spread over the hubs")
    parser.add_argument("--rate", type=float, default=10.0, help="messages per second, every agent together")
    parser.add_argument("--duration", type=float, default=180.0, help="seconds of traffic (RSS is compared with its first minute)")
    parser.add_argument("--hour", action="store_true", help="an hour of traffic (--duration 3600)")
    parser.add_argument("--night", type=int, default=50_000, help="messages posted while the window is closed")
    parser.add_argument("--history", type=int, default=20, help="messages per room before the first launch")
    parser.add_argument("--hot-share", type=float, default=0.1, help="share of the traffic into the room the window shows")
    parser.add_argument("--switches", type=int, default=60, help="clicks of each kind (across hubs; within one hub)")
    parser.add_argument("--idle-secs", type=float, default=30.0, help="idle CPU window (0: skip)")
    parser.add_argument("--repeats", type=int, default=3, help="launches of each home for the cold start")
    parser.add_argument("--burst-rate", type=float, default=200.0, help="messages per second of the burst after the traffic")
    parser.add_argument("--burst-secs", type=float, default=10.0, help="seconds of the burst (0: none)")
    parser.add_argument(
        "--only", choices=("wake", "traffic"), help="only the wake, or only the traffic (switching, stalls, the burst, memory); "
        "the caches filled by a first launch",
    )
    parser.add_argument("--profile-wake", metavar="FILE", help="record the wake with py-spy (speedscope JSON)")
    parser.add_argument("--needs-cost", action="store_true", help="also wake with Needs you off, and print what it adds")
    parser.add_argument("--profile-traffic", metavar="FILE", help="record the traffic and the burst with py-spy (speedscope JSON)")
    parser.add_argument(
        "--profile-switches", metavar="FILE",
        help="record the Qt thread from each click of the switching to its room painted with cProfile (pstats; the switches slow down)",
    )
    parser.add_argument(
        "--stall-causes", action="store_true", help="print what held the Qt thread in the stalls of the traffic, the burst and the wake (stall_causes.py)",
    )
    # The launched window's own options (``launch_probe``): not for people.
    parser.add_argument("--launch-probe", metavar="REPORT", help=argparse.SUPPRESS)
    parser.add_argument("--home", help=argparse.SUPPRESS)
    parser.add_argument("--expect", help=argparse.SUPPRESS)
    parser.add_argument("--mode", choices=("fill", "cold"), help=argparse.SUPPRESS)
    parser.add_argument("--timeout", type=float, default=600.0, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.hour:
        arguments.duration = 3600.0
    return arguments


if __name__ == "__main__":
    arguments = parse()
    if arguments.launch_probe:
        raise SystemExit(launch_probe(arguments))
    run_on_app_loop(main(arguments))
