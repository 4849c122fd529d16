"""Benchmark the embedded hub: send throughput and fan-out latency, against a no-database floor.

Run: /work/venv/bin/python bench/bench_hub.py [--seconds 3] [--agents 10] [--subscribers 100]

The hub runs in its own process (as it does for real clients) with rate limits relaxed; the
agents are plain WebSocket clients speaking raw JSON in this process. The same measurements run
first against a *floor*: a websockets server in its own process that answers the same frames and
fans deliveries out with websockets' ``broadcast``, but checks nothing and stores nothing. The
hub's figures are given as a ratio to it. Figures:

- baseline: protocol ``ping`` round trips per second on one connection (each one is also a
  committed presence write, so it measures socket + frame + database-thread overhead);
- sends per second with N agents sending concurrently, each waiting for ``sent`` before its next
  message (durable: every ``sent`` follows a commit);
- fan-out latency, send → ``delivery`` at a subscriber, p50/p99 in ms, both idle (one message at
  a time) and under that full send load;
- the same send load and idle fan-out with ``--subscribers`` more subscribed members.

Targets: sends/s ≥ 0.6× the floor; fan-out in the low milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import statistics
import tempfile
import time
import uuid
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.asyncio.server import ServerConnection, broadcast, serve

from parler_desktop.identity import Identity


def run_hub(db_dir: str, url_pipe, stop_event) -> None:  # type: ignore[no-untyped-def]
    """Child process: serve until told to stop."""
    from parler_desktop.hub import Hub, HubConfig, HubLimits

    async def serve() -> None:
        hub = Hub(HubConfig(db_path=Path(db_dir) / "hub.sqlite3", port=0, limits=HubLimits().relaxed()))
        await hub.start()
        url_pipe.send(hub.url)
        await asyncio.to_thread(stop_event.wait)
        await hub.stop()

    asyncio.run(serve())


def run_floor(_db_dir: str, url_pipe, stop_event) -> None:  # type: ignore[no-untyped-def]
    """Child process: the floor — the hub's replies and fan-out over websockets, nothing else."""
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

    asyncio.run(main())


class Agent:
    """A raw JSON agent: one request in flight, deliveries timestamped on arrival."""

    def __init__(self, ws: ClientConnection, identity: Identity) -> None:
        self.ws = ws
        self.identity = identity
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.delivery_latencies: list[float] = []
        self.arrivals: asyncio.Queue[tuple[str, float]] | None = None  # set while measuring idle fan-out
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
                body = frame["message"]["parts"][0]["text"]
                sent_at = float(body.split("@", 1)[1])
                self.delivery_latencies.append(arrived - sent_at)
                if self.arrivals is not None:
                    self.arrivals.put_nowait((body, arrived))
            else:
                self.replies.put_nowait(frame)

    async def request(self, frame: dict) -> dict:
        await self.ws.send(json.dumps(frame))
        reply = await self.replies.get()
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


async def measure(url: str, agents: int, seconds: float, crowd_size: int) -> dict[str, float]:
    owner = await Agent.connect(url, "owner")
    invited = await owner.request({"op": "invite", "kind": "channel", "room": "bench", "maxUses": 1000})
    senders = [await Agent.connect(url, f"sender-{i}") for i in range(agents)]
    subscriber = await Agent.connect(url, "subscriber")
    for agent in (*senders, subscriber):
        await agent.request({"op": "redeem", "code": invited["code"]})
    await subscriber.request({"op": "subscribe"})

    await ping_rate(owner, 0.5)  # warm up
    figures = {"ping round trips/s": await ping_rate(owner, seconds)}
    idle = await idle_fanout(senders[0], subscriber, "bench", 300)
    subscriber.delivery_latencies.clear()
    figures["sends/s"], _ = await send_rate(senders, "bench", seconds)
    loaded = list(subscriber.delivery_latencies)
    figures |= {"fan-out idle p50 ms": percentile(idle, 0.5) * 1000, "fan-out idle p99 ms": percentile(idle, 0.99) * 1000,
                "fan-out loaded p50 ms": percentile(loaded, 0.5) * 1000, "fan-out loaded p99 ms": percentile(loaded, 0.99) * 1000}

    crowd = [await Agent.connect(url, f"watcher-{i}") for i in range(crowd_size)]
    for agent in crowd:
        await agent.request({"op": "redeem", "code": invited["code"]})
        await agent.request({"op": "subscribe"})
    if crowd:
        idle = await idle_fanout(senders[0], crowd[-1], "bench", 100)
        figures[f"sends/s, {crowd_size} more subscribers"], _ = await send_rate(senders, "bench", seconds)
        figures[f"fan-out idle p50 ms, {crowd_size} more subscribers"] = percentile(idle, 0.5) * 1000
    for agent in (owner, *senders, subscriber, *crowd):
        await agent.close()
    return figures


def run_in_child(target, db_dir: str, measuring) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Start ``target`` (the hub or the floor) in a process, measure it, stop it."""
    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    stop = context.Event()
    child = context.Process(target=target, args=(db_dir, sender, stop), daemon=True)
    child.start()
    try:
        if not receiver.poll(30):
            raise SystemExit("the server did not start")
        return asyncio.run(measuring(receiver.recv()))
    finally:
        stop.set()
        child.join(15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--agents", type=int, default=10)
    parser.add_argument("--subscribers", type=int, default=100)
    args = parser.parse_args()

    def measuring(url: str):  # type: ignore[no-untyped-def]
        return measure(url, args.agents, args.seconds, args.subscribers)

    with tempfile.TemporaryDirectory() as db_dir:
        floor = run_in_child(run_floor, db_dir, measuring)
        hub = run_in_child(run_hub, db_dir, measuring)
    print(f"{args.agents} sending agents, 1 subscriber (then {args.subscribers} more); {args.seconds:g} s per rate")
    print(f"{'':44} {'floor':>9} {'hub':>9} {'hub/floor':>9}")
    for name, value in hub.items():
        print(f"{name:44} {floor[name]:9,.2f} {value:9,.2f} {value / floor[name]:9.2f}")


if __name__ == "__main__":
    main()
