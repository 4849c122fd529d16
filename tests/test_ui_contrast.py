"""Every text the window draws reads on the ground it is drawn on, in both schemes (issue 46:
under a dark desktop the "Save…" link measured 1.3:1, an author on a highlighted handoff row
1.7:1, a handoff's detail line, "Live as root" and "New messages" 2.2–2.9:1).

WCAG 2: 4.5:1 for text, 3:1 for badges, marks and dots (shapes read by their colour). Each pair
is a foreground with the ground it is painted on: a row's grounds (plain, the human's own, one
that mentions the human or hands them work, the selected row), a card's on top of them, the
room list's rows and headings, the bars above the timeline. ``test_journey_appearance.py``
measures the same on the painted window.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel
from support.contrast import over, painted, ratio

from parler_desktop.app.appearance.palettes import DARK, LIGHT, Colours
from parler_desktop.app.hubs.connection_status import StatusView, Tone
from parler_desktop.ui.appearance.theme import theme
from parler_desktop.ui.composer.composer import Composer
from parler_desktop.ui.hubs.connection_bar import ConnectionBar

TEXT, SHAPE = 4.5, 3.0


def drawn_pairs(c: Colours) -> list[tuple[str, str, str, float]]:
    """(what, foreground, ground, minimum) for everything the window paints."""
    rows = {"plain row": c.base, "own row": c.mine_row, "mentioned row": c.mention_row, "selected row": c.selected_row}
    pairs: list[tuple[str, str, str, float]] = []
    for row, ground in rows.items():
        code = over(QColor(c.code_shade), QColor(ground)).name()
        pairs += [(f"author {number} on a {row}", name, ground, TEXT) for number, name in enumerate(c.names)]
        pairs += [
            (f"time and role on a {row}", c.muted, ground, TEXT),
            (f"message text on a {row}", c.text, ground, TEXT),
            (f"inline code on a {row}", c.text, code, TEXT),
            (f"link, reply line, Show more on a {row}", c.link, ground, TEXT),
            (f"Sending… on a {row}", c.muted, ground, TEXT),
            (f"Failed on a {row}", c.failed, ground, TEXT),
            (f"✓ on a {row}", c.signed, ground, SHAPE),
            (f"✗ on a {row}", c.forged, ground, SHAPE),
        ]
    for card, ground in (("card", c.card), ("handoff card", c.handoff_card)):
        pairs += [
            (f"{card} title", c.text, ground, TEXT),
            (f"{card} detail line", c.muted, ground, TEXT),
            (f"{card} Save… link", c.link, ground, TEXT),
        ]
    pairs += [
        ("card and Retry buttons", c.button_text, c.button, TEXT),
        ("you (human) tag, selected text, selected room and search hit", c.highlighted_text, c.highlight, TEXT),
        ("date rule", c.muted, c.base, TEXT),
        ("New messages", c.divider, c.base, TEXT),
        ("invalid signature band", c.warning_text, c.warning_band, TEXT),
        ("room name, member name", c.text, c.base, TEXT),
        ("room preview, member detail, offline member", c.muted, c.base, TEXT),
        ("unread badge", c.badge_text, c.unread_badge, TEXT),
        ("mention badge", c.badge_text, c.mention_badge, TEXT),
        ("unread badge on the list", c.unread_badge, c.base, SHAPE),
        ("mention badge on the list", c.mention_badge, c.base, SHAPE),
        ("hub heading", c.text, c.alternate_base, TEXT),
        ("focused hub heading", c.text, c.midlight, TEXT),
        ("room title, Members, labels", c.window_text, c.window, TEXT),
        ("errors in the composer and dialogs", c.failed, c.window, TEXT),
        ("agents' hint line", c.hint_text, c.hint_ground, TEXT),
        ("tooltip", c.tooltip_text, c.tooltip_base, TEXT),
        ("button", c.button_text, c.button, TEXT),
        ("field text", c.text, c.base, TEXT),
        ("field placeholder", c.muted, c.base, TEXT),
    ]
    for tone, colour in c.heading_tones.items():
        pairs += [(f"hub heading's {tone.value} line", colour, c.alternate_base, TEXT), (f"focused heading's {tone.value} line", colour, c.midlight, TEXT)]
    pairs += [(f"connection line, {tone.value}", text, ground, TEXT) for tone, (ground, text) in c.connection_tones.items()]
    for state, colour in c.agent_dots.items():
        pairs += [(f"agents' dot {state.name.lower()}", colour, c.base, SHAPE)]
    pairs += [(f"presence dot {status}", colour, c.base, SHAPE) for status, colour in c.presence_dots.items()]
    return pairs


@pytest.mark.parametrize("colours", [LIGHT, DARK], ids=["light", "dark"])
def test_every_text_role_reads_on_its_ground(colours: Colours) -> None:
    short = [
        f"{what}: {ratio(QColor(fg), QColor(ground)):.2f}:1 < {minimum}:1 ({fg} on {ground})"
        for what, fg, ground, minimum in drawn_pairs(colours)
        if ratio(QColor(fg), QColor(ground)) < minimum
    ]
    assert not short, "\n".join(short)


@pytest.fixture
def light_again():
    yield
    theme.apply(LIGHT)


def test_the_connection_line_and_error_words_follow_a_switch_of_scheme_as_painted(qtbot, light_again):
    """Widgets styled by style sheets (the connection line in each tone, the composer's error
    line) are painted in the new scheme's colours once it is applied, without being told."""
    bar = ConnectionBar()
    bar.resize(600, 40)
    qtbot.addWidget(bar)
    composer = Composer()
    qtbot.addWidget(composer)
    problem = composer.findChild(QLabel, "composerProblem")
    problem.setText("Not sent: the hub refused it")
    problem.show()
    for widget in (bar, composer):
        widget.show()
        qtbot.waitExposed(widget)
    for colours in (LIGHT, DARK, LIGHT):
        theme.apply(colours)
        for tone in Tone:
            bar.show_status(StatusView(tone, "Offline — retrying in 3 s"))
            ground, ink = painted(bar.grab().toImage(), bar.label.geometry())
            assert (ground.name(), ink.name()) == colours.connection_tones[tone] and ratio(ground, ink) >= TEXT
        ground, ink = painted(problem.grab().toImage(), problem.rect())
        assert (ground, ink) == (QColor(colours.window), QColor(colours.failed)) and ratio(ground, ink) >= TEXT
