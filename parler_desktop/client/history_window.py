"""A room's newest page, found without reading the history before it.

A pull reads forward from ``since`` (protocol.md §7.2): there is no "the newest N". Reading a
room's whole history forward is what a first sync did, and a hub that claims endless history
filled the disk and the memory with it (``listen``: 224,500 messages and 122 MB in 45 s; the window
75 → 988 MB). So a catch-up reads forward a bounded number of pages (sync.py says which) and then
looks for the newest page: the smallest ``since`` whose page comes back short, by doubling the
distance from a ``since`` whose page was full and then halving the interval. Each probe is one
page, kept only while it is looked at; at most ``MAX_PROBES`` of them. A hub whose pages never
come back short, up to the largest seq there is, has no newest page: ``None``.

What a catch-up leaves on the hub is a *gap* (``low``, ``high``], kept in the store's meta
(``GAP_KEY``); scrolling up to it reads the page just below its top (``page_below``), by the same
kind of probing, and the gap shrinks by that page.
"""

from __future__ import annotations

from parler_desktop.client.connection import Requester
from parler_desktop.protocol.frames import Pull, Pulled

MAX_SEQ = 2**63 - 1  # seqs are signed 64-bit (protocol.md §7.1)
MAX_PROBES = 2 * 64  # doubling up to MAX_SEQ, then halving down to one seq
GAP_KEY = "history-gap:"  # + room: "low high ..." the ranges of seqs (low, high] left on the hub

Gap = tuple[int, int]


def gaps_from(text: str | None) -> list[Gap]:
    """The gaps a meta value holds (an unreadable one: none)."""
    numbers = (text or "").split()
    if len(numbers) % 2 or not all(number.isdigit() for number in numbers):
        return []
    values = [int(number) for number in numbers]
    return sorted(zip(values[::2], values[1::2]))


def gaps_text(gaps: list[Gap]) -> str:
    return " ".join(f"{low} {high}" for low, high in sorted(gaps) if high > low)


async def newest_page(request: Requester, room: str, full_after: int, limit: int) -> tuple[int, Pulled] | None:
    """``(since, page)``: the newest messages of ``room``, fewer than ``limit``, after
    ``full_after`` (the last seq of a full page); the messages from ``full_after`` to ``since``
    are skipped. None when the hub's pages never come back short."""
    page = await _page(request, room, full_after, limit)
    if len(page.messages) < limit:
        return full_after, page  # no gap: the next page was the last
    low, step = full_after, limit  # the page after ``low`` is full
    for _probe in range(MAX_PROBES):
        high = min(MAX_SEQ, low + step)
        page = await _page(request, room, high, limit)
        if len(page.messages) < limit:
            break
        if high == MAX_SEQ:
            return None
        low, step = high, step * 2
    else:
        return None
    while high - low > 1:  # the page after ``high`` is short: the newest since with a short page is in (low, high]
        middle = (low + high) // 2
        probe = await _page(request, room, middle, limit)
        if len(probe.messages) < limit:
            high, page = middle, probe
        else:
            low = middle
    return high, page


async def _page(request: Requester, room: str, since: int, limit: int) -> Pulled:
    reply = await request(Pull(room=room, since=since, limit=limit), Pulled)
    assert isinstance(reply, Pulled)
    return reply


async def page_below(request: Requester, room: str, gap: Gap, limit: int) -> tuple[Gap, list]:
    """The newest messages of ``room`` in the gap (``low``, ``high``], at most ``limit``, and what
    is left of the gap below them (empty when ``low`` == ``high``): the largest ``since`` whose
    page is full of the gap's messages, found by halving (the page after ``low`` that is not full
    of them holds the rest of the gap)."""
    low, high = gap
    page = await _page(request, room, low, limit)
    if not _fills(page, limit, high):
        return (low, low), [message for message in page.messages if message.seq <= high]
    bottom, top = low, high  # the page after ``bottom`` is full of the gap's messages, after ``top`` not
    while top - bottom > 1:
        middle = (bottom + top) // 2
        probe = await _page(request, room, middle, limit)
        if _fills(probe, limit, high):
            bottom, page = middle, probe
        else:
            top = middle
    return (low, bottom), list(page.messages)


def _fills(page: Pulled, limit: int, high: int) -> bool:
    return len(page.messages) == limit and page.messages[-1].seq <= high
