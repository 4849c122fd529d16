"""Blob bytes on disk, content-addressed by SHA-256 hex, written atomically off the event loop,
plus the pool of upload reservations that bounds memory held by pending uploads."""

from __future__ import annotations

import asyncio
from pathlib import Path

from parler_desktop.atomic_file import write_atomically


class BlobFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path_of(self, blob: str) -> Path:
        return self.root / blob[:2] / blob

    async def write(self, blob: str, data: bytes) -> None:
        await asyncio.to_thread(self._write, blob, data)

    async def read(self, blob: str) -> bytes | None:
        return await asyncio.to_thread(self._read, blob)

    def _write(self, blob: str, data: bytes) -> None:
        target = self.path_of(blob)
        if target.exists() and target.stat().st_size == len(data):
            return
        target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomically(target, data)

    def _read(self, blob: str) -> bytes | None:
        try:
            return self.path_of(blob).read_bytes()
        except OSError:
            return None


class UploadReservations:
    """Each pending ``put_blob`` holds ``each`` bytes of a fixed pool until its bytes arrive."""

    def __init__(self, pool: int, each: int) -> None:
        self._free = pool
        self._each = each

    def take(self) -> bool:
        if self._free < self._each:
            return False
        self._free -= self._each
        return True

    def give_back(self) -> None:
        self._free += self._each
