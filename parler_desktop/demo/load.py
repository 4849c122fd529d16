"""The demo as a load generator: ``--agents`` agents post into ``--rooms`` rooms at ``--rate``
messages per second in all, through the real hub and protocol, and report what they achieved.

Each agent has its own connection (one request in flight, as every client) and its own share of
the rate, kept on an absolute schedule so a slow reply makes the next post come sooner rather
than lowering the rate; a post that is late anyway is counted. Every fifth message carries
Markdown with code and every seventh a task status, like real agent traffic.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from dataclasses import dataclass, field

from parler_desktop.demo.agent import DemoAgent
from parler_desktop.demo.director import Admit, close_all, connect_all, open_rooms
from parler_desktop.identity import Identity


@dataclass
class LoadReport:
    sent: int = 0
    late: int = 0  # posts that started behind their schedule
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)  # send → sent, seconds

    @property
    def rate(self) -> float:
        return self.sent / self.elapsed if self.elapsed else 0.0

    def summary(self) -> str:
        if not self.latencies:
            return "sent nothing"
        ordered = sorted(self.latencies)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        return (
            f"sent {self.sent} messages in {self.elapsed:.1f} s ({self.rate:.1f}/s, {self.late} late); "
            f"send→sent median {statistics.median(ordered) * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms"
        )


def message(index: int, agent: str) -> tuple[str, str | None]:
    """The text of post ``index`` and a task status (or None)."""
    if index % 5 == 0:
        return f"**step {index}** from {agent}:\n\n```python\nresult = run_step({index})\nassert result.ok\n```", None
    if index % 7 == 0:
        return f"step {index} finished", "done"
    return f"{agent}: working on step {index}", None


async def _post_steadily(agent: DemoAgent, rooms: list[str], interval: float, until: float, report: LoadReport) -> None:
    due = time.monotonic()
    index = 0
    while due < until:
        now = time.monotonic()
        if now < due:
            await asyncio.sleep(due - now)
        elif now - due > interval:
            report.late += 1
        room = rooms[index % len(rooms)]
        text, status = message(index, agent.name)
        started = time.monotonic()
        if status is None:
            await agent.post(room, text)
        else:
            await agent.task(room, f"step-{index}", status, None, text)
        report.latencies.append(time.monotonic() - started)
        report.sent += 1
        index += 1
        due += interval


async def run_load(
    url: str, admit: Admit, *, rooms: int, agents: int, rate: float, duration: float, join_secret: str | None = None
) -> LoadReport:
    if rooms < 1 or agents < 1 or rate <= 0 or duration <= 0:
        raise ValueError("--rooms, --agents, --rate and --duration must be positive")
    cast = tuple((f"load-agent-{n}", "worker") for n in range(1, agents + 1))
    run = secrets.token_hex(2)  # fresh agents each run: rooms of an earlier run are not theirs
    room_names = [f"load-{run}-{n}" for n in range(1, rooms + 1)]
    connected = await connect_all(url, cast, lambda _name: Identity.generate(), join_secret)
    try:
        everyone = tuple(name for name, _ in cast)
        await open_rooms(connected, {room: everyone for room in room_names}, admit)
        report = LoadReport()
        started = time.monotonic()
        interval = agents / rate
        await asyncio.gather(*(
            _post_steadily(agent, room_names[i % rooms:] + room_names[: i % rooms], interval, started + duration, report)
            for i, agent in enumerate(connected.values())
        ))
        report.elapsed = time.monotonic() - started
        return report
    finally:
        await close_all(connected)
