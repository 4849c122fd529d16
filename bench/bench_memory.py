"""What the window keeps per message received (issue 42, item 1): a soak of the real window (this
process, as bench_hubs.py runs it) on several hubs, with bench_hubs.py's agents posting as fast
as the hubs take them, and the window's memory measured between rounds.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_memory.py
     [--hubs 3] [--rooms 30] [--agents 6] [--round 5000] [--rounds 4] [--idle-secs 60] [--trace] [--room-messages 0]

- Without ``--trace``: RSS after each round (and once glibc's free pages are handed back, as the
  idle collector does when the traffic pauses: the figure) of ``--round`` messages (spread over every room of every
  hub, ``--hot-share`` into the room the window shows), the curve printed; the figure is RSS after
  the last round against after the first (issue 42: <= 1.2x and <= 300 MB after 1,000,000 messages
  against after 100,000; scale it with --round/--rounds for the machine), and how much it grew
  per message after the first round (flat: ~0). Then the window's CPU over ``--idle-secs`` with
  no traffic, once it has worked off the soak (printed: how long that took; issue 42: < 1 % of a
  core after the soak).
- ``--trace``: ``tracemalloc`` snapshots after round 1 and after the last round (25 frames), and the
  allocation sites that grew the most between them (by line, and by the traceback's first frame in
  ``parler_desktop``): what is kept per message. Slow: use a few thousand messages a round.
- ``--room-messages N``: a room of N messages (read), RSS before opening it, after scrolling it back
  to its start and after showing another room again (issue 42: after closing <= 1.1x before);
  with ``--trace`` / ``--holders``, what grew between before and closed, and who holds messages then.

Measured on the shared 2-core machine (issue 42), --hubs 5 --rooms 20 --round 100000 --rounds 10:
before the shared senders (1213f5b) 240.9 -> 299.8 MB = 1.24x (arenas 126 -> 180); after, three
runs: 211.8 -> 244.4 = 1.15x, 204.9 -> 260.8 = 1.27x (load 2.6-7.4), 219.9 -> 236.5 = 1.08x (load
1-3); each curve flat but for one or two steps of pymalloc's arenas at a catch-up's peak. Idle CPU
0.39 % and 0.45 % once the window had worked off the soak (30 s and 110 s). --hubs 1 --rooms 5
--room-messages 100000: 1.19x with 2,000 rows held scrolled back, 1.10-1.11x at 600, 1.07x at 300.
With the pulled messages' budget counting what is asked for (page_writer.PULLED_MAX; each round
prints the most pulled and not stored at once), scaled down on a loaded machine (load 4-9), --hubs 5
--rooms 20: --round 20000 --rounds 6, before 1.12x and 1.12x (a step at round 2: 65 -> 84 and
66 -> 79 arenas), after 1.03x, 1.04x and 1.21x (the last reached the budget, 50,000, in round 6
only: 67 -> 94 arenas); --round 50000 --rounds 4, before 1.02x (85 -> 88 arenas), after 1.01x (85
flat). A catch-up's step is now at most the budget's; it is flat when the first round reaches it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import linecache
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path


sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_hubs import IDLE_CPU_PCT, SETTLE_SECS, Agents, Crowd, PaintEnds, Plan, open_window, close_window, rss_mb, room_name, show, shows_last, sidebar, start_hubs, wait_caught_up  # noqa: E402
from bench_ui import run_on_app_loop, wait_for  # noqa: E402

from parler_desktop.client.page_writer import pulled_peak  # noqa: E402
from parler_desktop.identity import load_or_create_identity  # noqa: E402
from parler_desktop.paths import Home  # noqa: E402
from parler_desktop.settings import Settings, save_settings  # noqa: E402

RSS_GROWTH, RSS_MB = 1.2, 300.0  # the figure: after 1,000,000 messages against after 100,000; and at most
BUSY_PCT, SETTLE_MAX_SECS = 5.0, 600.0  # the window still works off the soak while over this (% of a core), at most this long


class RoomFiller(Crowd):
    """bench_hubs.py's agents, and one more command: ``fill`` one room with many messages."""

    async def fill(self, what: dict) -> dict:
        url = self.urls[0]
        for start in range(0, what["count"], 5000):
            await self._post(url, [what["room"]] * min(5000, what["count"] - start))
        return {"tokens": self.last_token}


def fillers_process(pipe, urls, plan) -> None:
    asyncio.run(RoomFiller(urls, plan).serve(pipe))


class Fillers(Agents):
    def __init__(self, urls, plan: Plan) -> None:
        import multiprocessing

        context = multiprocessing.get_context("spawn")
        self._pipe, theirs = context.Pipe()
        self.process = context.Process(target=fillers_process, args=(theirs, list(urls), plan), daemon=True)
        self.process.start()


PACKAGE = str(Path(__file__).resolve().parent.parent / "parler_desktop")


def settled_rss() -> float:
    """RSS after a full collection (what is kept, not what waits for the collector)."""
    gc.collect()
    return rss_mb()


def trimmed_rss() -> float:
    """RSS once glibc has handed its free pages back (``malloc_trim``): what is held, not what
    the allocator keeps for later."""
    import ctypes

    gc.collect()
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    return rss_mb()


class Census:
    """Where the process's memory is, by owner: the C heap glibc has handed out (``mallinfo2``:
    every arena, Qt's allocations and Python's larger objects among them), SQLite's own
    (``sqlite3_memory_used``: page caches and statements), Python's (``tracemalloc`` while
    tracing) and the gc-tracked objects by type: RSS growth that none of Python's explains is
    Qt's or SQLite's, or pages the allocator keeps."""

    def __init__(self) -> None:
        import ctypes

        class MallInfo2(ctypes.Structure):
            _fields_ = [(name, ctypes.c_size_t) for name in
                        ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]

        self._mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
        self._mallinfo2.restype = MallInfo2
        self._sqlite_used = ctypes.CDLL("libsqlite3.so.0").sqlite3_memory_used
        self._sqlite_used.restype = ctypes.c_int64
        self.first_types: dict[str, int] | None = None

    @staticmethod
    def python_arenas() -> str:
        """pymalloc's arenas now (mmap'd directly, so outside the C heap) and the bytes its blocks
        in use take ("" while tracemalloc wraps the allocator: pymalloc's statistics are off then)."""
        with tempfile.TemporaryFile() as out:
            saved = os.dup(2)
            os.dup2(out.fileno(), 2)
            try:
                sys._debugmallocstats()
            finally:
                os.dup2(saved, 2)
                os.close(saved)
            out.seek(0)
            stats = {key.strip(): value for key, value in
                     (line.split("=", 1) for line in out.read().decode().splitlines() if line.startswith("# ") and "=" in line)}
        arenas, used = stats.get("# arenas allocated current"), stats.get("# bytes in allocated blocks")
        if arenas is None or used is None:
            return ""
        return f", Python's blocks {int(used.replace(',', '')) / 2**20:.1f} MB in {int(arenas.replace(',', ''))} arenas of 1 MB"

    def line(self) -> str:
        info = self._mallinfo2()
        traced = f", Python {tracemalloc.get_traced_memory()[0] / 2**20:.1f} MB traced" if tracemalloc.is_tracing() else ""
        return (f"C heap {(info.uordblks + info.hblkhd) / 2**20:.1f} MB in use ({info.fordblks / 2**20:.1f} MB free in it), "
                f"SQLite {self._sqlite_used() / 2**20:.1f} MB{traced}{self.python_arenas()}")

    @staticmethod
    def types() -> dict[str, int]:
        counts: dict[str, int] = {}
        for thing in gc.get_objects():
            name = type(thing).__qualname__
            counts[name] = counts.get(name, 0) + 1
        return counts

    def print_types(self, messages: int, top: int = 15) -> None:
        if self.first_types is None:
            return
        now = self.types()
        grown = sorted(((count - self.first_types.get(name, 0), name) for name, count in now.items()), reverse=True)[:top]
        print(f"\ngc-tracked objects that grew the most over {messages:,} messages (per 1,000 messages):")
        for count, name in grown:
            print(f"  {count * 1000 / messages:8.1f}  {name} ({now[name]:,} alive)")


class PeakWatch:
    """``--peaks``: the gc-tracked objects by type whenever Python's allocated blocks reach a new
    high (by 20,000) during the rounds after the first: pymalloc keeps a 1 MB arena as long as
    one block in it lives, so the peaks, not what is held between them, set how many arenas
    stay. (Not tracemalloc: it slowed the window tenfold, and the traffic's peaks with it.)"""

    def __init__(self) -> None:
        self.high = 0
        self.types: dict[str, int] = {}
        self.holders: list[str] = []
        self._task: asyncio.Task | None = None

    def start(self) -> None:
        self.high = sys.getallocatedblocks()
        self._task = asyncio.ensure_future(self._watch())

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(0.02)
            now = sys.getallocatedblocks()
            if now > self.high + 20_000:
                self.high = now
                self.types = Census.types()
                self.holders = message_holders()

    def report(self, top: int = 15) -> None:
        self._task.cancel()
        if not self.types:
            print("\nno peak above the first round's")
            return
        now = Census.types()
        print(f"\nat the peak ({self.high:,} blocks; {sys.getallocatedblocks():,} at the end), the objects alive then beyond the end's:")
        for count, name in sorted(((count - now.get(name, 0), name) for name, count in self.types.items()), reverse=True)[:top]:
            print(f"  {count:9,}  {name}")
        print("and then " + "\n".join(self.holders))


def print_growth(first: tracemalloc.Snapshot, last: tracemalloc.Snapshot, messages: int, top: int = 15) -> None:
    """The sites that grew the most between the snapshots, by line and by our first frame."""
    print(f"\ntop growing allocation sites over {messages:,} messages (bytes per message, blocks per message):")
    for stat in last.compare_to(first, "lineno")[:top]:
        frame = stat.traceback[0]
        print(f"  {stat.size_diff / messages:8.1f} B {stat.count_diff / messages:6.2f}  {frame.filename.removeprefix(PACKAGE)}:{frame.lineno}"
              f"  {linecache.getline(frame.filename, frame.lineno).strip()[:80]}")

    def ours(snapshot: tracemalloc.Snapshot) -> dict[str, int]:
        sizes: dict[str, int] = {}
        for stat in snapshot.statistics("traceback"):
            frame = next((f for f in reversed(stat.traceback) if f.filename.startswith(PACKAGE) and "/protocol/" not in f.filename), None)
            if frame is not None:
                key = f"{frame.filename.removeprefix(PACKAGE)}:{frame.lineno}"
                sizes[key] = sizes.get(key, 0) + stat.size
        return sizes

    before, after = ours(first), ours(last)
    grown = sorted(((after.get(key, 0) - before.get(key, 0), key) for key in after), reverse=True)[:top]
    print("\nby the innermost frame in parler_desktop outside protocol/ (bytes per message):")
    for size, key in grown:
        print(f"  {size / messages:8.1f} B  {key}")


def owners_of(thing: object, ignore: set[int]) -> list[object]:
    """What refers to ``thing``, but for frames and this bench's own containers (``ignore``)."""
    frame_type = type(sys._getframe())
    return [o for o in gc.get_referrers(thing) if id(o) not in ignore and not isinstance(o, frame_type)]


def referrers_tree(thing: object, ignore: set[int], depth: int = 4) -> str:
    """``thing``'s referrers, theirs, up ``depth`` levels, named (functions and code by name)."""
    def name(o: object) -> str:
        if hasattr(o, "__qualname__") and callable(o):
            return f"{type(o).__name__} {o.__qualname__}"
        if hasattr(o, "f_code"):
            return f"frame {o.f_code.co_name}"
        if hasattr(o, "cr_code"):
            return f"coroutine {o.cr_code.co_qualname}"
        return f"{type(o).__qualname__}" + (f"({len(o)})" if hasattr(o, "__len__") else "")
    ignore = ignore | {id(sys._getframe())}
    if depth == 0:
        return name(thing)
    owners = [o for o in gc.get_referrers(thing) if id(o) not in ignore][:3]
    return name(thing) + " <- [" + ", ".join(referrers_tree(o, ignore | {id(owners)}, depth - 1) for o in owners) + "]"


def describe(container: object, ignore: set[int], depth: int = 4) -> str:
    """``container``'s type, and where it lives: the attribute or key of the object holding it."""
    name = type(container).__qualname__
    if depth == 0 or hasattr(container, "__dict__") and not isinstance(container, type):
        return name
    for owner in owners_of(container, ignore):
        if isinstance(owner, dict):
            key = next((k for k, v in owner.items() if v is container), "?")
            holder = next((o for o in owners_of(owner, ignore) if getattr(o, "__dict__", None) is owner), None)
            if holder is not None:
                return f"{name} in {type(holder).__qualname__}.{key}"
            return f"{name} in dict[{str(key)[:30]}] in " + describe(owner, ignore, depth - 1)
        return f"{name} in " + describe(owner, ignore, depth - 1)
    return name


def message_holders(top: int = 8) -> list[str]:
    """Who holds the messages alive now: the containers referring to StoredMessages, by how
    many each holds, named by their owner (one pass over every object: get_referrers per
    message is quadratic)."""
    from parler_desktop.protocol.values import StoredMessage

    held: list[tuple[int, object]] = []
    everything = gc.get_objects()
    alive = 0
    for thing in everything:
        if isinstance(thing, StoredMessage):
            alive += 1
            continue
        count = sum(1 for r in gc.get_referents(thing) if isinstance(r, StoredMessage))
        if count:
            held.append((count, thing))
    del everything, thing
    held.sort(key=lambda item: -item[0])
    ignore = {id(held), *(id(pair) for pair in held)}
    by_name: dict[str, int] = {}
    for count, container in held[:100]:
        name = describe(container, ignore)
        by_name[name] = by_name.get(name, 0) + count
    if held:
        by_name["(the biggest one's referrers: " + referrers_tree(held[0][1], ignore) + ")"] = 0
    lines = [f"{alive:,} StoredMessage objects alive; the 100 containers holding the most, by owner:"]
    lines += [f"  {count:8,}  {name}" for name, count in sorted(by_name.items(), key=lambda item: -item[1])[:top]]
    return lines + [f"  ({len(held):,} containers hold one or more)"]


def print_holders() -> None:
    gc.unfreeze()  # (the window froze what it built: those containers are holders too)
    gc.collect()
    print("\n" + "\n".join(message_holders()))


async def soak(args: argparse.Namespace, desktop, agents: Agents, plan: Plan, urls: list[str]) -> None:
    paints = PaintEnds(desktop.window.timeline)
    await show(desktop, paints, urls[0], room_name(0))
    curve: list[tuple[int, float]] = []
    first: tracemalloc.Snapshot | None = None
    census = Census()
    peaks = PeakWatch() if args.peaks else None
    sent = 0
    for number in range(1, args.rounds + 1):
        started = time.perf_counter()
        posted = await agents.ask("night", {"total": args.round, "needs_mix": False})
        await wait_caught_up(desktop, posted["tokens"], 600)
        await asyncio.sleep(1.0)  # the pacer's and the room lists' last turns
        sent += args.round
        settled = settled_rss()
        curve.append((sent, trimmed_rss()))  # as the idle collector leaves it once the traffic pauses
        print(f"round {number}: {sent:,} messages, RSS {settled:.1f} MB, {curve[-1][1]:.1f} MB trimmed "
              f"({time.perf_counter() - started:.1f} s); {census.line()}; at most {pulled_peak(reset=True):,} messages "
              f"pulled and not stored at once", flush=True)
        if number == 1:
            census.first_types = census.types()
        if args.trace and number == 1:
            first = tracemalloc.take_snapshot()
        if peaks is not None and number == 1:
            peaks.start()
    if peaks is not None:
        peaks.report()
    if args.idle_secs > 0:
        cpu = await idle_cpu(args.idle_secs)
        print(f"idle CPU after the soak, no traffic, over {args.idle_secs:g} s: {cpu:.2f} % of a core (target < {IDLE_CPU_PCT:g} %)", flush=True)
    if args.rounds > 1:
        census.print_types(sent - args.round)
    if args.trace and first is not None:
        print_growth(first, tracemalloc.take_snapshot(), sent - args.round)
    if args.holders:
        print_holders()
    base = curve[0][1]
    print(f"\nRSS curve (MB, trimmed, after each round): {' '.join(f'{rss:.1f}' for _sent, rss in curve)}")
    if len(curve) > 2:
        print(f"after the first round: {slope(curve[1:]):.1f} B per message kept (least squares over rounds 2-{len(curve)})")
    print(f"RSS after {curve[-1][0]:,} messages vs after {curve[0][0]:,}: {curve[-1][1]:.1f} / {base:.1f} MB = {curve[-1][1] / base:.2f}x "
          f"(target <= {RSS_GROWTH:g}x and <= {RSS_MB:g} MB)")


def slope(points: list[tuple[int, float]]) -> float:
    """Bytes per message of the least-squares line through (messages, MB) points."""
    mean_x = sum(x for x, _y in points) / len(points)
    mean_y = sum(y for _x, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _y in points)
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread * 2**20


async def cpu_over(secs: float) -> float:
    """This process's CPU (every thread: the window's) over ``secs``, in % of a core."""
    cpu, wall = time.process_time(), time.perf_counter()
    await asyncio.sleep(secs)
    return 100 * (time.process_time() - cpu) / (time.perf_counter() - wall)


async def idle_cpu(secs: float) -> float:
    """The window's CPU over ``secs`` with no traffic, once what the soak left it to do is done
    (the last pulls' writes, the search index of what they stored): 10 s windows until one is
    under ``BUSY_PCT`` (at most ``SETTLE_MAX_SECS``), printed, then the figure."""
    await asyncio.sleep(SETTLE_SECS)
    started, settling = time.perf_counter(), []
    while time.perf_counter() - started < SETTLE_MAX_SECS:
        settling.append(await cpu_over(10.0))
        if settling[-1] < BUSY_PCT:
            break
    print(f"after the soak, the window's CPU in 10 s windows until under {BUSY_PCT:g} %: "
          f"{' '.join(f'{pct:.1f}' for pct in settling)} % ({time.perf_counter() - started:.0f} s)", flush=True)
    return await cpu_over(secs)


async def big_room(args: argparse.Namespace, desktop, agents: Agents, urls: list[str]) -> None:
    """RSS before opening a room of ``--room-messages``, scrolled back to its start, and closed."""
    paints = PaintEnds(desktop.window.timeline)
    big, other = room_name(1), room_name(0)
    posted = await agents.ask("fill", {"room": big, "count": args.room_messages})
    mark = posted["tokens"][urls[0]][big]
    await wait_for(lambda: shows_last(sidebar(desktop.hubs.entries[0]).get(big, (0, ""))[1], mark), 900)
    await show(desktop, paints, urls[0], other)
    await asyncio.sleep(1.0)
    census = Census()
    before, before_census = settled_rss(), census.line()
    census.first_types = census.types()
    first = tracemalloc.take_snapshot() if args.trace else None
    await show(desktop, paints, urls[0], big)
    model, bar = desktop.window.timeline_model, desktop.window.timeline.verticalScrollBar()
    model.load_latest()  # (it opened at its first unread, its oldest): from the newest, back to the start
    await wait_for(lambda: not model.loading and not model.has_newer, 60)

    def at_start() -> bool:
        bar.setValue(bar.minimum())
        return not model.has_older

    await wait_for(at_start, 600)
    opened, rows = settled_rss(), model.rowCount()
    await show(desktop, paints, urls[0], other)
    await asyncio.sleep(40.0)  # the idle collector's next pass (every 30 s, once quiet), as in the app
    closed = settled_rss()
    trimmed = trimmed_rss()
    print(f"room of {args.room_messages:,}: RSS {before:.1f} MB before opening, {opened:.1f} MB scrolled to its start ({rows:,} rows), "
          f"{closed:.1f} MB closed (40 s later) = {closed / before:.2f}x; {trimmed:.1f} MB after another malloc_trim = {trimmed / before:.2f}x", flush=True)
    print(f"before opening: {before_census}\nclosed: {census.line()}")
    census.print_types(args.room_messages)
    if first is not None:
        print_growth(first, tracemalloc.take_snapshot(), args.room_messages)
    if args.holders:
        print_holders()


async def main(args: argparse.Namespace) -> None:
    plan = Plan(args.hubs, args.rooms, args.agents, 0.0, 0, args.hot_share)
    what = f"a room of {args.room_messages:,} messages" if args.room_messages else f"{args.rounds} rounds of {args.round:,} messages"
    print(f"size: {plan.hubs} hubs x {plan.rooms} rooms, {what}; trace {args.trace}; "
          f"on {os.cpu_count()} cores", flush=True)
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        hubs = await start_hubs(root, plan.hubs)
        urls = [hub.url for hub in hubs]
        home, baseline = Home.resolve(root / "home").ensure(), Home.resolve(root / "baseline").ensure()
        save_settings(home.settings_file, Settings(display_name="boss", hubs=tuple(urls)))
        load_or_create_identity(home.key_file)
        load_or_create_identity(baseline.key_file)
        agents = Fillers(urls, plan)
        try:
            await agents.ask("setup", {"window": str(home.key_file), "baseline": str(baseline.key_file)})
            desktop, running = await open_window(home, plan.hubs, plan.rooms)
            if args.trace:
                tracemalloc.start(25)
            try:
                if args.room_messages:
                    await big_room(args, desktop, agents, urls)
                else:
                    await soak(args, desktop, agents, plan, urls)
            finally:
                await close_window(desktop, running)
        finally:
            agents.quit()
            for hub in hubs:
                hub.terminate()


def parse() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hubs", type=int, default=3)
    parser.add_argument("--rooms", type=int, default=30, help="rooms per hub")
    parser.add_argument("--agents", type=int, default=6, help="agents in all, spread over the hubs")
    parser.add_argument("--round", type=int, default=5000, help="messages per round, over every room of every hub")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--idle-secs", type=float, default=60.0, help="the window's idle CPU after the last round (0: skip)")
    parser.add_argument("--hot-share", type=float, default=0.1)
    parser.add_argument("--trace", action="store_true", help="tracemalloc snapshots after the first and the last round (or before opening the room and once closed)")
    parser.add_argument("--peaks", action="store_true", help="the objects by type at Python's new highs after the first round: what the peaks hold")
    parser.add_argument("--holders", action="store_true", help="after the last round, who holds the StoredMessages still alive")
    parser.add_argument("--room-messages", type=int, default=0, help="measure opening and closing a room of this many messages")
    return parser.parse_args()


if __name__ == "__main__":
    arguments = parse()
    run_on_app_loop(main(arguments))
