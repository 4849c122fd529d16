"""Benchmark the demo's load generator against the embedded hub: can it hold its rate, and what
does a send cost under load, against a light-load baseline measured in the same run.

Run: .venv/bin/python bench/bench_demo_load.py [--seconds 3] [--rate 400] [--rooms 20] [--agents 8]

The hub runs in-process on its own thread (as the window runs it) with rate limits relaxed; the
agents are the demo's (``parler_desktop.demo``: signed posts through the client's connection),
and one more agent, the "supervisor", is let into every room, so every message is also pushed.
Figures: achieved/requested rate, late posts, send→sent latency p50/p99, and the loaded latency
as a ratio to the baseline's (the same command as ``parler-desktop demo --no-window --rate N``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
from pathlib import Path

from bench_hub import percentile
from parler_desktop.demo.agent import DemoAgent
from parler_desktop.demo.load import LoadReport, run_load
from parler_desktop.hub import EmbeddedHub, HubConfig, HubLimits
from parler_desktop.identity import Identity


async def measure(url: str, rate: float, rooms: int, agents: int, seconds: float) -> LoadReport:
    supervisor = await DemoAgent.connect(url, "supervisor", "supervisor", Identity.generate())
    try:
        await supervisor.subscribe()
        return await run_load(url, lambda link: supervisor.join(link.rsplit("/", 1)[-1]), rooms=rooms, agents=agents, rate=rate, duration=seconds)
    finally:
        await supervisor.close()


def line(name: str, report: LoadReport, rate: float) -> str:
    return (
        f"{name:<9} asked {rate:>6.0f}/s  got {report.rate:>7.1f}/s ({report.rate / rate:.2f})  late {report.late:>4}  "
        f"send→sent p50 {percentile(report.latencies, 0.5) * 1000:5.1f} ms  p99 {percentile(report.latencies, 0.99) * 1000:6.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rate", type=float, default=400.0)
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--agents", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        hub = EmbeddedHub(HubConfig(db_path=Path(scratch) / "hub.sqlite3", port=0, limits=HubLimits().relaxed()))
        url = hub.start()
        try:
            baseline = asyncio.run(measure(url, 10.0, 2, 2, args.seconds))
            loaded = asyncio.run(measure(url, args.rate, args.rooms, args.agents, args.seconds))
        finally:
            hub.stop()
    print(line("baseline", baseline, 10.0))
    print(line("loaded", loaded, args.rate))
    ratio = statistics.median(loaded.latencies) / statistics.median(baseline.latencies)
    print(f"loaded/baseline median send→sent: {ratio:.2f}x with {args.agents} agents in {args.rooms} rooms")


if __name__ == "__main__":
    main()
