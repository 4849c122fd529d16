"""The human sends a file (protocol.md §7.13, §8.4): its SHA-256 first, on a worker thread; then
its bytes streamed to the hub as one binary message, a chunk at a time, never held whole; then a
``com.parler.file`` part posted through the outbox under one ``clientId``, so the post waits for
its upload and is never made twice.

A line that drops mid-upload loses the upload (the hub keeps nothing of it): it is sent again from
its first byte on the next connection, up to ``MAX_ATTEMPTS`` times; a line that stalls is
dropped first (``send_blob``'s watchdog). Cancel ends the message
early, so the hub refuses the short upload and the line stays up (a half-sent message cannot be
taken back otherwise). The hub's limits end the upload with a sentence (``refusal_sentence``).
"""

from __future__ import annotations

import asyncio
import hashlib
import mimetypes
import uuid
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from parler_desktop.client.errors import ConnectionLost, HubRefused
from parler_desktop.client.events import OutboxItem
from parler_desktop.protocol import errors
from parler_desktop.protocol.frames import BlobStored, PutBlob
from parler_desktop.protocol.part_text import human_size
from parler_desktop.protocol.parts import FileRef

CHUNK_BYTES = 512 * 1024
MAX_ATTEMPTS = 5


class UploadCancelled(Exception):
    """The human cancelled the upload."""


def file_digest(path: Path) -> tuple[str, int]:
    """The lowercase hex SHA-256 and size of the file, read in chunks (call it off the UI thread)."""
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        while chunk := handle.read(CHUNK_BYTES):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


@dataclass
class FileUpload:
    """One file on its way to ``room``; ``sent`` counts the bytes of the current attempt."""

    path: Path
    room: str
    client_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    sha256: str = ""
    size: int = 0
    sent: int = 0
    attempts: int = 0
    sending: bool = False  # an attempt is under way: cancel by ending its message, never the task
    # (a request cut off on the line would leave its reply, and the hub waiting for the bytes)
    posting: bool = False  # the bytes are stored and the post is being written: too late to cancel
    cancelled: bool = False

    @property
    def name(self) -> str:
        return self.path.name

    @property
    def media_type(self) -> str | None:
        return mimetypes.guess_type(self.name)[0]

    async def run(self, session: Any, on_progress: Callable[["FileUpload"], None]) -> OutboxItem:
        """Hash, upload (again after a dropped line), then post; the outbox item. Raises
        UploadCancelled, HubRefused (``refusal_sentence`` says it), ConnectionLost, OSError."""
        self.sha256, self.size = await asyncio.to_thread(file_digest, self.path)
        on_progress(self)
        while True:
            self._check_cancelled()
            self.attempts += 1
            handle = await asyncio.to_thread(self.path.open, "rb")  # before the request: a failure sends nothing
            self.sending = True
            try:
                await session.put_blob(self.room, self.sha256, self.size, self.media_type, self._chunks(handle, on_progress))
                break
            except ConnectionLost:
                if self.attempts >= MAX_ATTEMPTS:
                    raise
            except HubRefused:
                self._check_cancelled()
                raise
            finally:
                self.sending = False
                handle.close()
        self._check_cancelled()
        self.posting = True
        part = FileRef(blob=self.sha256, name=self.name, size=self.size, media_type=self.media_type).to_part()
        return await session.post(self.room, "", extra_parts=[part], client_id=self.client_id)

    def cancel(self) -> bool:
        """Stop sending; True when the caller must cancel the task itself (no bytes on their way).
        Once the post is being written it goes out: nothing happens."""
        if self.posting:
            return False
        self.cancelled = True
        return not self.sending

    def _check_cancelled(self) -> None:
        if self.cancelled:
            raise UploadCancelled(self.name)

    async def _chunks(self, handle: BinaryIO, on_progress: Callable[["FileUpload"], None]) -> AsyncIterator[bytes]:
        """The file's bytes, read on a worker thread as the line takes them; cut short on cancel
        (or when the file shrank), which the hub refuses."""
        self.sent = 0
        on_progress(self)
        yield b""  # at least one fragment, so even an upload cancelled now ends its message
        while self.sent < self.size and not self.cancelled:
            chunk = await asyncio.to_thread(handle.read, min(CHUNK_BYTES, self.size - self.sent))
            if not chunk:
                return
            self.sent += len(chunk)
            yield chunk
            on_progress(self)


async def send_blob(conn: Any, frame: PutBlob, chunks: AsyncIterable[bytes], *, stall_secs: float, timeout: float) -> BlobStored:
    """``conn.put_blob`` with a watchdog: a line that takes no chunk for ``stall_secs`` (a stalled
    line: the socket looks open, the send waits on it) is dropped, so the upload is tried again on
    the next connection instead of holding this one until ``timeout``."""
    moved = asyncio.Event()

    async def watched() -> AsyncIterator[bytes]:
        async for chunk in chunks:
            moved.set()
            yield chunk

    async def watchdog() -> None:
        while True:
            try:
                await asyncio.wait_for(moved.wait(), stall_secs)
            except TimeoutError:
                conn.abort(f"the upload stalled: nothing sent for {stall_secs:g} s")
                return
            moved.clear()

    dog = asyncio.get_running_loop().create_task(watchdog())
    try:
        return await conn.put_blob(frame, watched(), timeout=timeout)
    finally:
        dog.cancel()


def refusal_sentence(upload: FileUpload, error: HubRefused) -> str:
    """One sentence for the hub's refusal of ``upload``, by its code (§7.17), never its wording."""
    name, size = upload.name, human_size(upload.size)
    if error.code == errors.TOO_LARGE:
        return f"{name} ({size}) is too large for this hub; nothing was sent."
    if error.code == errors.STORAGE_FULL:
        return f"The hub's file storage is full, so {name} was not sent; try again later."
    if error.code == errors.RATE_LIMITED:
        return f"The hub takes only so many files an hour, so {name} was not sent; try again later."
    if error.code == errors.AT_CAPACITY:
        return f"The hub is busy with other uploads, so {name} was not sent; try again in a moment."
    if error.code == errors.PROTOCOL:
        return f"{name} changed while it was being sent, so it was not sent."
    return f"{name} was not sent: {error.message}"
