"""Runs the scripted demo: connects the cast, opens the three rooms, lets the human in, plays
the script beat by beat (over and over unless told how many rounds) and hangs up on the way out.

``admit(link)`` brings the human into a room: the window redeems the code through its own
session; the headless command prints the link for a window to join with.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Awaitable, Callable

from parler_desktop.demo.agent import DemoAgent
from parler_desktop.demo.script import CAST, MEMBERS, SCRIPT, Beat
from parler_desktop.identity import Identity

IdentityFor = Callable[[str], Identity]  # an agent's name → its identity
Admit = Callable[[str], Awaitable[object]]  # an invite link for the human


async def connect_all(
    url: str, cast: tuple[tuple[str, str], ...], identity_for: IdentityFor, join_secret: str | None
) -> dict[str, DemoAgent]:
    agents: dict[str, DemoAgent] = {}
    try:
        for name, role in cast:
            agents[name] = await DemoAgent.connect(url, name, role, identity_for(name), join_secret)
    except BaseException:
        await close_all(agents)
        raise
    return agents


async def close_all(agents: dict[str, DemoAgent]) -> None:
    for agent in agents.values():
        with contextlib.suppress(Exception):
            await agent.close()


async def open_rooms(agents: dict[str, DemoAgent], members: dict[str, tuple[str, ...]], admit: Admit) -> None:
    """The first member of each room opens it, the others join, then the human is let in."""
    for room, names in members.items():
        invited = await agents[names[0]].open_room(room)
        for name in names[1:]:
            await agents[name].join(invited.code)
        await admit(invited.url)


async def perform(agent: DemoAgent, beat: Beat, human: str) -> None:
    text = beat.text.replace("{human}", human)
    if beat.presence is not None:
        await agent.presence(*beat.presence)
    elif beat.task is not None:
        task, status, note = beat.task
        await agent.task(beat.room, task, status, note, text)
    elif beat.handoff is not None:
        await agent.hand_off(beat.room, human.lower(), beat.handoff[0], beat.handoff[1], text)
    elif beat.share is not None:
        name, media_type, content = beat.share
        await agent.share(beat.room, name, content.encode(), media_type, f"{name} from {agent.name}", text)
    else:
        await agent.post(beat.room, text, mentions=[human.lower()] if beat.mention_human else ())


async def run_script(
    url: str,
    human: str,
    admit: Admit,
    identity_for: IdentityFor,
    *,
    pace: float = 2.0,
    rounds: int | None = None,
    join_secret: str | None = None,
    seed: int | None = None,
) -> int:
    """Play the script; returns the number of beats played (``rounds=None``: until cancelled).

    ``pace`` is the mean pause between beats in seconds (0 plays it as fast as the hub answers);
    the pauses vary, and a beat's ``quiet`` adds silence, so the rooms feel alive, not metronomic.
    """
    rng = random.Random(seed)
    agents = await connect_all(url, CAST, identity_for, join_secret)
    played = 0
    try:
        await open_rooms(agents, MEMBERS, admit)
        round_ = 0
        while rounds is None or round_ < rounds:
            for beat in SCRIPT:
                await perform(agents[beat.speaker], beat, human)
                played += 1
                await asyncio.sleep(pace * (rng.uniform(0.6, 1.4) + beat.quiet))
            round_ += 1
    finally:
        await close_all(agents)
    return played
