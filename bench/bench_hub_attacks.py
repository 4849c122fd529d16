"""Raw-socket attacks on the hub (reference limits, in its own process), with legitimate agents
served throughout; prints what each attack got and what the agents saw meanwhile.

Run: .venv/bin/python bench/bench_hub_attacks.py [--sockets 1100] [--seconds 135] [--only N]
(``PYTHONPATH=/path/to/other/checkout`` runs the same attacks against another version.)

1. Handshake holders: ``--sockets`` WebSockets from one address (127.0.0.2), opened 540 a
   minute (under the hub's per-address HTTP budget), that never authenticate and send a junk
   frame every 8 s, for ``--seconds`` in all. Figures: how many the hub served, how many it
   refused at the door, how long the served ones lived; meanwhile, from 127.0.0.1, a new agent
   connects and authenticates every 0.25 s (joined / refused) and a sender→subscriber pair
   exchanges messages (sent, delivered, p50/p99 send→delivery latency).
2. Deep nesting: a ``data`` part nested 500 levels, then one at the deepest level the reference
   parser accepts: the reply, and what a subscriber and a pull saw.
3. Many addresses: 1,200 WebSockets from 200 addresses (127.0.1.1–200, 6 each: under the
   per-address cap), dialed by another process, that never authenticate and dial again at once
   whenever they are dropped or refused, for 25 s: their dials counted by outcome. Meanwhile, from
   127.0.0.1, two loops each start a new agent every 0.25 s that connects, authenticates, creates
   a room and sends 3 messages (served / refused, and the served ones' handshake p50/p99, dial →
   ``welcome``), and a sender→subscriber pair exchanges messages; the same figures for the 10 s
   before the attack are the baseline.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import time
from collections import Counter

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from bench_hub import Agent, percentile, with_hub_process
from parler_desktop.hub.event_loop import run_hub_loop

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


ADDRESSES = [f"127.0.1.{number}" for number in range(1, 201)]
SOCKETS_PER_ADDRESS = 6
MANY_HOLD_SECS = 25.0
BASELINE_SECS = 10.0
AGENT_LOOPS = 2


async def redial(url: str, source: str, until: float, outcome: Counter[str], dialed: set[int]) -> None:
    """One attacking socket: never authenticates; dials again at once whenever it is dropped or
    refused, until ``until``."""
    while time.monotonic() < until:
        try:
            ws = await connect(url, local_addr=(source, 0), ping_interval=None, open_timeout=10)
        except InvalidStatus:
            outcome["refused at the upgrade (HTTP 429)"] += 1
            continue
        except (OSError, TimeoutError):
            outcome["failed to open"] += 1
            continue
        finally:
            dialed.add(id(asyncio.current_task()))
        outcome["opened (HTTP 101)"] += 1
        try:
            await asyncio.wait_for(ws.wait_closed(), until - time.monotonic())
        except TimeoutError:
            outcome["still open at the end"] += 1
            await ws.close()
            return
        code = ws.close_code
        outcome["dropped at_capacity" if code == TRY_AGAIN_LATER else f"closed by the hub ({code})"] += 1


def many_address_attack(url: str, seconds: float, report) -> None:  # type: ignore[no-untyped-def]
    """Child process: the attack of case 3; sends the time every socket had dialed once, then the
    outcome counts."""

    async def run() -> None:
        started = time.monotonic()
        until = started + seconds
        outcome: Counter[str] = Counter()
        dialed: set[int] = set()
        sockets = [asyncio.create_task(redial(url, source, until, outcome, dialed))
                   for source in ADDRESSES for _ in range(SOCKETS_PER_ADDRESS)]
        while len(dialed) < len(sockets) and time.monotonic() < until:
            await asyncio.sleep(0.05)
        report.send(time.monotonic() - started)
        await asyncio.gather(*sockets)
        report.send(dict(outcome))

    run_hub_loop(run())  # uvloop where installed: more dials a second


async def working_agents(url: str, until: float, rooms: itertools.count) -> tuple[int, Counter[str], list[float]]:
    """``AGENT_LOOPS`` loops, each a new agent every 0.25 s: connect, authenticate, create a room,
    send 3 messages. Returns how many were served, why the others were refused, handshake times."""
    refused: Counter[str] = Counter()
    handshakes: list[float] = []

    async def loop() -> int:
        served = 0
        while time.monotonic() < until:
            started = time.monotonic()
            agent: Agent | None = None
            try:
                agent = await asyncio.wait_for(Agent.connect(url, "worker"), 10)
                handshake = time.monotonic() - started
                invited = await asyncio.wait_for(
                    agent.request({"op": "invite", "kind": "channel", "room": f"work-{next(rooms)}"}), 10)
                for number in range(3):
                    await asyncio.wait_for(agent.say(invited["room"], f"w{number}"), 10)
                served += 1
                handshakes.append(handshake)
            except Exception as error:  # the agent was refused or dropped: say how
                text = str(error)
                refused["at_capacity" if "at_capacity" in text or "1013" in text else type(error).__name__] += 1
            finally:
                if agent is not None:
                    await agent.close()
            await asyncio.sleep(0.25)
        return served

    served = sum(await asyncio.gather(*(loop() for _ in range(AGENT_LOOPS))))
    return served, refused, handshakes


async def agents_for(url: str, seconds: float, pair: tuple[Agent, Agent, str], rooms: itertools.count) -> str:
    """The working agents and the conversation for ``seconds``, as one line of figures."""
    until = time.monotonic() + seconds
    alice, bob, room = pair
    bob.delivery_latencies.clear()
    talk = asyncio.create_task(conversation(alice, bob, room, until))
    served, refused, handshakes = await working_agents(url, until, rooms)
    sent, failed, latencies = await talk
    ms = 1000
    why = ", ".join(f"{count} {reason}" for reason, count in refused.most_common())
    return (f"agents served {served}, refused {sum(refused.values())}" + (f" ({why})" if why else "")
            + (f"; handshake p50 {percentile(handshakes, 0.5) * ms:.1f} ms, p99 {percentile(handshakes, 0.99) * ms:.1f} ms"
               if handshakes else "")
            + f"; conversation {sent} sent, {len(latencies)} delivered, {failed} refused"
            + (f", send→delivery p99 {percentile(latencies, 0.99) * ms:.1f} ms" if latencies else ""))


def quiet_refusals(loop: asyncio.AbstractEventLoop, context: dict) -> None:
    """A refused agent leaves its reader task ended by the hub's close: counted, not reported."""
    if not isinstance(context.get("exception"), ConnectionClosed):
        loop.default_exception_handler(context)


async def many_addresses(url: str) -> None:
    asyncio.get_running_loop().set_exception_handler(quiet_refusals)
    alice = await Agent.connect(url, "alice")
    bob = await Agent.connect(url, "bob")
    invited = await alice.request({"op": "invite", "kind": "channel", "room": "many-watch"})
    await bob.request({"op": "redeem", "code": invited["code"]})
    await bob.request({"op": "subscribe"})
    pair, rooms = (alice, bob, invited["room"]), itertools.count()
    baseline = await agents_for(url, BASELINE_SECS, pair, rooms)

    context = multiprocessing.get_context("spawn")
    receiver, sender = context.Pipe(duplex=False)
    attacker = context.Process(target=many_address_attack, args=(url, MANY_HOLD_SECS, sender), daemon=True)
    started = time.monotonic()
    attacker.start()
    if not await asyncio.to_thread(receiver.poll, 60):
        raise SystemExit("the attack did not start")
    ramp = receiver.recv()  # from here every attacking socket has dialed at least once
    during = await agents_for(url, MANY_HOLD_SECS - (time.monotonic() - started), pair, rooms)
    outcome = await asyncio.to_thread(receiver.recv)
    await asyncio.to_thread(attacker.join, 15)
    sockets = len(ADDRESSES) * SOCKETS_PER_ADDRESS
    print(f"3. {sockets} unauthenticated sockets from {len(ADDRESSES)} addresses ({SOCKETS_PER_ADDRESS} each), "
          f"redialing when dropped, held {MANY_HOLD_SECS:g} s (every socket had dialed {ramp:.1f} s in):")
    print("   attacking dials: " + ", ".join(f"{count} {label}" for label, count in Counter(outcome).most_common()))
    print(f"   baseline, {BASELINE_SECS:g} s before the attack, from 127.0.0.1: {baseline}")
    print(f"   during the attack (once every socket had dialed), from 127.0.0.1: {during}")
    for agent in (alice, bob):
        await agent.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sockets", type=int, default=1100)
    parser.add_argument("--seconds", type=float, default=135.0)
    parser.add_argument("--only", type=int, choices=(1, 2, 3), help="run one case (each has a hub of its own)")
    args = parser.parse_args()
    if args.only in (None, 1):
        with_hub_process(lambda url: handshake_holders(url, args.sockets, args.seconds), relaxed=False)
    if args.only in (None, 2):
        with_hub_process(deep_nesting, relaxed=False)
    if args.only in (None, 3):
        with_hub_process(many_addresses, relaxed=False)

if __name__ == "__main__":
    main()
