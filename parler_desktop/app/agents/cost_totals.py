"""What the agents' work cost: tokens and elapsed time from terminal task receipts (protocol.md
§8.3), per agent, room, hub and day, with task counts and failures.

Kept incrementally: each receipt is added to the cells it belongs to, so a new receipt costs a
few dictionary updates, never a rescan (the caller adds each once: the store announces a stored
message once; ``forget_hub`` before a hub's cache is counted again). A receipt without ``tokens`` or
``elapsedMs`` is a task of unknown cost: counted as a task, its figure counted as unknown, never
as zero. Plain Python (no Qt): the window feeds it and asks; the CSV export reads every cell.
"""

from __future__ import annotations

import csv
import datetime
import io
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

TERMINAL = frozenset({"done", "failed", "cancelled"})
PERIODS = ("today", "7 days", "all")
SCOPES = ("agent", "room", "hub")
CSV_HEADER = (
    "scope", "hub", "name", "day", "tasks", "failed", "tokens", "tasks without tokens",
    "elapsed ms", "tasks without elapsed",
)


@dataclass(frozen=True)
class Receipt:
    """One terminal task status, as stored: ``tokens`` / ``elapsed_ms`` None when not given."""

    hub: str
    seq: int  # (with ``position``: which message part it is, for the reader)
    room: str
    agent: str  # the sender's id
    status: str
    ts_ms: int
    position: int = 0  # of the part among the message's parts
    tokens: int | None = None
    elapsed_ms: int | None = None


@dataclass
class Totals:
    tasks: int = 0
    failed: int = 0
    tokens: int = 0
    tokens_unknown: int = 0  # tasks whose receipt gave no tokens
    elapsed_ms: int = 0
    elapsed_unknown: int = 0

    def add(self, other: Totals) -> None:
        self.tasks += other.tasks
        self.failed += other.failed
        self.tokens += other.tokens
        self.tokens_unknown += other.tokens_unknown
        self.elapsed_ms += other.elapsed_ms
        self.elapsed_unknown += other.elapsed_unknown

    def take(self, receipt: Receipt) -> None:
        self.tasks += 1
        self.failed += receipt.status == "failed"
        if receipt.tokens is None:
            self.tokens_unknown += 1
        else:
            self.tokens += receipt.tokens
        if receipt.elapsed_ms is None:
            self.elapsed_unknown += 1
        else:
            self.elapsed_ms += receipt.elapsed_ms

    @property
    def failure_rate(self) -> float | None:
        return self.failed / self.tasks if self.tasks else None

    def summary(self) -> str:
        """One line: tasks, failures, tokens and time, with how many tasks gave no figure."""
        if not self.tasks:
            return "no finished tasks"
        rate = self.failure_rate or 0.0
        tokens = _known(f"{self.tokens:,} tokens", "tokens unknown", self.tokens_unknown, self.tasks)
        elapsed = _known(duration_text(self.elapsed_ms), "time unknown", self.elapsed_unknown, self.tasks)
        plural = "s" if self.tasks != 1 else ""
        return f"{self.tasks:,} task{plural}, {self.failed:,} failed ({rate:.0%}) · {tokens} · {elapsed}"

    def short(self) -> str:
        """The Agents view's cell: "3 tasks · 1,500+? tok", "? tok" when no receipt gave tokens
        (a receipt without the figure is not a zero), empty without a finished task."""
        if not self.tasks:
            return ""
        if self.tokens_unknown == self.tasks:
            tokens = "? tok"
        else:
            tokens = f"{self.tokens:,}{'+?' if self.tokens_unknown else ''} tok"
        return f"{self.tasks:,} task{'s' if self.tasks != 1 else ''} · {tokens}"


def _known(figure: str, none_known: str, unknown: int, tasks: int) -> str:
    """A sum, saying how many tasks it lacks (a receipt without the figure is not a zero)."""
    if unknown == tasks:
        return none_known
    return f"{figure} (+{unknown:,} unknown)" if unknown else figure


def duration_text(ms: int) -> str:
    seconds = ms // 1000
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    return f"{minutes} min" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def local_day(ts_ms: int) -> datetime.date:
    return datetime.datetime.fromtimestamp(ts_ms / 1000).date()


class CostTotals:
    """Every receipt's figures, summed per (scope, hub, name) and local day."""

    def __init__(self, today: Callable[[], datetime.date] = datetime.date.today) -> None:
        self.today = today
        self.counted = 0  # receipts taken in
        self._cells: dict[tuple[str, str, str], dict[datetime.date, Totals]] = defaultdict(dict)

    def add(self, receipt: Receipt) -> bool:
        """Take in one receipt; True when it counted (a terminal one)."""
        if receipt.status not in TERMINAL:
            return False
        self.counted += 1
        day = local_day(receipt.ts_ms)
        for key in (("agent", receipt.hub, receipt.agent), ("room", receipt.hub, receipt.room), ("hub", receipt.hub, "")):
            days = self._cells[key]
            cell = days.get(day)
            if cell is None:
                cell = days[day] = Totals()
            cell.take(receipt)
        return True

    def forget_hub(self, hub: str) -> None:
        """Drop what the hub's receipts added (its cache is about to be counted again)."""
        self.counted -= sum(cell.tasks for cell in self._cells.get(("hub", hub, ""), {}).values())
        for key in [key for key in self._cells if key[1] == hub]:
            del self._cells[key]

    def totals(self, scope: str, hub: str, name: str = "", period: str = "all") -> Totals:
        """The sum for one agent (its id), room or hub (name "") over ``period`` (``PERIODS``)."""
        summed = Totals()
        days = self._cells.get((scope, hub, name))
        if not days:
            return summed
        today = self.today()
        since = {"today": today, "7 days": today - datetime.timedelta(days=6)}.get(period)
        for day, cell in days.items():
            if since is None or day >= since:
                summed.add(cell)
        return summed

    def csv_text(self, label: Callable[[str, str, str], str] = lambda _scope, _hub, name: name) -> str:
        """Every cell, a row per (scope, hub, name, day); ``label`` names an agent or room for the
        reader. A text that a spreadsheet would run as a formula is quoted with a leading '."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_HEADER)
        for (scope, hub, name), days in sorted(self._cells.items()):
            for day, cell in sorted(days.items()):
                writer.writerow(
                    (
                        scope, _cell_text(hub), _cell_text(label(scope, hub, name)), day.isoformat(), cell.tasks,
                        cell.failed, cell.tokens, cell.tokens_unknown, cell.elapsed_ms, cell.elapsed_unknown,
                    )
                )
        return out.getvalue()


def _cell_text(text: str) -> str:
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def receipts_in(hub: str, seq: int, room: str, agent: str, ts_ms: int, statuses: Iterable[tuple[int, Any]]) -> list[Receipt]:
    """The terminal receipts among a message's task parts: (index among its parts, TaskStatus)."""
    return [
        Receipt(hub, seq, room, agent, task.status, ts_ms, position, task.tokens, task.elapsed_ms)
        for position, task in statuses
        if task.status in TERMINAL
    ]
