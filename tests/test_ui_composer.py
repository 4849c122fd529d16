"""The composer: Enter / Shift+Enter, @-mentions from the roster, replies and hand-offs."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from parler_desktop.app.timeline.timeline_entry import TimelineEntry
from parler_desktop.protocol.parts import Handoff
from parler_desktop.ui.composer.composer import Composer, mentions_in


def make_composer(qtbot) -> tuple[Composer, list]:
    composer = Composer()
    qtbot.addWidget(composer)
    composer.set_names(["alice", "Bob", "carol.k"])
    sent: list = []

    def save(*args: object) -> None:  # what the window does once the outbox holds it
        sent.append(args)
        composer.accepted()

    composer.submitted.connect(save)
    return composer, sent


def test_mentions_are_known_names_written_with_an_at_sign():
    names = ["alice", "Bob", "carol.k"]
    assert mentions_in("@Bob and @alice, also @alice and @nobody; mail bob@alice.org", names) == ["bob", "alice"]
    assert mentions_in("thanks @carol.k.", names) == ["carol.k"]


def test_enter_sends_shift_enter_breaks_the_line(qtbot):
    composer, sent = make_composer(qtbot)
    qtbot.keyClicks(composer.edit, "first line")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(composer.edit, "second")
    assert sent == []
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert sent == [("first line\nsecond", [], None, [])] and composer.edit.toPlainText() == ""
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert len(sent) == 1  # nothing to send


def test_reply_carries_the_message_id_and_is_cleared_after_sending(qtbot):
    composer, sent = make_composer(qtbot)
    original = TimelineEntry(
        key="m7", room="team", seq=7, message_id="m7", sender_id="UALICE", sender_name="alice", sender_role=None,
        ts_ms=0, parts=({"kind": "text", "text": "which DB?"},), mentions=(), reply_to=None, mine=False,
    )
    composer.set_reply(original)
    composer.edit.setPlainText("postgres, @alice")
    composer.send()
    assert sent == [("postgres, @alice", ["alice"], "m7", [])]
    composer.edit.setPlainText("next")
    composer.send()
    assert sent[-1][2] is None


def test_handoff_adds_the_part_and_mentions_the_addressee(qtbot):
    composer, sent = make_composer(qtbot)
    composer.edit.setPlainText("over to you")
    composer.send_handoff(Handoff(next="deploy to staging", summary="tests green", to="Bob"))
    text, mentions, reply_to, parts = sent[0]
    assert text == "over to you" and mentions == ["bob"] and reply_to is None
    assert parts == [{"kind": "com.parler.handoff", "next": "deploy to staging", "summary": "tests green", "to": "Bob"}]


def test_a_message_that_could_not_be_saved_stays_with_the_reason(qtbot):
    composer = Composer()
    qtbot.addWidget(composer)
    submitted: list = []
    composer.submitted.connect(lambda *args: submitted.append(args))
    composer.show()
    qtbot.keyClicks(composer.edit, "keep me")
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)  # pressed again while it is being saved
    assert len(submitted) == 1 and composer.saving and composer.edit.toPlainText() == "keep me"
    composer.refused("Not sent: the disk is full — free some space, then press Send again.")
    problem = composer.findChild(QLabel, "composerProblem")
    assert problem.isVisible() and "disk is full" in problem.text()
    assert composer.edit.toPlainText() == "keep me" and not composer.saving
    qtbot.keyClick(composer.edit, Qt.Key.Key_Return)
    assert len(submitted) == 2
    composer.accepted()
    assert composer.edit.toPlainText() == "" and not problem.isVisible()
