"""One window per home and one hub per database, by OS file locks the kernel drops on exit."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from support.os_needs import posix_file_modes

from parler_desktop.app.hubs.local_hub import start_local_hub
from parler_desktop.hub import Hub, HubConfig, HubDatabaseError
from parler_desktop.instance_lock import AlreadyRunning, lock_home
from parler_desktop.paths import Home

pytestmark = pytest.mark.timeout(30)


@pytest.fixture
def home(tmp_path: Path) -> Home:
    return Home.resolve(tmp_path / "home").ensure()


def test_a_second_claim_on_a_home_is_refused_with_what_to_do(home: Home, tmp_path: Path):
    with lock_home(home):
        with pytest.raises(AlreadyRunning) as refused:
            lock_home(home)
        assert str(refused.value) == (
            f"parler-desktop is already running for this home ({tmp_path / 'home'}); "
            "switch to its window, or use --home DIR for another identity"
        )
        other = Home.resolve(tmp_path / "other").ensure()
        lock_home(other).release()  # another home is another identity: no conflict
    lock_home(home).release()  # released with the first window


def test_a_killed_window_leaves_no_stale_lock(home: Home, tmp_path: Path):
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            from parler_desktop.instance_lock import lock_home
            from parler_desktop.paths import Home
            lock = lock_home(Home.resolve({str(tmp_path / 'home')!r}))
            print("locked", flush=True)
            sys.stdin.read()
        """)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(AlreadyRunning):
            lock_home(home)
    finally:
        holder.kill()
        holder.wait(10)
        holder.stdin.close()
        holder.stdout.close()
    lock_home(home).release()


async def test_two_hubs_never_share_a_database(tmp_path: Path):
    db = tmp_path / "hub.sqlite3"
    first = Hub(HubConfig(db_path=db, port=0))
    await first.start()
    try:
        second = Hub(HubConfig(db_path=db, port=0))
        with pytest.raises(HubDatabaseError, match=f"^another hub is using {db}$"):
            await second.start()
        elsewhere = Hub(HubConfig(db_path=tmp_path / "other.sqlite3", port=0))
        await elsewhere.start()
        await elsewhere.stop()
    finally:
        await first.stop()
    again = Hub(HubConfig(db_path=db, port=0))  # stop released the database
    await again.start()
    await again.stop()


def test_the_hub_command_refuses_the_database_of_a_running_window(home: Home, tmp_path: Path):
    """``parler-desktop hub`` defaults to the home's embedded hub database: the window's."""
    window_hub = start_local_hub(home)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "parler_desktop", "--home", str(tmp_path / "home"), "hub", "--port", "0"],
            capture_output=True, text=True, timeout=30,
        )
    finally:
        window_hub.stop()
    db = home.embedded_hub_dir / "hub.sqlite3"
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.strip() == f"parler-desktop hub: another hub is using {db}"


def test_a_hub_that_fails_to_bind_releases_its_database(tmp_path: Path):
    db = tmp_path / "hub.sqlite3"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(OSError):
            asyncio.run(Hub(HubConfig(db_path=db, port=taken.getsockname()[1])).start())

    async def start_and_stop() -> None:
        hub = Hub(HubConfig(db_path=db, port=0))
        await hub.start()
        await hub.stop()

    asyncio.run(start_and_stop())


@posix_file_modes
def test_a_lock_in_a_new_folder_makes_it_owner_only(tmp_path):
    """The lock may be the first thing created beside a hub database: its folder is private."""
    import stat

    from parler_desktop.file_lock import ExclusiveFileLock

    with ExclusiveFileLock.acquire(tmp_path / "new" / "hub.sqlite3.lock"):
        assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o700
