"""A real full disk: a small tmpfs mounted for one test (we run as root here and in CI).

``small_disk`` → a ``SmallDisk`` whose ``path`` is an empty folder on its own few-MiB
filesystem; ``fill()`` takes every free byte (writes then fail with ENOSPC), ``free()`` gives
them back. A test that cannot mount (not root, no tmpfs) is skipped, saying why.
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

DISK_BYTES = 10 * 1024 * 1024  # a cache of 120 30-KB messages and its WAL (and their search index) fit with room to spare
_CHUNK = 64 * 1024


class SmallDisk:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._filler = path / ".filler"

    def fill(self, leave: int = 0) -> None:
        """Write a filler file until only ``leave`` bytes are free (0: the filesystem refuses
        another byte)."""
        with open(self._filler, "ab", buffering=0) as filler:
            if leave:
                filler.write(b"\0" * (self.free_bytes() - leave))
                return
            for size in (_CHUNK, 4096, 512, 1):
                try:
                    while True:
                        filler.write(b"\0" * size)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
        assert self.free_bytes() == 0

    def free(self) -> None:
        self._filler.unlink(missing_ok=True)

    def free_bytes(self) -> int:
        stats = os.statvfs(self.path)
        return stats.f_bavail * stats.f_frsize


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[SmallDisk]:
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES},mode=0700", "tmpfs", str(mount_point)],
        capture_output=True, text=True, check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs for a full-disk test: {mounted.stderr.strip() or 'mount refused'}")
    try:
        yield SmallDisk(mount_point)
    finally:
        subprocess.run(["umount", "--lazy", str(mount_point)], capture_output=True, check=False)
