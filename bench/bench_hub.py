"""Benchmark the embedded hub: send throughput and fan-out latency, against a no-database floor.

Run: .venv/bin/python bench/bench_hub.py [--seconds 3] [--agents 10] [--subscribers 100]

The hub runs in its own process (as it does for real clients) with rate limits relaxed; the
agents are plain WebSocket clients speaking raw JSON in this process. The same measurements run
first against a *floor*: a websockets server in its own process that answers the same frames and
fans deliveries out with websockets' ``broadcast``, but checks nothing and stores nothing. The
hub's figures are given as a ratio to it. The hub runs on the event loop the app's hub runs on
(uvloop where installed, ``hub/event_loop.py``), the floor on asyncio's own unless
``--floor-on-hub-loop`` (the output's second line names both). Figures:

- baseline: protocol ``ping`` round trips per second on one connection (each one is also a
  committed presence write, so it measures socket + frame + database-thread overhead);
- sends per second with N agents sending concurrently, each waiting for ``sent`` before its next
  message (durable: every ``sent`` follows a commit);
- fan-out latency, send → ``delivery`` at a subscriber, p50/p99 in ms, both idle (one message at
  a time) and under that full send load;
- the same send load and idle fan-out with ``--subscribers`` more subscribed members;
- the server process's CPU time per send under that load (user + system, every thread), the
  figure to judge a change by: unlike sends/s it hardly moves with other load on the machine.

Targets: sends/s ≥ 0.6× the floor; fan-out in the low milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import itertools
import json
import multiprocessing
import os
import tempfile
import time
import uuid
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

from parler_desktop.hub.event_loop import HUB_LOOP_NAME, run_hub_loop
from parler_desktop.identity import Identity


def run_hub(db_dir: str, url_pipe, stop_event, relaxed: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Child process: serve until told to stop (``relaxed``: rate budgets too large to matter),
    on the event loop the app's hub runs on."""
    from parler_desktop.hub import Hub, HubConfig, HubLimits

    async def serve() -> None:
        limits = HubLimits().relaxed() if relaxed else HubLimits()
        hub = Hub(HubConfig(db_path=Path(db_dir) / "hub.sqlite3", port=0, limits=limits))
        await hub.start()
        url_pipe.send(hub.url)
        await asyncio.to_thread(stop_event.wait)
        await hub.stop()

    run_hub_loop(serve())


def run_floor(_db_dir: str, url_pipe, stop_event, on_hub_loop: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Child process: the floor — the hub's replies and fan-out over websockets, nothing else;
    on asyncio's loop, or (``on_hub_loop``) on the hub's."""
    subscribed: set[ServerConnection] = set()
    seqs = itertools.count(1)

    def answer(ws: ServerConnection, frame: dict) -> dict:
        op = frame["op"]
        if op == "hello":
            return {"type": "welcome", "id": frame["id"]} if "nonce" in frame else {"type": "challenge", "nonce": uuid.uuid4().hex}
        if op == "invite":
            return {"type": "invited", "code": uuid.uuid4().hex, "room": frame["room"]}
        if op == "redeem":
            return {"type": "joined", "room": "bench"}
        if op == "subscribe":
            subscribed.add(ws)
            return {"type": "subscribed"}
        if op == "send":
            seq = next(seqs)
            message = {"seq": seq, "id": str(uuid.uuid4()), "room": frame["target"]["room"],
                       "from": {"id": "U", "name": "agent"}, "parts": frame["parts"], "ts": int(time.time() * 1000)}
            broadcast([other for other in subscribed if other is not ws], json.dumps({"type": "delivery", "message": message}))
            return {"type": "sent", "id": message["id"], "seq": seq, "room": message["room"]}
        return {"type": "pong"}

    async def handle(ws: ServerConnection) -> None:
        try:
            async for text in ws:
                await ws.send(json.dumps(answer(ws, json.loads(text))))
        finally:
            subscribed.discard(ws)

    async def main() -> None:
        async with serve(handle, "127.0.0.1", 0, ping_interval=None, compression=None, max_queue=64) as server:
            port = server.sockets[0].getsockname()[1]
            url_pipe.send(f"ws://127.0.0.1:{port}/ws")
            await asyncio.to_thread(stop_event.wait)

    (run_hub_loop if on_hub_loop else asyncio.run)(main())


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

    def discard_everything(self) -> None:
        """From now on read frames without decoding them (a cheap crowd member)."""
        self._reader.cancel()

        async def discard() -> None:
            while True:
                await self.ws.recv(decode=False)

        self._reader = asyncio.create_task(discard())

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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used, every thread (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Bench:
    """The agents of one server (the hub or the floor): senders, a subscriber, a crowd of them."""

    def __init__(self, url: str, pid: int) -> None:
        self.url = url
        self.pid = pid
        self.agents: list[Agent] = []

    async def join(self, name: str, code: str, *, subscribe: bool = False) -> Agent:
        agent = await Agent.connect(self.url, name)
        await agent.request({"op": "redeem", "code": code})
        if subscribe:
            await agent.request({"op": "subscribe"})
        self.agents.append(agent)
        return agent

    async def setup(self, senders: int, crowd: int) -> None:
        self.owner = await Agent.connect(self.url, "owner")
        self.agents.append(self.owner)
        code = (await self.owner.request({"op": "invite", "kind": "channel", "room": "bench", "maxUses": 1000}))["code"]
        self.senders = [await self.join(f"sender-{i}", code) for i in range(senders)]
        self.subscriber = await self.join("subscriber", code, subscribe=True)
        self.code = code
        self.crowd_size = crowd

    async def add_crowd(self) -> None:
        """Subscribers that read every frame but decode none (so the hub's fan-out, not this
        process, is what limits), then one ordinary subscriber last in line."""
        for i in range(self.crowd_size - 1):
            watcher = await self.join(f"watcher-{i}", self.code, subscribe=True)
            watcher.discard_everything()
        self.crowd_last = await self.join("watcher-last", self.code, subscribe=True)

    async def close(self) -> None:
        for agent in self.agents:
            await agent.close()


async def measured_sends(bench: Bench, seconds: float) -> tuple[float, float]:
    """The send rate, and the server's CPU time per send while it lasted."""
    cpu_before = cpu_seconds(bench.pid)
    rate, count = await send_rate(bench.senders, "bench", seconds)
    return rate, (cpu_seconds(bench.pid) - cpu_before) / count * 1e6


async def round_of(bench: Bench, seconds: float, crowded: bool) -> dict[str, float]:
    """One measuring round: ping rate, idle fan-out, send rate (with the crowd: the last two)."""
    if crowded:
        idle = await idle_fanout(bench.senders[0], bench.crowd_last, "bench", 50)
        sends, cpu = await measured_sends(bench, seconds)
        return {f"sends/s, {bench.crowd_size} more subscribers": sends,
                f"server CPU µs/send, {bench.crowd_size} more subscribers": cpu,
                f"fan-out idle p50 ms, {bench.crowd_size} more subscribers": percentile(idle, 0.5) * 1000}
    figures = {"ping round trips/s": await ping_rate(bench.owner, seconds)}
    idle = await idle_fanout(bench.senders[0], bench.subscriber, "bench", 100)
    bench.subscriber.delivery_latencies.clear()
    figures["sends/s"], figures["server CPU µs/send"] = await measured_sends(bench, seconds)
    loaded = list(bench.subscriber.delivery_latencies)
    return figures | {"fan-out idle p50 ms": percentile(idle, 0.5) * 1000, "fan-out idle p99 ms": percentile(idle, 0.99) * 1000,
                      "fan-out loaded p50 ms": percentile(loaded, 0.5) * 1000, "fan-out loaded p99 ms": percentile(loaded, 0.99) * 1000}


def best(rounds: list[dict[str, float]]) -> dict[str, float]:
    """Per figure, the best round (other load on the machine only ever makes a round worse)."""
    return {name: (max if name.endswith("/s") or "/s," in name else min)(r[name] for r in rounds) for name in rounds[0]}


async def measure(servers: dict[str, tuple[str, int]], agents: int, seconds: float, crowd: int, rounds: int) -> dict[str, dict[str, float]]:
    """Alternate short rounds between the servers, so both see the same machine."""
    benches = {name: Bench(url, pid) for name, (url, pid) in servers.items()}
    for bench in benches.values():
        await bench.setup(agents, crowd)
        await ping_rate(bench.owner, 0.3)  # warm up
    results: dict[str, list[dict[str, float]]] = {name: [] for name in benches}
    for crowded in (False, True) if crowd else (False,):
        if crowded:
            for bench in benches.values():
                await bench.add_crowd()
        for _ in range(rounds):
            for name, bench in benches.items():
                results[name].append(await round_of(bench, seconds, crowded))
    for bench in benches.values():
        await bench.close()
    merged: dict[str, dict[str, float]] = {}
    for name, runs in results.items():
        merged[name] = best([r for r in runs if "ping round trips/s" in r]) | (
            best([r for r in runs if "ping round trips/s" not in r]) if crowd else {})
    return merged


def start_child(target, db_dir: str, context):  # type: ignore[no-untyped-def]
    receiver, sender = context.Pipe(duplex=False)
    stop = context.Event()
    child = context.Process(target=target, args=(db_dir, sender, stop), daemon=True)
    child.start()
    if not receiver.poll(30):
        raise SystemExit("the server did not start")
    return child, stop, receiver.recv()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one rate measurement")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per server (the best counts)")
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--subscribers", type=int, default=100)
    parser.add_argument("--floor-on-hub-loop", action="store_true",
                        help="run the floor on the hub's event loop too (like for like), not asyncio's")
    args = parser.parse_args()
    context = multiprocessing.get_context("spawn")
    floor = functools.partial(run_floor, on_hub_loop=args.floor_on_hub_loop)
    with tempfile.TemporaryDirectory() as db_dir:
        children = {name: start_child(target, db_dir, context) for name, target in (("floor", floor), ("hub", run_hub))}
        try:
            servers = {name: (url, child.pid) for name, (child, _, url) in children.items()}
            figures = asyncio.run(measure(servers, args.agents, args.seconds, args.subscribers, args.rounds))
        finally:
            for child, stop, _ in children.values():
                stop.set()
                child.join(15)
    floor, hub = figures["floor"], figures["hub"]
    print(f"{args.agents} sending agents, 1 subscriber (then {args.subscribers} more); best of {args.rounds} alternating rounds")
    print(f"event loops: the hub's {HUB_LOOP_NAME}, the floor's {HUB_LOOP_NAME if args.floor_on_hub_loop else 'asyncio'}")
    print(f"{'':44} {'floor':>9} {'hub':>9} {'hub/floor':>9}")
    for name, value in hub.items():
        print(f"{name:44} {floor[name]:9,.2f} {value:9,.2f} {value / floor[name]:9.2f}")


def with_hub_process(work: Callable[[str], Coroutine[Any, Any, None]], relaxed: bool = True) -> None:
    """Run a hub in a child process (``relaxed`` rate budgets, or the reference ones) and
    ``asyncio.run(work(url))`` against it; the hub stops afterwards."""
    with tempfile.TemporaryDirectory() as db_dir:
        child, stop, url = start_child(functools.partial(run_hub, relaxed=relaxed), db_dir, multiprocessing.get_context("spawn"))
        try:
            asyncio.run(work(url))
        finally:
            stop.set()
            child.join(15)


if __name__ == "__main__":
    main()
