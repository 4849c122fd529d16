"""Replace a file's content all at once: readers see the old bytes or the new, never a mix.

The new content goes to a private (0600) temporary file beside the target, is flushed to disk,
and is then renamed over the target; a failure removes the temporary file and leaves the target
as it was.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
