"""Journey: the human saves a shared file (issue 47, item 3: a blob was held whole in memory,
with no progress and no Cancel). Save… streams the bytes to a partial file beside the name
chosen (Downloads by default), shows its progress above the composer with Cancel, checks the
size and SHA-256 the message announced, and only then renames it into place. A hostile hub
(``support/hostile_hub.py`` in front of the real hub) that sends more than announced, other
bytes, or stalls halfway leaves no file, and says so in the window. Each test failed before
streamed saves."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog, QLineEdit

from parler_desktop.protocol.parts import FileRef
from support.desktop_fixtures import click_room, start_desktop, stop_desktop, user_home  # noqa: F401 - fixture
from support.hostile_hub import HostileHub, Misbehaviour
from support.hub_lies import FRAGMENT, BlobBody
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.raw_agent import RawAgent
from test_journey_rendering import row_point

pytestmark = pytest.mark.timeout(90)



@pytest.fixture
def downloads(user_home: Path) -> Path:
    """The human's Downloads folder (their home's; the working directory is elsewhere)."""
    return user_home / "Downloads"


@pytest.fixture
def shared_file(qtbot, qloop, hub, tmp_path: Path, downloads: Path) -> Iterator[Any]:
    """``shared_file(data, misbehaviour=None)`` → the window (on the real hub, or on a hostile hub
    in front of it) with room 'team' open, in which an agent shared ``data`` as report.bin."""
    opened: list[tuple[Any, HostileHub | None, RawAgent]] = []

    def share(data: bytes, misbehaviour: Misbehaviour | None = None) -> Any:
        owner = run_coroutine(qtbot, qloop, RawAgent.connect(hub.url, name="owner"))
        invited = run_coroutine(qtbot, qloop, owner.ok({"op": "invite", "kind": "channel", "room": "team"}, "invited"))
        proxy = HostileHub.in_thread(hub.url, misbehaviour) if misbehaviour is not None else None
        app = start_desktop(qtbot, qloop, tmp_path / "home", proxy.url if proxy else hub.url)
        opened.append((app, proxy, owner))
        run_coroutine(qtbot, qloop, app.bridge.session.redeem(invited["code"]))
        qtbot.waitUntil(lambda: "team" in app.window.rooms.room_names(), timeout=15_000)
        click_room(qtbot, app, "team")
        digest = hashlib.sha256(data).hexdigest()
        target = {"kind": "room", "room": "team"}
        run_coroutine(qtbot, qloop, owner.ok({"op": "put_blob", "sha256": digest, "size": len(data), "target": target}, "blob_ready"))
        run_coroutine(qtbot, qloop, owner.send_bytes(data))
        assert run_coroutine(qtbot, qloop, owner.recv())["type"] == "blob_stored"
        part = FileRef(blob=digest, name="report.bin", size=len(data)).to_part()
        run_coroutine(qtbot, qloop, owner.ok({"op": "send", "target": target, "parts": [part]}, "sent"))
        qtbot.waitUntil(lambda: app.window.timeline_model.rowCount() == 1, timeout=10_000)
        return app

    yield share
    for app, proxy, owner in opened:
        stop_desktop(qtbot, qloop, app)
        if proxy is not None:
            proxy.stop()
        run_coroutine(qtbot, qloop, owner.close())


def save_with_two_clicks(qtbot, app: Any, downloads: Path) -> None:
    """Click the card's Save…, then Enter in the dialog (which proposes report.bin in Downloads)."""
    window, view = app.window, app.window.timeline
    save = view.row_layout(window.timeline_model.index(0)).cards[0].save
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=row_point(view, 0, save.center()))
    qtbot.waitUntil(lambda: any(d.isVisible() for d in window.findChildren(QFileDialog, "saveAs")), timeout=5000)
    dialog = next(d for d in window.findChildren(QFileDialog, "saveAs") if d.isVisible())
    assert Path(dialog.directory().absolutePath()) == downloads
    name_field = dialog.findChild(QLineEdit, "fileNameEdit")
    assert name_field.text() == "report.bin"
    QTest.keyClick(name_field, Qt.Key.Key_Return)


def save_lines(app: Any) -> list[Any]:
    return [line for line in app.window.saves.strip.lines if line.isVisible()]


def test_a_shared_file_is_saved_with_progress_then_renamed_into_place(qtbot, shared_file, downloads: Path):
    data = bytes(range(256)) * (12 * 1024)  # 3 MiB: the hub sends it in pieces, each one shown
    app = shared_file(data)
    shown: list[float] = []
    model = app.window.saves.model
    model.dataChanged.connect(lambda top, _bottom: shown.append(top.data(model.FRACTION)))
    save_with_two_clicks(qtbot, app, downloads)
    qtbot.waitUntil(lambda: (downloads / "report.bin").exists(), timeout=20_000)
    assert (downloads / "report.bin").read_bytes() == data
    assert [p.name for p in downloads.iterdir()] == ["report.bin"]  # no partial file left beside it
    assert any(0.0 < fraction < 1.0 for fraction in shown), shown  # progress was shown on the way
    qtbot.waitUntil(lambda: not save_lines(app), timeout=5000)
    assert "Saved" in app.window.statusBar().currentMessage()


@pytest.mark.parametrize("lie", ["a body larger than announced", "a wrong hash"])
def test_a_file_the_hub_sends_other_than_announced_is_refused_and_leaves_no_file(qtbot, shared_file, downloads: Path, lie):
    data = b"the real report\n" * 8192  # 128 KiB
    if lie == "a body larger than announced":
        hostile, said = BlobBody(len(data), data + b"\0" * (1 << 20)), "more than"
    else:
        hostile, said = BlobBody(len(data), data[::-1]), "did not match"
    app = shared_file(data, hostile)
    save_with_two_clicks(qtbot, app, downloads)
    qtbot.waitUntil(lambda: any(said in line.label.text() for line in save_lines(app)), timeout=20_000)
    line = save_lines(app)[0]
    assert line.label.text().startswith("report.bin was not saved") and line.button.text() == "Dismiss"
    assert list(downloads.iterdir()) == []  # neither the file nor a partial one
    qtbot.mouseClick(line.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not save_lines(app), timeout=5000)


def test_a_stalled_file_shows_its_progress_and_cancel_stops_it_and_removes_the_partial_file(qtbot, shared_file, downloads: Path):
    data = b"half of it comes\n" * 16384  # 272 KiB, of which the hub sends 128 KiB, then nothing
    app = shared_file(data, BlobBody(len(data), data[: 2 * FRAGMENT], stall=True))
    save_with_two_clicks(qtbot, app, downloads)
    qtbot.waitUntil(lambda: any("128.0 KiB of 272.0 KiB" in line.label.text() for line in save_lines(app)), timeout=20_000)
    line = save_lines(app)[0]
    assert 0.4 < line.bar.value() / line.bar.maximum() < 0.5 and line.button.text() == "Cancel"
    assert [p.suffix for p in downloads.iterdir()] == [".part"]  # streamed to disk as it came
    qtbot.mouseClick(line.button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not save_lines(app) and list(downloads.iterdir()) == [], timeout=10_000)
    qtbot.waitUntil(lambda: app.bridge.is_live, timeout=20_000)  # the line the rest was owed on was dropped, then made again
