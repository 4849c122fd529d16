"""Pytest fixtures that run real hubs (listed in tests/conftest.py as a plugin).

- ``hub_factory(**overrides)`` → a ``RunningHub`` (an EmbeddedHub on 127.0.0.1, a free port, a
  fresh database and blob dir). Overrides are HubConfig fields; ``limits``/``faults`` may also
  be given as dicts of HubLimits/HubFaults fields (a budget as ``{"count": n, "window_secs": s}``).
  ``RunningHub.restart()`` brings the hub back on the same port and database.
- ``hub`` → ``hub_factory()`` with the reference limits. The budgets (600 ops and 240 sends per
  agent per minute) are far above what any single test does, so tests use fresh identities and
  stay inside them; a test that needs more passes ``limits=HubLimits().relaxed()``.
- ``hub_process_factory(db_path=None, port=0, extra_args=())`` → a ``HubProcess``: the real
  ``python -m parler_desktop hub`` in a subprocess, for kill -9 and restart tests.
- ``refused_port`` → a 127.0.0.1 port where connecting is refused for the whole test.
"""

from __future__ import annotations

import asyncio
import dataclasses
import selectors
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

PROCESS_START_DEADLINE = 30.0
RESTART_DEADLINE = 15.0


class RunningHub:
    """An embedded hub started by ``hub_factory``."""

    def __init__(self, embedded: Any) -> None:
        self._embedded = embedded
        self.config = embedded.config
        self.url: str = embedded.start()
        self.port: int = embedded.hub.port

    @property
    def public_url(self) -> str:
        """Base of the invite links this hub prints."""
        return self._embedded.hub.public_url

    @property
    def parked_polls(self) -> int:
        """Long-polls parked in the hub right now (to wait until a pull is parked)."""
        return self._embedded.hub.parked_polls

    async def wait_parked(self, count: int = 1, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while self.parked_polls < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{count} long-poll(s) never parked")
            await asyncio.sleep(0.005)

    @property
    def http_url(self) -> str:
        return f"http://{self.config.host}:{self.port}"

    def stop(self) -> None:
        self._embedded.stop()

    def restart(self) -> str:
        """Stop (if running) and start a new hub on the same port and database; returns the URL."""
        from parler_desktop.hub import EmbeddedHub

        self._embedded.stop()
        self.config = dataclasses.replace(self.config, port=self.port)
        give_up = time.monotonic() + RESTART_DEADLINE
        while True:
            try:
                self._embedded = EmbeddedHub(self.config)
                self.url = self._embedded.start()
                return self.url
            except OSError:
                if time.monotonic() > give_up:
                    raise
                time.sleep(0.05)


def _hub_config(tmp_dir: Path, overrides: dict[str, Any]) -> Any:
    from parler_desktop.hub import HubConfig, HubFaults, HubLimits, RateBudget

    values = dict(overrides)
    if isinstance(values.get("limits"), dict):
        limits = {
            key: RateBudget(**value) if isinstance(value, dict) else value
            for key, value in values["limits"].items()
        }
        values["limits"] = HubLimits(**limits)
    if isinstance(values.get("faults"), dict):
        values["faults"] = HubFaults(**values["faults"])
    values.setdefault("db_path", tmp_dir / "hub.sqlite3")
    values.setdefault("blob_dir", tmp_dir / "blobs")
    values.setdefault("host", "127.0.0.1")
    values.setdefault("port", 0)
    return HubConfig(**values)


@pytest.fixture
def hub_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., RunningHub]]:
    from parler_desktop.hub import EmbeddedHub

    started: list[RunningHub] = []

    def make(**overrides: Any) -> RunningHub:
        config = _hub_config(tmp_path_factory.mktemp("hub"), overrides)
        running = RunningHub(EmbeddedHub(config))
        started.append(running)
        return running

    yield make
    for running in reversed(started):
        running.stop()


@pytest.fixture
def hub(hub_factory: Callable[..., RunningHub]) -> RunningHub:
    return hub_factory()


@pytest.fixture
async def raw_agent() -> Any:
    """``await raw_agent(url, name=..., role=..., secret=..., handshake=True)`` → a RawAgent,
    closed at teardown."""
    from support.raw_agent import RawAgent

    opened: list[RawAgent] = []

    async def connect(url: str, name: str = "agent", handshake: bool = True, **kwargs: Any) -> RawAgent:
        if handshake:
            agent = await RawAgent.connect(url, name=name, **kwargs)
        else:
            agent = await RawAgent.open(url, name=name, **kwargs)
        opened.append(agent)
        return agent

    yield connect
    for agent in opened:
        await agent.close()


class HubProcess:
    """``python -m parler_desktop hub`` in a subprocess."""

    def __init__(self, db_path: Path, port: int, extra_args: Sequence[str], cwd: Path) -> None:
        self.db_path = db_path
        self.port = port
        self.extra_args = tuple(extra_args)
        self._cwd = cwd
        self.url = ""
        self.stdout_lines: list[str] = []  # every stdout line of every run, once it ended
        self.stderr_path = cwd / "hub-stderr.log"
        self.process: subprocess.Popen[str] | None = None

    def command(self) -> list[str]:
        return [
            sys.executable, "-m", "parler_desktop", "--home", str(self._cwd / "home"), "hub",
            "--host", "127.0.0.1", "--port", str(self.port), "--db", str(self.db_path), *self.extra_args,
        ]

    def start(self, deadline: float = PROCESS_START_DEADLINE) -> "HubProcess":
        # stderr goes to a file: a pipe nobody drains could fill up and stall the hub.
        with open(self.stderr_path, "a") as stderr:
            self.process = subprocess.Popen(
                self.command(), stdout=subprocess.PIPE, stderr=stderr, text=True, cwd=self._cwd
            )
        line = _read_line(self.process, deadline)
        if not line:
            self.process.wait(5)
            raise RuntimeError(f"hub process exited with {self.process.returncode}: {self.stderr_text.strip()}")
        self.url = line.strip()
        self.stdout_lines.append(self.url)
        self.port = int(self.url.rsplit(":", 1)[1].split("/", 1)[0])
        return self

    @property
    def stderr_text(self) -> str:
        """Everything the hub wrote to stderr so far (all runs)."""
        try:
            return self.stderr_path.read_text()
        except FileNotFoundError:
            return ""

    def kill(self) -> None:
        """SIGKILL and reap: the crash case."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()  # SIGKILL (TerminateProcess on Windows)
        self._reap()

    def terminate(self, timeout: float = 15.0) -> int:
        """SIGTERM and wait; returns the exit status."""
        assert self.process is not None
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self._reap()
        return code

    def restart(self) -> "HubProcess":
        """Start again on the same port and database (retrying while the port is released)."""
        self.kill()
        give_up = time.monotonic() + RESTART_DEADLINE
        while True:
            try:
                return self.start()
            except RuntimeError:
                if time.monotonic() > give_up or not _port_busy(self.port):
                    raise
                time.sleep(0.1)

    def _reap(self) -> None:
        if self.process is None:
            return
        self.process.wait(15)
        if self.process.stdout is not None and not self.process.stdout.closed:
            self.stdout_lines.extend(self.process.stdout.read().splitlines())
            self.process.stdout.close()


def _read_line(process: subprocess.Popen[str], deadline: float) -> str:
    """The first stdout line, or '' if the process exits or the deadline passes first."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(deadline):
            process.kill()
            return ""
    return process.stdout.readline()


def _port_busy(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


@pytest.fixture
def hub_process_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., HubProcess]]:
    started: list[HubProcess] = []

    def start(db_path: Path | None = None, port: int = 0, extra_args: Sequence[str] = ()) -> HubProcess:
        work = tmp_path_factory.mktemp("hubproc")
        process = HubProcess(db_path or work / "hub.sqlite3", port, extra_args, work)
        started.append(process)
        return process.start()

    yield start
    for process in started:
        process.kill()


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A port held bound but not listening: a connect is refused, and since the port stays taken,
    no hub started meanwhile (by this or a parallel test) can land on it, as it could on a port
    probed and released."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield held.getsockname()[1]
