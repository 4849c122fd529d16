"""Benchmark the client session: catch-up of many rooms, restart cost, push latency.

Run: .venv/bin/python bench/bench_client.py [--rooms 200] [--messages 10000]

The hub runs in its own process (relaxed limits, so seeding is quick); the session uses its
default tuning, i.e. it paces itself inside the reference hub's 600 operations/minute. Figures,
each next to a baseline measured in the same run:

- first catch-up of a fresh store (every room paged from 0, cursors learned) vs a bare raw
  client paging the same rooms with ``since`` on one connection (no store, no events);
- a restart on the same store with nothing new: operations spent and time to live (the settled
  unread counts persisted by the first run let it skip every room: rooms + subscribe, was one
  pull per room before);
- a hub restart (kill -9) while 5 of the rooms receive messages: operations spent to catch up;
- push latency, send → MessagesStored, p50/p95, vs send → raw ``delivery`` at a bare subscriber.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect

from parler_desktop.client import HubSession
from parler_desktop.client.events import ConnectionState, MessagesStored, SessionEvent, StateChanged
from parler_desktop.identity import Identity
from parler_desktop.store import StoreWorker


class Raw:
    """A bare agent: one request at a time, deliveries into a queue."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.deliveries: asyncio.Queue[tuple[float, dict]] = asyncio.Queue()
        self.replies: asyncio.Queue[dict] = asyncio.Queue()
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def connect(cls, url: str, identity: Identity, name: str) -> "Raw":
        ws = await connect(url, max_size=None, ping_interval=None, compression=None)
        raw = cls(ws)
        challenge = await raw.ask({"op": "hello", "id": identity.agent_id, "name": name})
        await raw.ask({"op": "hello", "id": identity.agent_id, "name": name, "nonce": challenge["nonce"],
                       "sig": identity.sign(challenge["nonce"].encode())})
        return raw

    async def _read(self) -> None:
        async for text in self.ws:
            frame = json.loads(text)
            if frame["type"] == "delivery":
                self.deliveries.put_nowait((time.perf_counter(), frame["message"]))
            else:
                self.replies.put_nowait(frame)

    async def ask(self, frame: dict) -> dict:
        await self.ws.send(json.dumps(frame))
        reply = await self.replies.get()
        assert reply["type"] != "error", (frame, reply)
        return reply

    async def close(self) -> None:
        self.reader.cancel()
        await self.ws.close()


class Hub:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = 0
        self.process: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "parler_desktop", "--home", str(self.directory / "home"), "hub", "--port",
             str(self.port), "--db", str(self.directory / "hub.sqlite3"), "--relaxed-limits"],
            stdout=subprocess.PIPE, text=True,
        )
        assert self.process.stdout is not None
        self.url = self.process.stdout.readline().strip()
        self.port = int(self.url.rsplit(":", 1)[1].split("/")[0])

    def kill(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


async def seed(url: str, me: Identity, seeder: Identity, rooms: int, messages: int) -> list[str]:
    peer = await Raw.connect(url, seeder, "seeder")
    joiner = await Raw.connect(url, me, "me")
    names = []
    for index in range(rooms):
        invited = await peer.ask({"op": "invite", "kind": "channel", "room": f"room-{index:03d}"})
        await joiner.ask({"op": "redeem", "code": invited["code"]})
        names.append(invited["room"])
    for index in range(messages):
        room = names[(index * index) % rooms]  # uneven: some rooms are much busier
        await peer.ask({"op": "send", "target": {"kind": "room", "room": room},
                        "parts": [{"kind": "text", "text": f"message {index} " + "x" * 80}]})
    await peer.close()
    await joiner.close()
    return names


async def raw_catch_up(url: str, me: Identity, rooms: list[str]) -> tuple[float, int]:
    raw = await Raw.connect(url, me, "me")
    started = time.perf_counter()
    total = 0
    for room in rooms:
        since = 0
        while True:
            page = await raw.ask({"op": "pull", "room": room, "since": since, "limit": 500})
            total += len(page["messages"])
            if len(page["messages"]) < 500:
                break
            since = page["messages"][-1]["seq"]
    elapsed = time.perf_counter() - started
    await raw.close()
    return elapsed, total


async def run_session_until_live(url: str, me: Identity, store_path: Path) -> tuple[HubSession, StoreWorker, float, list[int]]:
    store = StoreWorker(store_path)
    await store.open()
    session = HubSession(url, me, store, name="me")
    live = asyncio.Event()
    stored: list[int] = []

    def on_event(event: SessionEvent) -> None:
        if isinstance(event, StateChanged) and event.state is ConnectionState.LIVE:
            live.set()
        elif isinstance(event, MessagesStored):
            stored.append(len(event.messages))

    session.add_listener(on_event)
    started = time.perf_counter()
    session.start()
    await live.wait()
    return session, store, time.perf_counter() - started, stored


async def push_latency(url: str, session: HubSession, room: str, count: int) -> tuple[list[float], list[float]]:
    peer = await Raw.connect(url, Identity.generate(), "pinger")
    invite = await Raw.connect(url, Identity.generate(), "owner")
    watcher = await Raw.connect(url, Identity.generate(), "watcher")
    invited = await invite.ask({"op": "invite", "kind": "channel", "room": "latency"})
    await peer.ask({"op": "redeem", "code": invited["code"]})
    await watcher.ask({"op": "redeem", "code": invited["code"]})
    await watcher.ask({"op": "subscribe"})
    await session.redeem(invited["code"])
    arrived: asyncio.Queue[float] = asyncio.Queue()
    session.add_listener(lambda e: isinstance(e, MessagesStored) and e.room == "latency" and arrived.put_nowait(time.perf_counter()))
    await asyncio.sleep(1.0)  # let the session settle on the new room
    ours, raw = [], []
    for index in range(count):
        sent_at = time.perf_counter()
        await peer.ask({"op": "send", "target": {"kind": "room", "room": "latency"}, "parts": [{"kind": "text", "text": str(index)}]})
        ours.append((await arrived.get()) - sent_at)
        raw.append((await watcher.deliveries.get())[0] - sent_at)
    for agent in (peer, invite, watcher):
        await agent.close()
    return ours, raw


def ms(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100)[int(q) - 1] * 1000


async def main(rooms: int, messages: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        hub = Hub(Path(directory))
        hub.start()
        me, seeder = Identity.generate(), Identity.generate()
        try:
            names = await seed(hub.url, me, seeder, rooms, messages)
            raw_secs, raw_count = await raw_catch_up(hub.url, me, names)
            store_path = Path(directory) / "client.sqlite3"
            session, store, first_secs, stored = await run_session_until_live(hub.url, me, store_path)
            first_ops = session.requests_sent
            await session.stop()
            await store.close()
            print(f"first catch-up: {sum(stored)} messages in {rooms} rooms, {first_secs:.2f} s, {first_ops} ops "
                  f"(raw since-pull baseline {raw_count} messages in {raw_secs:.2f} s: ratio {first_secs / raw_secs:.1f}×)")

            session, store, restart_secs, stored = await run_session_until_live(hub.url, me, store_path)
            print(f"restart, nothing new: {restart_secs:.2f} s to live, {session.requests_sent} ops, "
                  f"{sum(stored)} messages re-announced")

            before = session.requests_sent
            fresh: list[int] = []
            session.add_listener(lambda e: isinstance(e, MessagesStored) and fresh.append(len(e.messages)))
            hub.kill()
            started = time.perf_counter()
            hub.start()
            writer = await Raw.connect(hub.url, seeder, "seeder")
            for room in names[:5]:
                await writer.ask({"op": "send", "target": {"kind": "room", "room": room},
                                  "parts": [{"kind": "text", "text": "after the restart"}]})
            await writer.close()
            while sum(fresh) < 5:
                await asyncio.sleep(0.01)
            print(f"hub killed and restarted, 5 rooms changed: all stored {time.perf_counter() - started:.2f} s "
                  f"after the kill, {session.requests_sent - before} ops for {rooms} rooms")

            ours, raw = await push_latency(hub.url, session, "latency", 200)
            print(f"push latency p50/p95: session {ms(ours, 50):.1f}/{ms(ours, 95):.1f} ms, "
                  f"raw subscriber {ms(raw, 50):.1f}/{ms(raw, 95):.1f} ms")
            await session.stop()
            await store.close()
        finally:
            hub.kill()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--messages", type=int, default=10_000)
    options = parser.parse_args()
    asyncio.run(main(options.rooms, options.messages))
