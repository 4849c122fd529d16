"""What keeping "Needs you" current costs bench_hubs.py's wake (issue 45 step 7: at most 10 %
of the wake of 50,000 messages): the same wake, in the same run, on copies of one home made
before the night, with the window's Needs you derivation off and on.

Off: every hub's ``NeedsWatch`` takes nothing in (no read of the store at the session's start,
no stored message, cursor, room list or outbox change, no join requests asked of the hubs) and
the digest ("Since you last looked") tallies nothing; the queue, counts and alerts are there,
empty. On: the window as it ships. The wakes run off, on,
off (the "on" one is bench_hubs.py's figure 6), after a window was opened and closed once in the
process, so a hub, a disk or the process warming up over the run favours neither side. The night
is then not all chatter: one message in ten is one Needs you parses (``night_message``), and one in
forty mentions the human, so the wake opens items (1,250 for 50,000 messages; the issue's scale is
1,000 open items). The ratio is "on" against the mean of the two "off" ones, for the wall
time until every sidebar row is right (figure 6's end, which the hub's room list can give before
the pages are pulled) and, what Needs you's work is in, the wall and CPU time (this process, every
thread) until the store holds every message of the night. A last row weighs the Qt thread's own
CPU time in Needs you during the "on" wake (``needs_timed``) against the rest of that wake's: the
A/B wall and CPU times move by more than 10 % from one wake to the next on a shared machine, this
one much less; but what its changes cause later (the sidebar's repaint, an alert, the join
requests' round trips) is only in the A/B.
"""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from parler_desktop.app.needs_you.digest import DigestTally
from parler_desktop.app.needs_you.hub_needs import HubNeeds
from parler_desktop.app.needs_you.needs_watch import NeedsWatch
from parler_desktop.paths import Home

NEEDS_COST = 0.10  # the target: what Needs you adds to the wake, at most
MIXED_EVERY = 10  # one night message in this many is one Needs you parses (night_message); 1 in 40 opens an item
FED_BY = (  # what feeds Needs you: each hub's watch's inputs, and the digest's tally of what is stored
    *((NeedsWatch, name) for name in ("_session_changed", "_stored", "_cursor", "_rooms", "_outbox", "poll_join_requests")),
    (DigestTally, "observe"),
)
WORK = (*FED_BY, (NeedsWatch, "_observe"), (NeedsWatch, "refresh"), (HubNeeds, "_refresh_due"))  # and what runs on the Qt thread from them


def night_message(n: int, mark: str) -> list[dict] | None:
    """The parts of the night's message ``n`` when it is one Needs you has to parse (every
    ``MIXED_EVERY``-th, in turn: a task status on an agent's own task, a handoff to another role,
    a mention of the human, which opens an item, and one of an agent), else None (chatter, which
    Needs you passes over unparsed). The text starts with ``mark``, as every message's."""
    if n % MIXED_EVERY:
        return None
    kind = n // MIXED_EVERY % 4
    if kind == 0:
        return [{"kind": "text", "text": f"{mark}: working on it"}, {"kind": "com.parler.task", "status": "working", "task": f"t{n}"}]
    if kind == 1:
        return [{"kind": "text", "text": f"{mark}: over to review"}, {"kind": "com.parler.handoff", "next": "review it", "to": "reviewer"}]
    return [{"kind": "text", "text": f"{mark}: {'@boss' if kind == 2 else '@coder'} can you look at the failing build?"}]


@contextlib.contextmanager
def replaced(methods: Iterable[tuple[type, str]], wrap: Callable[[Callable[..., Any]], Callable[..., Any]]) -> Iterator[None]:
    """Each of ``methods`` replaced by ``wrap`` of it meanwhile (a signal connected meanwhile keeps
    the replacement)."""
    kept = [(owner, name, getattr(owner, name)) for owner, name in methods]
    try:
        for owner, name, method in kept:
            setattr(owner, name, wrap(method))
        yield
    finally:
        for owner, name, method in kept:
            setattr(owner, name, method)


def needs_derivation_off() -> contextlib.AbstractContextManager[None]:
    """Windows made meanwhile take nothing into Needs you (module docstring): what feeds it does
    nothing."""
    return replaced(FED_BY, lambda _method: lambda *_args, **_kwargs: None)


def needs_timed(spent: list[float]) -> contextlib.AbstractContextManager[None]:
    """Adds to ``spent[0]`` the CPU time the Qt thread spends in Needs you meanwhile (what feeds
    it, the messages taken in, working out the items and what that announces: the queue, the
    counts), outermost calls only: thread CPU time, which the other processes of a shared machine
    do not inflate. The store's reads for it at a session's start run on the store's thread and
    are not in it (the A/B wakes count those)."""
    depth = [0]

    def timed(method: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kwargs: Any) -> Any:
            if depth[0]:
                return method(*args, **kwargs)
            depth[0] += 1
            started = time.thread_time()
            try:
                return method(*args, **kwargs)
            finally:
                spent[0] += time.thread_time() - started
                depth[0] -= 1

        return run

    return replaced(WORK, timed)


def copy_home(home: Home, name: str) -> Home:
    """A copy of ``home`` (its identity, settings and caches) beside it, the window closed."""
    root = home.config_dir.parent
    copy = root.with_name(name)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*.lock"))
    return Home.resolve(copy)


def cost_rows(on: dict[str, Any], off: list[dict[str, Any]]) -> list[tuple[str, str, str, float, str, bool]]:
    """The table's rows (figure, measured, baseline, ratio, target, ok): the wake with Needs you
    on against the mean of the wakes with it off, until every sidebar row is right (wall time) and
    until the store holds every message of the night (wall and CPU time: what Needs you does, it
    does as messages are stored)."""
    rows = []
    for key, what in (("secs", "every row right"), ("caught_secs", "every message stored"), ("caught_cpu", "its CPU time")):
        base = sum(run[key] for run in off) / len(off)
        ratio = on[key] / base
        rows.append((
            f"wake, Needs you kept current: {what}", f"{on[key]:.2f} s",
            f"{base:.2f} s (Needs you off; {', '.join(f'{run[key]:.2f}' for run in off)})", ratio, f"<= {1 + NEEDS_COST:.2f}x",
            ratio <= 1 + NEEDS_COST,
        ))
    return rows


def needs_share_row(spent: float, cpu: float) -> tuple[str, str, str, float, str, bool]:
    """The row of Needs you's own CPU time in the "on" wake (``needs_timed``) against the rest of
    the wake's (this process, every thread, until every message was stored): what it adds."""
    rest = cpu - spent
    return (
        "wake, Needs you's own CPU time (Qt thread)", f"{spent * 1000:.0f} ms", f"{rest:.2f} s (the rest of the wake's CPU time)",
        spent / rest, f"<= {NEEDS_COST:.2f}x", spent <= NEEDS_COST * rest,
    )
