"""View → Appearance → Dark through the real window's menu (issue 46, dark theme and contrast):
the application's palette becomes the dark one, the timeline is painted again in it, and what
was measured unreadable under a dark desktop (the "Save…" link 1.3:1, an author on a handoff
row 1.7:1, the handoff's detail line and "New messages" 2.2–2.9:1) is measured on the painted
pixels at 4.5:1 or more; the choice is kept in the settings, and System follows the desktop."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import QCoreApplication, QEvent, QRect, Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtTest import QTest
from support.contrast import painted, ratio
from support.desktop_fixtures import click_room, join_room, post_as, room_row, unread
from support.qt_loop import qloop, run_coroutine  # noqa: F401 - fixture
from test_ui_timeline_speed import on_screen

from parler_desktop.app.appearance.palettes import DARK, LIGHT, Colours
from parler_desktop.app.appearance.scheme import Scheme, SchemeChoice
from parler_desktop.app.hubs.connection_status import Tone
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.timeline.message_layout import CARD_PAD, DATE_HEIGHT, DIVIDER_HEIGHT, PAD
from parler_desktop.ui.room_list.room_list_view import TEXT_LEFT
from parler_desktop.ui.timeline.message_delegate import name_colour

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def light_again():
    """Later tests in this process find the light scheme, whatever happened here."""
    yield
    QGuiApplication.styleHints().unsetColorScheme()
    theme.apply(LIGHT)


def choose_appearance(qtbot, window, label: str) -> None:
    """View → Appearance → ``label``, clicked as a person does."""
    bar = window.menuBar()
    view = next(a for a in bar.actions() if a.text().replace("&", "") == "View")
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(view).center())
    qtbot.waitUntil(view.menu().isVisible, timeout=5000)
    appearance = next(a for a in view.menu().actions() if a.text().replace("&", "") == "Appearance")
    QTest.mouseClick(view.menu(), Qt.MouseButton.LeftButton, pos=view.menu().actionGeometry(appearance).center())
    submenu = appearance.menu()
    qtbot.waitUntil(submenu.isVisible, timeout=5000)
    item = next(a for a in submenu.actions() if a.text().replace("&", "") == label)
    QTest.mouseClick(submenu, Qt.MouseButton.LeftButton, pos=submenu.actionGeometry(item).center())
    qtbot.waitUntil(lambda: not view.menu().isVisible(), timeout=5000)
    assert item.isChecked()


def send_parts(qtbot, qloop, peer, room: str, text: str, part: dict) -> dict:
    frame = {"op": "send", "target": {"kind": "room", "room": room}, "parts": [{"kind": "text", "text": text}, part]}
    return run_coroutine(qtbot, qloop, peer.ok(frame, "sent"))


def measured(image, area: QRect) -> tuple[QColor, QColor, float]:
    ground, ink = painted(image, area)
    return ground, ink, ratio(ground, ink)


def check_painted(qtbot, desktop, colours: Colours) -> None:
    """The window as it shows: the handoff row on the scheme's mention ground, its author,
    time, detail line, the file's Save…, "New messages" and the selected message's text at
    4.5:1 or more; in the room list the
    open room's row, another's unread badge and, with several hubs, the hub's connection line."""
    window = desktop.window
    timeline, model = window.timeline, window.timeline_model
    QCoreApplication.sendPostedEvents(window, QEvent.Type.UpdateRequest)
    image = on_screen(timeline)
    line = timeline.fontMetrics().height()

    first = timeline.visualRect(model.index(0))
    divider = QRect(first.left(), first.top() + DATE_HEIGHT, first.width(), DIVIDER_HEIGHT)
    ground, ink, contrast = measured(image, divider.adjusted(PAD, 2, -PAD, -2))
    assert ground == QColor(colours.base) and contrast >= 4.5, ("New messages", ground.name(), ink.name(), contrast)

    handoff = model.index(0)
    row, layout = timeline.visualRect(handoff), timeline.row_layout(handoff)
    name = QRect(row.left() + PAD, row.top() + layout.header_top, timeline.fontMetrics().horizontalAdvance("alice") + 4, line)
    ground, ink, contrast = measured(image, name)
    assert ground == QColor(colours.mention_row), ("the handoff row's ground", ground.name())
    assert ink == name_colour(model.entry(0).sender_id) and contrast >= 4.5, ("author", ink.name(), contrast)
    ground, ink, contrast = measured(image, layout.time_rect.translated(row.topLeft()))
    assert (ground, ink) == (QColor(colours.mention_row), QColor(colours.muted)) and contrast >= 4.5, ("time", ink.name(), contrast)
    box = layout.cards[0].box.translated(row.topLeft())
    detail = QRect(box.left() + CARD_PAD, box.top() + CARD_PAD + line + 1, box.width() // 2, line)
    ground, ink, contrast = measured(image, detail)
    assert ground == QColor(colours.handoff_card) and ink == QColor(colours.muted) and contrast >= 4.5, ("handoff detail", ground.name(), ink.name(), contrast)

    file_row = model.index(1)
    save = timeline.row_layout(file_row).cards[0].save.translated(timeline.visualRect(file_row).topLeft())
    ground, ink, contrast = measured(image, save)
    assert ground == QColor(colours.card) and ink == QColor(colours.link) and contrast >= 4.5, ("Save…", ground.name(), ink.name(), contrast)
    chosen = model.index(2)  # the message the reader selected
    layout = timeline.row_layout(chosen)
    body = QRect(PAD, layout.body_top, timeline.viewport().width() // 2, layout.body_height).translated(timeline.visualRect(chosen).topLeft())
    ground, ink, contrast = measured(image, body)
    assert (ground, ink) == (QColor(colours.selected_row), QColor(colours.text)) and contrast >= 4.5, ("selected", ground.name(), ink.name(), contrast)

    rooms = window.room_panel.view

    def later_badge() -> tuple[QColor, QColor, float]:
        """Another room's unread badge, at the right of its first line, as the list shows it."""
        QCoreApplication.sendPostedEvents(window, QEvent.Type.UpdateRequest)
        later = rooms.visualRect(room_row(desktop, "later"))
        return measured(on_screen(rooms), QRect(later.right() - 6 - (line + 4) + 3, later.top() + 8, line - 2, line - 2))

    qtbot.waitUntil(lambda: later_badge()[0] != QColor(colours.base), timeout=5000)  # the list painted its new message
    ground, ink, contrast = later_badge()
    assert (ground, ink) == (QColor(colours.unread_badge), QColor(colours.badge_text)) and contrast >= 4.5, ("badge", ground.name(), ink.name())
    image = on_screen(rooms)
    row = rooms.visualRect(room_row(desktop, "reviews"))
    ground, ink, contrast = measured(image, QRect(row.left() + TEXT_LEFT, row.top() + 6, 60, line + 2))
    assert (ground, ink) == (QColor(colours.highlight), QColor(colours.highlighted_text)) and contrast >= 4.5, "the open room's row"
    if len(desktop.hubs.entries) > 1:  # the hubs' headings: "Live as boss" in its tone
        heading = rooms.visualRect(room_row(desktop, None, window.shown_hub.url))
        ground, ink, contrast = measured(image, QRect(heading.left() + TEXT_LEFT, heading.top() + 6 + line, 60, line))
        assert ground == QColor(colours.alternate_base) and ink == QColor(colours.heading_tones[Tone.OK]) and contrast >= 4.5, ink.name()


def test_view_appearance_dark_repaints_the_window_readably_and_is_kept(qtbot, qloop, desktop, peer):
    window = desktop.window
    later = join_room(qtbot, qloop, desktop, peer, "later")
    room = join_room(qtbot, qloop, desktop, peer, "reviews")
    send_parts(qtbot, qloop, peer, room, "over to you", {"kind": "com.parler.handoff", "next": "review the release notes", "to": "boss", "summary": "notes drafted, links checked"})
    send_parts(qtbot, qloop, peer, room, "the notes", {"kind": "com.parler.file", "blob": "b" * 64, "name": "release-notes.md", "size": 2048})
    post_as(qtbot, qloop, peer, room, "the build is **green** now, `make check` passes")
    click_room(qtbot, desktop, room)
    qtbot.waitUntil(lambda: window.timeline_model.rowCount() == 3, timeout=5000)
    post_as(qtbot, qloop, peer, later, "one for later")
    qtbot.waitUntil(lambda: unread(desktop, later) == 1, timeout=5000)
    assert window.timeline_model.first_unread_row() == 0
    timeline = window.timeline
    QTest.mouseClick(timeline.viewport(), Qt.MouseButton.LeftButton, pos=timeline.visualRect(window.timeline_model.index(2)).center())
    qtbot.waitUntil(lambda: timeline.currentIndex().row() == 2, timeout=5000)
    check_painted(qtbot, desktop, LIGHT)

    choose_appearance(qtbot, window, "Dark")
    assert QGuiApplication.palette().color(QPalette.ColorRole.Base) == QColor(DARK.base)
    assert window.timeline.palette().color(QPalette.ColorRole.Text) == QColor(DARK.text)
    check_painted(qtbot, desktop, DARK)
    settings = desktop.home.settings_file
    qtbot.waitUntil(lambda: json.loads(settings.read_text(encoding="utf-8")).get("appearance") == "dark", timeout=5000)
    bar = window.connection_bar
    ground, ink = painted(bar.grab().toImage(), bar.label.geometry())
    assert (ground, ink) == tuple(QColor(c) for c in DARK.connection_tones[desktop.shown.entry.status.view.tone])

    choose_appearance(qtbot, window, "Light")
    check_painted(qtbot, desktop, LIGHT)
    qtbot.waitUntil(lambda: json.loads(settings.read_text(encoding="utf-8")).get("appearance") == "light", timeout=5000)


def test_system_follows_the_desktop_until_a_scheme_is_chosen(qtbot, qloop, desktop):
    """The desktop switching to dark (Qt's colorSchemeChanged) turns the window dark while
    Appearance is System; a scheme chosen in the menu holds until System is chosen again."""
    window = desktop.window
    hints = QGuiApplication.styleHints()

    def base() -> QColor:
        return QGuiApplication.palette().color(QPalette.ColorRole.Base)

    assert window.appearance.actions[Scheme.SYSTEM].isChecked()  # the default
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert base() == QColor(DARK.base)
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert base() == QColor(LIGHT.base)
    choose_appearance(qtbot, window, "Light")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert base() == QColor(LIGHT.base)
    choose_appearance(qtbot, window, "System")
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert base() == QColor(DARK.base)


@pytest.mark.parametrize(("kept", "shown"), [("dark", "Dark"), ("light", "Light"), ("sepia", "System")])
def test_the_scheme_kept_in_the_settings_is_shown_as_the_window_opens(qtbot, tmp_path, kept: str, shown: str):
    """What the settings keep is applied before the window shows (a name this version does not
    know, say from a newer one: System)."""
    from PySide6.QtWidgets import QMenu

    from parler_desktop.client.tasks import TaskSupervisor
    from parler_desktop.paths import Home
    from parler_desktop.settings import Settings, save_settings
    from parler_desktop.ui.appearance.appearance_menu import AppearanceMenu, initial_schemes
    from parler_desktop.ui.appearance.saved_scheme import SavedScheme

    home = Home.resolve(tmp_path / "home").ensure()
    save_settings(home.settings_file, Settings(appearance=kept))
    view = QMenu()
    qtbot.addWidget(view)
    appearance = AppearanceMenu(view, initial_schemes(view))
    SavedScheme(appearance, home, TaskSupervisor("appearance test"), lambda _text: None)
    assert [a.text().replace("&", "") for a in appearance.actions.values() if a.isChecked()] == [shown]
    expected = DARK if kept == "dark" else LIGHT  # (the offscreen platform reports no scheme, and a light palette)
    assert QGuiApplication.palette().color(QPalette.ColorRole.Base) == QColor(expected.base)


@pytest.mark.parametrize(("platform_dark", "expected"), [(True, DARK), (False, LIGHT)])
def test_a_desktop_that_reports_no_scheme_is_read_by_its_palette(qapp, platform_dark: bool, expected: Colours):
    """Qt reports ``Unknown`` where the platform says nothing (here, offscreen): System then
    follows the lightness of the desktop's own palette (a dark Qt theme without a scheme)."""
    assert QGuiApplication.styleHints().colorScheme() is Qt.ColorScheme.Unknown
    choice = SchemeChoice(platform_dark)
    assert choice.choice is Scheme.SYSTEM and choice.colours is expected
    choice.deleteLater()
