"""Skip markers for what an OS lacks, each saying why (the suite runs on Linux, macOS and Windows:
.github/workflows/test.yml; pytest's -ra summary lists the reasons)."""

from __future__ import annotations

import os
import sys

import pytest

posix_file_modes = pytest.mark.skipif(
    os.name != "posix", reason="file modes (0600, 0700, read-only folders) are POSIX's; Windows keeps rights in ACLs"
)
posix_signals = pytest.mark.skipif(
    sys.platform == "win32", reason="POSIX signals sent to a process (SIGINT, SIGTERM, SIGKILL) are not Windows'"
)
posix_terminal = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals (pty) are POSIX's")
linux_proc = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
posix_shell = pytest.mark.skipif(sys.platform == "win32", reason="the fake program is a /bin/sh script")
posix_special_files = pytest.mark.skipif(
    sys.platform == "win32", reason="FIFOs, and symbolic links without administrator rights, are POSIX's"
)

# For a test with more to check than modes: its mode assertions run where there are modes.
HAS_FILE_MODES = os.name == "posix"
