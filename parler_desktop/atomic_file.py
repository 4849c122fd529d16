"""Replace a file's content all at once: readers see the old bytes or the new, never a mix.

The new content goes to a private (0600) temporary file beside the target, is flushed to disk,
and is then renamed over the target; a failure removes the temporary file and leaves the target
as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_private_temp(path: Path, data: bytes) -> Path:
    """A new 0600 file beside ``path`` holding ``data``, flushed to disk; the caller moves it into
    place (renaming over ``path``, or linking where an existing file must never be replaced)."""
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    return Path(temp_name)


def write_atomically(path: Path, data: bytes) -> None:
    temp_path = write_private_temp(path, data)
    try:
        os.replace(temp_path, path)
    except BaseException:
        temp_path.unlink(missing_ok=True)
        raise
