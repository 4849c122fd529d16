"""The reference (Rust) ``parler-hub`` in a subprocess, for tests/interop/ and bench/bench_push.py.

Nothing here is the reference code: it runs a binary built from it (docs/interop.md says how).
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
from pathlib import Path

from support.ports import free_port

START_DEADLINE = 20.0
GENEROUS = 1_000_000  # ops and sends per agent per minute: far above anything a test does


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


class ReferenceHub:
    """The reference ``parler-hub`` in a subprocess."""

    def __init__(self, binary: str, work: Path, extra_args: tuple[str, ...] = ()) -> None:
        self.binary = binary
        self.work = work
        self.extra_args = extra_args
        self.db_path = work / "hub.sqlite"
        self.port = free_port()
        self.log_path = work / "hub.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def command(self) -> list[str]:
        return [
            self.binary, "--addr", f"127.0.0.1:{self.port}", "--db", str(self.db_path),
            "--blob-dir", str(self.work / "blobs"),
            "--max-ops-per-min", str(GENEROUS), "--max-sends-per-min", str(GENEROUS),
            "--max-room-sends-per-min", "0", "--max-http-per-min", "0", *self.extra_args,
        ]

    def start(self) -> "ReferenceHub":
        """Start and wait until the port accepts; retries while the port is not free yet."""
        give_up = time.monotonic() + START_DEADLINE
        env = {key: value for key, value in os.environ.items() if not key.startswith("PARLER_")}
        env.update(HOME=str(self.work / "home"), RUST_LOG="warn")
        while True:
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(self.command(), stdout=log, stderr=log, env=env, cwd=self.work)
            self.starts += 1
            while time.monotonic() < give_up:
                if self.process.poll() is not None:
                    break  # exited (the port still held by the killed one?): try again
                if accepts(self.port):
                    return self
                time.sleep(0.02)
            if time.monotonic() >= give_up:
                self.kill()
                raise RuntimeError(f"the reference hub did not start: {self.log_text()[-2000:]}")
            time.sleep(0.1)

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """kill -9 and reap: the crash case."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # SIGKILL
        if self.process is not None:
            self.process.wait(15)

    stop = kill  # as the embedded hub's ``stop``: for a test that runs on both

    def restart(self) -> "ReferenceHub":
        self.kill()
        return self.start()
