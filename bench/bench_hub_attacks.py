"""Raw-socket attacks on the hub (reference limits, in its own process), with legitimate agents
served throughout; prints what each attack got and what the agents saw meanwhile.

Run: .venv/bin/python bench/bench_hub_attacks.py [--sockets 1100] [--seconds 135]
(``PYTHONPATH=/path/to/other/checkout`` runs the same attacks against another version.)

1. Handshake holders: ``--sockets`` WebSockets from one address (127.0.0.2), opened 540 a
   minute (under the hub's per-address HTTP budget), that never authenticate and send a junk
   frame every 8 s, for ``--seconds`` in all. Figures: how many the hub served, how many it
   refused at the door, how long the served ones lived; meanwhile, from 127.0.0.1, a new agent
   connects and authenticates every 0.25 s (joined / refused) and a sender→subscriber pair
   exchanges messages (sent, delivered, p50/p99 send→delivery latency).
2. Deep nesting: a ``data`` part nested 500 levels, then one at the deepest level the reference
   parser accepts: the reply, and what a subscriber and a pull saw.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench_hub import Agent, percentile, with_hub_process

ATTACKER = "127.0.0.2"
TRY_AGAIN_LATER = 1013  # the close code of a hub at capacity
ATTACKS_PER_MINUTE = 540  # the hub answers HTTP 429 beyond 600 upgrades a minute from one address
JUNK_EVERY_SECS = 8.0


async def hold_unauthenticated(url: str, until: float, outcome: dict[str, list[float]]) -> None:
    """One attacking socket: junk every 8 s until the hub closes it or the run ends."""
    opened = time.monotonic()
    try:
        ws = await connect(url, local_addr=(ATTACKER, 0), ping_interval=None, open_timeout=30)
    except (InvalidStatus, OSError, TimeoutError):
        outcome["failed to open"].append(0.0)
        return
    try:
        await ws.send(json.dumps({"op": "junk"}))
        while time.monotonic() < until:
            try:
                reply = json.loads(await asyncio.wait_for(ws.recv(), JUNK_EVERY_SECS))
            except TimeoutError:
                await ws.send(json.dumps({"op": "junk"}))
                continue
            if reply.get("code") == "at_capacity":
                outcome["refused at the door"].append(0.0)
                return
            if reply.get("code") != "bad_frame":  # the hub's "handshake timed out"
                await ws.wait_closed()
                outcome["served, then closed by the hub after"].append(time.monotonic() - opened)
                return
        outcome["served, still open at the end"].append(time.monotonic() - opened)
    except ConnectionClosed as closed:
        refused = closed.rcvd is not None and closed.rcvd.code == TRY_AGAIN_LATER
        label = "refused at the door" if refused else "served, then closed by the hub after"
        outcome[label].append(0.0 if refused else time.monotonic() - opened)
    finally:
        await ws.close()


async def newcomers(url: str, until: float) -> tuple[int, int, list[float], float | None]:
    """A new agent every 0.25 s: how many got in, how many were refused, handshake times, and
    how far into the run the first refusal came."""
    joined = refused = 0
    latencies: list[float] = []
    start = time.monotonic()
    first_refusal: float | None = None
    while time.monotonic() < until:
        started = time.monotonic()
        try:
            agent = await Agent.connect(url, "newcomer")
            latencies.append(time.monotonic() - started)
            joined += 1
            await agent.close()
        except Exception:
            refused += 1
            if first_refusal is None:
                first_refusal = started - start
        await asyncio.sleep(0.25)
    return joined, refused, latencies, first_refusal


async def conversation(sender: Agent, subscriber: Agent, room: str, until: float) -> tuple[int, int, list[float]]:
    """Three messages a second (inside the reference budget of 240 a minute); latencies are send→delivery."""
    sent = failed = 0
    while time.monotonic() < until:
        try:
            await sender.say(room, f"m{sent}")
            sent += 1
        except RuntimeError:
            failed += 1
        await asyncio.sleep(0.3)
    await asyncio.sleep(0.5)  # the last deliveries land
    return sent, failed, subscriber.delivery_latencies


async def handshake_holders(url: str, sockets: int, seconds: float) -> None:
    alice = await Agent.connect(url, "alice")
    bob = await Agent.connect(url, "bob")
    invited = await alice.request({"op": "invite", "kind": "channel", "room": "attack-watch"})
    await bob.request({"op": "redeem", "code": invited["code"]})
    await bob.request({"op": "subscribe"})
    until = time.monotonic() + seconds
    outcome: dict[str, list[float]] = {
        "refused at the door": [], "served, then closed by the hub after": [], "served, still open at the end": [],
        "failed to open": [],
    }
    talk = asyncio.create_task(conversation(alice, bob, invited["room"], until))
    arrivals = asyncio.create_task(newcomers(url, until))
    attack = []
    for _ in range(sockets):  # paced under the per-address HTTP budget (600 upgrades a minute)
        attack.append(asyncio.create_task(hold_unauthenticated(url, until, outcome)))
        await asyncio.sleep(60 / ATTACKS_PER_MINUTE)
    joined, refused, joins, first_refusal = await arrivals
    sent, failed, latencies = await talk
    await asyncio.gather(*attack)
    ms = 1000
    print(f"1. {sockets} unauthenticated sockets from {ATTACKER} ({ATTACKS_PER_MINUTE} a minute), a junk frame every "
          f"{JUNK_EVERY_SECS:g} s, for {seconds:g} s:")
    for label, times in outcome.items():
        extra = f" (mean {sum(times) / len(times):.1f} s, max {max(times):.1f} s)" if times and label.startswith("served") else ""
        print(f"   {label}: {len(times)}{extra}")
    print(f"   meanwhile from 127.0.0.1: {joined} new agents authenticated, {refused} refused"
          + (f" (the first {first_refusal:.0f} s into the run)" if first_refusal is not None else "")
          + (f"; handshake p50 {percentile(joins, 0.5) * ms:.1f} ms, p99 {percentile(joins, 0.99) * ms:.1f} ms" if joins else ""))
    print(f"   meanwhile a conversation: {sent} sent, {len(latencies)} delivered, {failed} refused"
          + (f"; send→delivery p50 {percentile(latencies, 0.5) * ms:.1f} ms, p99 {percentile(latencies, 0.99) * ms:.1f} ms" if latencies else ""))
    for agent in (alice, bob):
        await agent.close()


def nested(depth: int) -> object:
    value: object = "leaf"
    for _ in range(depth):
        value = [value]
    return value


async def deep_nesting(url: str) -> None:
    alice = await Agent.connect(url, "alice")
    bob = await Agent.connect(url, "bob")
    invited = await alice.request({"op": "invite", "kind": "channel", "room": "deep"})
    await bob.request({"op": "redeem", "code": invited["code"]})
    await bob.request({"op": "subscribe"})
    print("2. deep data parts (the frame's own object and array add 3 levels):")
    for depth in (500, 124):
        reply = await alice.answer({"op": "send", "target": {"kind": "room", "room": invited["room"]},
                                     "parts": [{"kind": "data", "data": nested(depth)}]})
        try:
            pushed = await asyncio.wait_for(bob.pushed.get(), 2)
        except TimeoutError:
            pushed = None
        stored = (await bob.request({"op": "pull", "room": invited["room"], "since": 0}))["messages"]
        answer = reply.get("code") or reply.get("type")
        print(f"   {depth + 3} levels: sender got {answer!r}; subscriber pushed {'yes' if pushed else 'no'}; "
              f"the room holds {len(stored)} message(s)")
    for agent in (alice, bob):
        await agent.close()


async def attack(url: str, sockets: int, seconds: float) -> None:
    await handshake_holders(url, sockets, seconds)
    await deep_nesting(url)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=1100)
    parser.add_argument("--seconds", type=float, default=135.0)
    args = parser.parse_args()
    with_hub_process(lambda url: attack(url, args.sockets, args.seconds), relaxed=False)

if __name__ == "__main__":
    main()
