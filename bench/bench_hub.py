"""Benchmark the embedded hub: send throughput, fan-out latency, against a ping baseline.

Run: /work/venv/bin/python bench/bench_hub.py [--seconds 3] [--agents 10]

The hub runs in its own process (as it does for real clients) with rate limits relaxed; the
agents are plain WebSocket clients speaking raw JSON in this process. Figures:

- baseline: protocol ``ping`` round trips per second on one connection (each one is also a
  committed presence write, so it measures socket + frame + database-thread overhead);
- sends per second with N agents sending concurrently, each waiting for ``sent`` before its next
  message (durable: every ``sent`` follows a commit);
- fan-out latency, send → ``delivery`` at a subscriber, p50/p99 in ms, both idle (one message at
  a time) and under that full send load.

Targets: ≥ 2,000 sends/s on a 2-core machine; fan-out in the low milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import statistics
import tempfile
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect

from parler_desktop.identity import Identity


def run_hub(db_dir: str, url_pipe, stop_event, relaxed: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Child process: serve until told to stop (``relaxed``: rate budgets too large to matter)."""
    from parler_desktop.hub import Hub, HubConfig, HubLimits

    async def serve() -> None:
        limits = HubLimits().relaxed() if relaxed else HubLimits()
        hub = Hub(HubConfig(db_path=Path(db_dir) / "hub.sqlite3", port=0, limits=limits))
        await hub.start()
        url_pipe.send(hub.url)
        await asyncio.to_thread(stop_event.wait)
        await hub.stop()

    asyncio.run(serve())


class Agent:
    """A raw JSON agent: one request in flight, deliveries timestamped on arrival."""

    def __init__(self, ws: ClientConnection, identity: Identity) -> None:
        self.ws = ws
        self.identity = identity
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.delivery_latencies: list[float] = []
        self.arrivals: asyncio.Queue[tuple[str, float]] | None = None  # set while measuring idle fan-out
        self.pushed: asyncio.Queue[dict] = asyncio.Queue()  # every delivered message
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, url: str, name: str) -> "Agent":
        ws = await connect(url, max_size=None, ping_interval=None, compression=None)
        agent = cls(ws, Identity.generate())
        challenge = await agent.request({"op": "hello", "id": agent.identity.agent_id, "name": name})
        nonce = challenge["nonce"]
        welcome = await agent.request(
            {"op": "hello", "id": agent.identity.agent_id, "name": name, "nonce": nonce,
             "sig": agent.identity.sign(nonce.encode())}
        )
        assert welcome["type"] == "welcome", welcome
        return agent

    async def _read(self) -> None:
        async for text in self.ws:
            arrived = time.perf_counter()
            frame = json.loads(text)
            if frame["type"] == "delivery":
                self.pushed.put_nowait(frame["message"])
                body = frame["message"]["parts"][0].get("text", "")
                if "@" not in body:
                    continue  # not one of ours: nothing to time
                sent_at = float(body.split("@", 1)[1])
                self.delivery_latencies.append(arrived - sent_at)
                if self.arrivals is not None:
                    self.arrivals.put_nowait((body, arrived))
            else:
                self.replies.put_nowait(frame)

    async def answer(self, frame: dict) -> dict:
        """The hub's reply, an error frame included."""
        await self.ws.send(json.dumps(frame))
        return await self.replies.get()

    async def request(self, frame: dict) -> dict:
        reply = await self.answer(frame)
        if reply["type"] == "error":
            raise RuntimeError(f"{frame['op']}: {reply}")
        return reply

    async def say(self, room: str, label: str) -> dict:
        return await self.request(
            {"op": "send", "target": {"kind": "room", "room": room},
             "parts": [{"kind": "text", "text": f"{label}@{time.perf_counter()!r}"}]}
        )

    async def close(self) -> None:
        await self.ws.close()
        self._reader.cancel()


async def ping_rate(agent: Agent, seconds: float) -> float:
    count, deadline = 0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        await agent.request({"op": "ping"})
        count += 1
    return count / seconds


async def send_rate(senders: list[Agent], room: str, seconds: float) -> tuple[float, int]:
    deadline = time.perf_counter() + seconds

    async def loop(agent: Agent, index: int) -> int:
        count = 0
        while time.perf_counter() < deadline:
            await agent.say(room, f"load-{index}-{count}")
            count += 1
        return count

    started = time.perf_counter()
    counts = await asyncio.gather(*(loop(agent, i) for i, agent in enumerate(senders)))
    return sum(counts) / (time.perf_counter() - started), sum(counts)


async def idle_fanout(sender: Agent, subscriber: Agent, room: str, messages: int) -> list[float]:
    """One message at a time: the time from handing it to the socket to its delivery."""
    subscriber.arrivals = asyncio.Queue()
    latencies = []
    for i in range(messages):
        label = f"idle-{i}@"
        sent_at = time.perf_counter()
        await sender.say(room, label[:-1])
        while True:
            body, arrived = await subscriber.arrivals.get()
            if body.startswith(label):
                break
        latencies.append(arrived - sent_at)
    subscriber.arrivals = None
    return latencies


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def measure(url: str, agents: int, seconds: float) -> None:
    owner = await Agent.connect(url, "owner")
    invited = await owner.request({"op": "invite", "kind": "channel", "room": "bench", "maxUses": 1000})
    senders = [await Agent.connect(url, f"sender-{i}") for i in range(agents)]
    subscriber = await Agent.connect(url, "subscriber")
    for agent in (*senders, subscriber):
        await agent.request({"op": "redeem", "code": invited["code"]})
    await subscriber.request({"op": "subscribe"})

    await ping_rate(owner, 0.5)  # warm up
    pings = await ping_rate(owner, seconds)
    idle = await idle_fanout(senders[0], subscriber, "bench", 300)
    subscriber.delivery_latencies.clear()
    sends, total = await send_rate(senders, "bench", seconds)
    loaded = list(subscriber.delivery_latencies)

    ms = 1000.0
    print(f"baseline: {pings:,.0f} ping round trips/s on one connection")
    print(f"sends: {sends:,.0f}/s with {agents} agents ({total:,} durable sends in {seconds:.0f} s)"
          f" = {sends / pings:.2f} x the ping baseline")
    print(f"fan-out idle:    p50 {percentile(idle, 0.5) * ms:.2f} ms, p99 {percentile(idle, 0.99) * ms:.2f} ms"
          f" ({len(idle)} messages); p50 = {percentile(idle, 0.5) * pings:.2f} x a ping round trip")
    if loaded:
        print(f"fan-out loaded:  p50 {percentile(loaded, 0.5) * ms:.2f} ms, p99 {percentile(loaded, 0.99) * ms:.2f} ms"
              f" ({len(loaded)} deliveries during the send run; mean {statistics.mean(loaded) * ms:.2f} ms)")
    for agent in (owner, *senders, subscriber):
        await agent.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--agents", type=int, default=10)
    args = parser.parse_args()
    with_hub_process(lambda url: measure(url, args.agents, args.seconds))


def with_hub_process(work: Callable[[str], Coroutine[Any, Any, None]], relaxed: bool = True) -> None:
    """Run a hub in a child process (``relaxed`` rate budgets, or the reference ones) and
    ``asyncio.run(work(url))`` against it; the hub stops afterwards."""
    context = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as db_dir:
        receiver, sender = context.Pipe(duplex=False)
        stop = context.Event()
        hub = context.Process(target=run_hub, args=(db_dir, sender, stop, relaxed), daemon=True)
        hub.start()
        try:
            if not receiver.poll(30):
                raise SystemExit("hub did not start")
            asyncio.run(work(receiver.recv()))
        finally:
            stop.set()
            hub.join(15)


if __name__ == "__main__":
    main()
