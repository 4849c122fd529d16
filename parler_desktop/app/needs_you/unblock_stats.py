"""Time to unblock: how long agents waited on the human, per hub, agent and room.

An item counts as answered when it leaves the queue by anything but a snooze (the human's reply
reached the hub, a mention was read, a failure acknowledged, a join request resolved, the agent
moved on); its time to unblock runs from the message that raised it to that moment. Plain values:
``NeedsWatch`` records them, ``today`` sums the day's for the Today panel and its CSV.
"""

from __future__ import annotations

import csv
import datetime
import io
import statistics
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Answered:
    key: str
    agent: str  # display name
    room: str
    kind: str
    since: float  # wall seconds: the item's message
    answered_at: float


@dataclass(frozen=True)
class UnblockRow:
    hub: str
    agent: str
    room: str
    answered: int
    waiting_minutes: float  # agent-minutes spent waiting on the human
    median_minutes: float
    worst_minutes: float


def start_of_day(now: float) -> float:
    return datetime.datetime.combine(datetime.datetime.fromtimestamp(now).date(), datetime.time()).timestamp()


def today(answered: Iterable[tuple[str, Answered]], now: float) -> list[UnblockRow]:
    """Every (hub, agent, room) with an item answered since local midnight, worst first."""
    midnight = start_of_day(now)
    groups: dict[tuple[str, str, str], list[float]] = {}
    for hub, done in answered:
        if done.answered_at >= midnight:
            groups.setdefault((hub, done.agent, done.room), []).append(max(0.0, done.answered_at - done.since) / 60)
    rows = [
        UnblockRow(hub, agent, room, len(waits), sum(waits), statistics.median(waits), max(waits))
        for (hub, agent, room), waits in groups.items()
    ]
    return sorted(rows, key=lambda row: (-row.worst_minutes, row.hub, row.agent, row.room))


CSV_HEADER = ("hub", "agent", "room", "items answered", "agent-minutes waiting", "median minutes to unblock", "worst minutes to unblock")


def csv_text(rows: Iterable[UnblockRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(CSV_HEADER)
    for row in rows:
        writer.writerow((row.hub, row.agent, row.room, row.answered, f"{row.waiting_minutes:.1f}",
                         f"{row.median_minutes:.1f}", f"{row.worst_minutes:.1f}"))
    return out.getvalue()
