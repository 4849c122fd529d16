"""The embedded hub comes back on the same port every launch, and moves only when it must."""

from __future__ import annotations

import socket
import stat
from pathlib import Path

import pytest
from support.os_needs import posix_file_modes
from support.ports import free_port

from parler_desktop.app.hubs.local_hub import PORT_FILE, remembered_port, save_join_secret, start_local_hub
from parler_desktop.paths import Home


@pytest.fixture
def home(tmp_path: Path) -> Home:
    home = Home.resolve(tmp_path / "home").ensure()
    home.embedded_hub_dir.mkdir(parents=True)
    return home


def test_the_remembered_port_is_reused_across_launches(home: Home):
    port = free_port()
    (home.embedded_hub_dir / PORT_FILE).write_text(f"{port}\n")
    for _ in range(2):
        hub = start_local_hub(home)
        try:
            assert hub.url == f"ws://127.0.0.1:{port}/ws"
        finally:
            hub.stop()
    assert (home.embedded_hub_dir / "hub.sqlite3").exists()


def test_a_taken_port_moves_the_hub_once_and_the_new_port_is_remembered(home: Home):
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        (home.embedded_hub_dir / PORT_FILE).write_text(f"{taken}\n")
        hub = start_local_hub(home)
        try:
            moved = hub.hub.port
            assert moved != taken and remembered_port(home.embedded_hub_dir) == moved
        finally:
            hub.stop()
    again = start_local_hub(home)
    try:
        assert again.hub.port == moved
    finally:
        again.stop()


def test_without_a_record_the_preferred_port_is_7070(home: Home):
    assert remembered_port(home.embedded_hub_dir) == 7070
    (home.embedded_hub_dir / PORT_FILE).write_text("not a port")
    assert remembered_port(home.embedded_hub_dir) == 7070


@posix_file_modes
def test_join_secret_file_is_private(home: Home):
    home.join_secret_file.write_text("old")
    home.join_secret_file.chmod(0o644)
    path = save_join_secret(home, "s3cret")
    assert path.read_text() == "s3cret" and stat.S_IMODE(path.stat().st_mode) == 0o600
