"""Export a room (or a seq range of it) to Markdown for people or NDJSON for programs.

Messages are read from the local store a page at a time and written on a worker thread, so a
100,000-message room neither blocks the window nor sits in memory whole; progress is reported
after every page. The file appears only when the export is complete (written beside it as
``*.part``, then renamed): a cancelled or failed export leaves nothing half-written.
"""

from __future__ import annotations

import asyncio
import datetime
import enum
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from parler_desktop.protocol import wire_json
from parler_desktop.protocol.part_text import part_headline
from parler_desktop.protocol.parts import SIG_KIND
from parler_desktop.protocol.values import StoredMessage
from parler_desktop.store import LocalStore

PAGE = 1000


class ExportFormat(enum.Enum):
    MARKDOWN = "Markdown"
    NDJSON = "NDJSON"

    @property
    def suffix(self) -> str:
        return ".md" if self is ExportFormat.MARKDOWN else ".ndjson"


def as_markdown(message: StoredMessage) -> str:
    """One message as a Markdown section: who, when, which seq, the text, a line per card."""
    when = datetime.datetime.fromtimestamp(message.ts / 1000).strftime("%Y-%m-%d %H:%M:%S")
    role = f" ({message.sender.role})" if message.sender.role and message.sender.role != message.sender.name else ""
    lines = [f"**{message.sender.name}**{role} · {when} · #{message.seq}"]
    if message.reply_to:
        lines.append(f"> in reply to {message.reply_to}")
    lines.append("")
    for part in message.parts:
        kind = part.get("kind")
        if kind == "text" and isinstance(part.get("text"), str):
            lines += [part["text"], ""]
        elif kind != SIG_KIND:
            lines.append(f"- {part_headline(part)}")
    return "\n".join(lines).rstrip("\n") + "\n\n---\n\n"


def as_ndjson(message: StoredMessage) -> str:
    return wire_json.dumps(message.to_wire()) + "\n"


async def export_room(
    store: Any,
    room: str,
    target: Path,
    form: ExportFormat,
    first_seq: int = 1,
    last_seq: int | None = None,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> int:
    """Write ``room``'s messages with ``first_seq <= seq <= last_seq`` to ``target``; how many."""
    total = await store.call(LocalStore.count_after, room, first_seq - 1)
    if last_seq is not None:
        total -= await store.call(LocalStore.count_after, room, last_seq)
    partial = target.with_name(target.name + ".part")
    output: TextIO = await asyncio.to_thread(open, partial, "w", encoding="utf-8")
    written = 0
    try:
        if form is ExportFormat.MARKDOWN:
            span = f"#{first_seq}–#{last_seq}" if last_seq is not None else f"from #{first_seq}"
            await asyncio.to_thread(output.write, f"# {room}\n\nExported messages {span}.\n\n---\n\n")
        after = first_seq - 1
        render = as_markdown if form is ExportFormat.MARKDOWN else as_ndjson
        while written < total:
            page = await store.call(LocalStore.messages_after, room, after, PAGE)
            page = [m for m in page if last_seq is None or m.seq <= last_seq]
            if not page:
                break
            await asyncio.to_thread(output.write, "".join(map(render, page)))
            written += len(page)
            after = page[-1].seq
            progress(written, total)
        await asyncio.to_thread(output.close)
        await asyncio.to_thread(os.replace, partial, target)
    except BaseException:
        await asyncio.to_thread(output.close)
        await asyncio.to_thread(partial.unlink, missing_ok=True)
        raise
    return written
