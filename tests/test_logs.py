"""The log file (rotating, private, INFO or DEBUG) and unhandled exceptions: logged with their
trace, shown once in a non-modal box; Help → Open log folder opens the home's log folder."""

from __future__ import annotations

import gc
import logging
import stat
from pathlib import Path

import pytest
from PySide6.QtCore import QObject, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import QDesktopServices
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from support.os_needs import HAS_FILE_MODES

from parler_desktop.logs import LOG_FILE, log_unhandled_exceptions, logging_to
from parler_desktop.paths import Home
from parler_desktop.ui.desktop import DesktopApp
from parler_desktop.ui.error_report import TITLE


@pytest.fixture
def desktop(qtbot, qloop, tmp_path: Path, hub):
    """The window, not connected (the menus and the error box need no session)."""
    home = Home.resolve(tmp_path / "home")
    with logging_to(home.log_dir):
        undo = log_unhandled_exceptions(qloop)
        app = DesktopApp(home, hub.url)
        app.window.show()
        yield app
        undo()
        run_coroutine(qtbot, qloop, app.shutdown())
        app.window.close()
        app.window.deleteLater()


def log_text(home: Home) -> str:
    for handler in logging.getLogger().handlers:
        handler.flush()
    return (home.log_dir / LOG_FILE).read_text(encoding="utf-8")


HELLO_FRAME = "> TEXT '{\"op\":\"hello\",\"joinSecret\":\"s3cret\"}'"


def test_log_file_is_private_info_by_default_and_debug_when_verbose(tmp_path: Path):
    with logging_to(tmp_path / "logs") as path:
        assert path == tmp_path / "logs" / LOG_FILE and (not HAS_FILE_MODES or stat.S_IMODE(path.stat().st_mode) == 0o600)
        logging.getLogger("parler_desktop.test").info("an info line")
        logging.getLogger("parler_desktop.test").debug("a debug line")
        logging.getLogger("websockets.client").debug(HELLO_FRAME)
    text = path.read_text()
    assert "an info line" in text and "a debug line" not in text

    with logging_to(tmp_path / "verbose", verbose=True):
        logging.getLogger("parler_desktop.test").debug("a debug line")
        logging.getLogger("websockets.client").debug(HELLO_FRAME)
    verbose = (tmp_path / "verbose" / LOG_FILE).read_text()
    assert "a debug line" in verbose and "s3cret" not in verbose  # frames never reach the log
    logging.getLogger("parler_desktop.test").info("after leaving")
    assert "after leaving" not in (tmp_path / "logs" / LOG_FILE).read_text()  # handlers are gone


def test_an_unusable_log_folder_is_said_and_the_app_goes_on(tmp_path: Path, capsys):
    (tmp_path / "file").write_text("not a folder")
    with logging_to(tmp_path / "file" / "logs") as path:
        assert path is None
    assert "not writing a log file in" in capsys.readouterr().err


class Boom(QObject):
    @Slot()
    def explode(self) -> None:
        raise RuntimeError("the slot broke")


@pytest.mark.qt_no_exception_capture
def test_an_exception_in_a_qt_slot_is_logged_with_its_trace_and_shown_once_without_blocking(qtbot, desktop):
    boom = Boom()
    QTimer.singleShot(0, boom.explode)
    qtbot.waitUntil(lambda: desktop.errors.box is not None and desktop.errors.box.isVisible(), timeout=5000)
    box = desktop.errors.box
    assert box.windowTitle() == TITLE and box.windowModality() == Qt.WindowModality.NonModal
    assert box.text().startswith("RuntimeError: the slot broke") and str(desktop.home.log_dir) in box.text()
    text = log_text(desktop.home)
    assert "Traceback" in text and "in explode" in text and "RuntimeError: the slot broke" in text

    box.close()
    QTimer.singleShot(0, boom.explode)  # the same failure again: logged, not shown again
    qtbot.waitUntil(lambda: log_text(desktop.home).count("RuntimeError: the slot broke") == 2, timeout=5000)
    QApplication.processEvents()
    assert not box.isVisible()
    QTimer.singleShot(0, lambda: (_ for _ in ()).throw(ValueError("another one")))
    qtbot.waitUntil(box.isVisible, timeout=5000)
    assert "ValueError: another one" in box.text() and "2 different errors" in box.text()
    # the box does not block the window: typing still reaches the composer
    desktop.window.composer.setEnabled(True)
    desktop.window.activateWindow()
    desktop.window.composer.edit.setFocus()
    qtbot.keyClicks(desktop.window.composer.edit, "still typing")
    assert desktop.window.composer.edit.toPlainText() == "still typing"


def test_a_failing_task_nobody_awaits_is_logged_and_shown(qtbot, qloop, desktop):
    async def fails() -> None:
        raise KeyError("lost key")

    task = qloop.create_task(fails())
    qtbot.waitUntil(task.done, timeout=5000)
    del task  # asyncio reports an unretrieved exception when the task is collected
    gc.collect()
    qtbot.waitUntil(lambda: desktop.errors.box is not None and desktop.errors.box.isVisible(), timeout=5000)
    assert "KeyError: 'lost key'" in desktop.errors.box.text()
    assert "Task exception was never retrieved" in log_text(desktop.home)


def test_help_open_log_folder_opens_the_homes_log_folder(qtbot, desktop):
    opened: list[QUrl] = []

    class FileHandler(QObject):
        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            opened.append(url)

    handler = FileHandler()
    QDesktopServices.setUrlHandler("file", handler, "open")
    try:
        bar = desktop.window.menuBar()
        help_menu = next(m for m in desktop.window.findChildren(QMenu) if m.title().replace("&", "") == "Help")
        QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(help_menu.menuAction()).center())
        qtbot.waitUntil(help_menu.isVisible, timeout=3000)
        item = next(a for a in help_menu.actions() if a.text().replace("&", "") == "Open log folder")
        QTest.mouseClick(help_menu, Qt.MouseButton.LeftButton, pos=help_menu.actionGeometry(item).center())
        qtbot.waitUntil(lambda: len(opened) == 1, timeout=3000)
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert Path(opened[0].toLocalFile()) == desktop.home.log_dir and desktop.home.log_dir.is_dir()


def test_the_error_boxs_open_log_folder_says_in_the_window_when_nothing_opens_it(qtbot, desktop):
    """Issue 46 item 5: a failed action says so in the window; offscreen nothing opens a folder."""
    QTimer.singleShot(0, Boom().explode)
    qtbot.waitUntil(lambda: desktop.errors.box is not None and desktop.errors.box.isVisible(), timeout=5000)
    logs = next(b for b in desktop.errors.box.buttons() if b.text() == "Open log folder")
    QTest.mouseClick(logs, Qt.MouseButton.LeftButton)
    status = desktop.window.statusBar()
    qtbot.waitUntil(lambda: status.currentMessage().startswith(f"Could not open the log folder {desktop.home.log_dir}"), timeout=5000)
