"""A free 127.0.0.1 port for a hub a test starts on a port of its choosing.

Chosen below the kernel's ephemeral range: every other hub and socket in the run binds port 0,
which the kernel serves from that range, so none of them takes this port in the moments it is
free (before the hub binds it, between two launches, after the app quit: a test that checks the
port is free again would otherwise see another worker's hub on it).
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

LINUX_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
EPHEMERAL_LOW = 32768  # Linux's default; macOS's and Windows' ranges start higher (49152)
SPAN = 12_000  # the ports below the range a choice is made from


def ephemeral_low() -> int:
    try:
        return int(LINUX_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return EPHEMERAL_LOW


def free_port() -> int:
    low = ephemeral_low()
    for port in random.sample(range(max(1024, low - SPAN), low), 200):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in the {SPAN} below {low}")
