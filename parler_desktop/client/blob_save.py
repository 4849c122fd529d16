"""The human saves a shared file (protocol.md §7.13, §8.4; issue 47, item 3): its bytes streamed
from the hub into a partial file beside the name chosen, a fragment at a time as they come,
written and hashed on a worker thread (never held whole: a hub once had 1.56 GB held in memory);
only once the size and SHA-256 the message announced are met is the partial file renamed into
place. Anything else (refused, cut, stalled, cancelled by the human: the task cancelled) removes
it: no file is left that the message did not announce.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from parler_desktop.client.errors import BadReply

PARTIAL_SUFFIX = ".part"


def check_blob(digest: Any, received: int, blob_id: str, size: int | None) -> None:
    """Raise BadReply unless ``received`` bytes hashed into ``digest`` are what the message
    announced: ``size`` (None: not said) and the SHA-256 ``blob_id``."""
    if size is not None and received != size:
        raise BadReply(f"{received} bytes came where the message announced {size}")
    if digest.hexdigest() != blob_id.lower():
        raise BadReply("its SHA-256 did not match the one the message announced")


@dataclass
class BlobSave:
    """One shared file on its way to ``target``; ``received`` counts the bytes written."""

    blob_id: str
    size: int | None  # as the message announced it
    target: Path
    received: int = 0
    partial: Path | None = None  # where the bytes go until they are checked

    @property
    def name(self) -> str:
        return self.target.name

    async def run(self, session: Any, on_progress: Callable[["BlobSave"], None]) -> None:
        """Download, write, check, rename. Raises BadReply (not what the message announced),
        HubRefused, ConnectionLost, SessionClosed, OSError; the partial file is gone then."""
        digest = hashlib.sha256()
        self.partial, handle = await asyncio.to_thread(_open_partial, self.target)
        try:
            async def take(chunk: bytes) -> None:
                await asyncio.to_thread(_write, handle, digest, chunk)
                self.received += len(chunk)
                on_progress(self)

            await session.fetch_blob(self.blob_id, take, size=self.size)
            check_blob(digest, self.received, self.blob_id, self.size)
            await asyncio.to_thread(_finish, handle, self.partial, self.target)
        except BaseException:  # (cancelled by the human too)
            handle.close()
            self.partial.unlink(missing_ok=True)
            raise


def _open_partial(target: Path) -> tuple[Path, BinaryIO]:
    """A new file beside ``target`` (so the rename stays on its file system), never an old one."""
    partial = target.with_name(f"{target.name}.{secrets.token_hex(4)}{PARTIAL_SUFFIX}")
    return partial, partial.open("xb")


def _write(handle: BinaryIO, digest: Any, chunk: bytes) -> None:
    digest.update(chunk)
    handle.write(chunk)


def _finish(handle: BinaryIO, partial: Path, target: Path) -> None:
    handle.close()
    os.replace(partial, target)
