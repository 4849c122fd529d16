"""CostTotals: tokens and time from terminal task receipts, per agent, room, hub and day; a
receipt without figures is a task of unknown cost, never a zero; CSV export."""

from __future__ import annotations

import csv
import datetime
import io
import time

from parler_desktop.app.agents.cost_totals import CostTotals, Receipt

TODAY = datetime.date(2026, 12, 7)


def at(day: datetime.date, hour: int = 12) -> int:
    return int(time.mktime(datetime.datetime(day.year, day.month, day.day, hour).timetuple()) * 1000)


def receipt(seq: int, status: str = "done", *, agent: str = "a1", room: str = "build", hub: str = "", day: datetime.date = TODAY,
            tokens: int | None = None, elapsed_ms: int | None = None) -> Receipt:
    return Receipt(hub, seq, room, agent, status, at(day), tokens=tokens, elapsed_ms=elapsed_ms)


def test_receipts_without_figures_count_as_tasks_of_unknown_cost():
    costs = CostTotals(today=lambda: TODAY)
    costs.add(receipt(1, tokens=1200, elapsed_ms=60_000))
    costs.add(receipt(2, "failed"))
    costs.add(receipt(3, tokens=300))
    totals = costs.totals("agent", "", "a1")
    assert (totals.tasks, totals.failed, totals.tokens, totals.tokens_unknown) == (3, 1, 1500, 1)
    assert (totals.elapsed_ms, totals.elapsed_unknown) == (60_000, 2)
    assert totals.summary() == "3 tasks, 1 failed (33%) · 1,500 tokens (+1 unknown) · 1 min (+2 unknown)"
    unknown = CostTotals()
    unknown.add(receipt(1, "failed"))
    assert unknown.totals("hub", "").summary() == "1 task, 1 failed (100%) · tokens unknown · time unknown"
    assert totals.short() == "3 tasks · 1,500+? tok"
    assert unknown.totals("hub", "").short() == "1 task · ? tok"  # not "0 tok": unknown is not zero
    assert CostTotals().totals("hub", "").short() == ""


def test_only_terminal_receipts_count_per_agent_room_hub_and_day_and_a_hub_can_be_forgotten():
    costs = CostTotals(today=lambda: TODAY)
    assert not costs.add(receipt(1, "working", tokens=5))
    assert costs.add(receipt(2, tokens=10, room="r1"))
    costs.add(receipt(3, "cancelled", tokens=20, agent="a2", room="r2", day=TODAY - datetime.timedelta(days=3)))
    costs.add(receipt(4, tokens=40, day=TODAY - datetime.timedelta(days=8)))
    costs.add(receipt(4, tokens=80, hub="wss://other"))  # another hub's seq 4
    assert costs.totals("hub", "", "", "today").tokens == 10
    assert costs.totals("hub", "", "", "7 days").tokens == 30
    assert costs.totals("hub", "", "", "all").tokens == 70
    assert costs.totals("agent", "", "a2", "all").tasks == 1
    assert costs.totals("room", "", "r1", "all").tokens == 10
    assert costs.totals("hub", "wss://other").tokens == 80
    assert costs.counted == 4
    costs.forget_hub("")  # its cache is about to be counted again
    assert costs.counted == 1 and costs.totals("hub", "").tasks == 0 and costs.totals("agent", "", "a1").tasks == 0
    assert costs.totals("hub", "wss://other").tokens == 80


def test_the_csv_has_a_row_per_scope_name_and_day_and_defuses_formulas():
    costs = CostTotals(today=lambda: TODAY)
    costs.add(receipt(1, tokens=100, elapsed_ms=2000, room="=HYPERLINK(1)"))
    costs.add(receipt(2, "failed"))
    rows = list(csv.reader(io.StringIO(costs.csv_text(lambda scope, hub, name: name.upper() if scope == "agent" else name))))
    assert rows[0] == ["scope", "hub", "name", "day", "tasks", "failed", "tokens", "tasks without tokens",
                       "elapsed ms", "tasks without elapsed"]
    assert ["agent", "", "A1", "2026-12-07", "2", "1", "100", "1", "2000", "1"] in rows
    assert ["hub", "", "", "2026-12-07", "2", "1", "100", "1", "2000", "1"] in rows
    assert ["room", "", "'=HYPERLINK(1)", "2026-12-07", "1", "0", "100", "0", "2000", "0"] in rows
    assert len(rows) == 1 + 4  # agent, hub, two rooms
