"""Untrusted Markdown stays text (no HTML, no remote loads); extension parts become cards."""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QFont, QFontMetrics, QTextDocument, QTextFormat

from parler_desktop.protocol.parts import BundleRef, Dispatch, FileRef, Handoff, TaskStatus
from parler_desktop.app.timeline.cards import card_for, human_size
from parler_desktop.ui.timeline.markdown import markdown_document
from parler_desktop.protocol.mentions import mentions_human
from parler_desktop.ui.timeline.markdown import with_hard_breaks
from parler_desktop.ui.timeline.row_text import MAX_SHOWN_CHARS, fold, shown_text


def test_markdown_formats_but_raw_html_stays_literal_text(qapp):
    document = markdown_document("**bold** <b>raw</b> <script>alert(1)</script> &amp;\n\n- item")
    text = document.toPlainText()
    assert "bold" in text and "<b>raw</b>" in text and "<script>alert(1)</script>" in text
    assert "**" not in text
    fragment_bold = document.begin().begin().fragment().charFormat().fontWeight()
    assert fragment_bold > 400


def test_images_are_never_loaded_and_show_as_their_address(qapp):
    document = markdown_document("look ![chart](http://evil.example/pixel.png) here")
    assert "[image: http://evil.example/pixel.png]" in document.toPlainText()
    block = document.begin()
    iterator = block.begin()
    while not iterator.atEnd():
        assert not iterator.fragment().charFormat().isImageFormat()
        iterator += 1
    assert document.loadResource(QTextDocument.ResourceType.ImageResource.value, QUrl("http://evil.example/x")) is None


def test_handoff_card_names_addressee_and_highlights_when_for_me():
    part = Handoff(next="wire the login UI", summary="rotation done", to="Boss").to_part()
    card = card_for(part, "boss", "supervisor")
    assert card.title == "➤ handoff → Boss: wire the login UI" and card.detail == "done: rotation done"
    assert card.highlight
    assert not card_for(Handoff(next="x", to="webdev").to_part(), "boss", "supervisor").highlight


def test_task_file_bundle_dispatch_and_unknown_cards():
    task = card_for(TaskStatus(status="awaiting", task="0190f3c2-aaaa", note="which DB?").to_part(), "boss", None)
    assert task.title == "⚑ task awaiting (0190f3c2-aaa)" and task.detail == "which DB?"
    file = card_for(FileRef(blob="ab" * 32, name="../../etc/report.pdf", size=4096, summary="Q3").to_part(), "boss", None)
    assert file.title == "⬇ report.pdf (4.0 KiB)" and file.file_name == "report.pdf" and file.blob_id == "ab" * 32
    bundle = card_for(BundleRef(blob="cd" * 32, vcs="git", size=20480, tip="c0ffee1234567890", summary="fix login").to_part(), "boss", None)
    assert bundle.title == "▣ fix login @c0ffee123456 (20.0 KiB)" and bundle.blob_id == "cd" * 32
    assert card_for(Dispatch(role="review").to_part(), "boss", None).title == "✉ work for role “review”"
    assert card_for({"kind": "com.acme.thing", "x": 1}, "boss", None).title == "[com.acme.thing]"
    assert card_for({"kind": "data", "data": {"a": [1, 2]}}, "boss", None).detail == '{"a":[1,2]}'
    assert human_size(12) == "12 bytes"


def test_a_huge_message_is_shown_cut_short():
    assert shown_text("short") == "short"
    cut = shown_text("x" * (MAX_SHOWN_CHARS + 500))
    assert cut.startswith("x" * MAX_SHOWN_CHARS) and "500 more characters not shown" in cut


def test_a_message_mentions_the_human_by_name_or_role():
    def mentions(text: str, listed: tuple[str, ...] = (), sender: str = "UALICE") -> bool:
        return mentions_human(sender, ({"kind": "text", "text": text},), listed, "UME", "boss", "supervisor")

    assert mentions("hey @Boss") and mentions("@boss: ship it") and mentions("ping", ("supervisor",))
    assert not mentions("hey boss") and not mentions("mail @bossman") and not mentions("a@boss.example")
    assert not mentions("note to self @boss", sender="UME")
    handoff = Handoff(next="review", to="Boss").to_part()
    assert mentions_human("UALICE", (handoff,), (), "UME", "boss", None)


def shaded_runs(document: QTextDocument) -> list[tuple[str, bool]]:
    """(text, shaded) of each run of one format in the first block."""
    runs = []
    iterator = document.begin().begin()
    while not iterator.atEnd():
        fragment = iterator.fragment()
        runs.append((fragment.text(), fragment.charFormat().hasProperty(QTextFormat.Property.BackgroundBrush)))
        iterator += 1
    return runs


def test_every_code_span_is_shaded_and_nothing_else(qapp):
    runs = shaded_runs(markdown_document("`a b` and `a`, then `X` beside x and `x`; `a`"))
    assert [text for text, shaded in runs if shaded] == ["a b", "a", "X", "x", "a"]
    assert not any(shaded for text, shaded in runs if "beside" in text or "and" in text)
    # The code's own characters run up to it (the importer's way: the line has a link)
    runs = shaded_runs(markdown_document("a`aa` and }`}}` see <https://example.com>"))
    assert [text for text, shaded in runs if shaded] == ["aa", "}}"]


def test_single_newlines_are_line_breaks_outside_code(qapp):
    assert with_hard_breaks("one\ntwo\n\nthree") == "one  \ntwo\n\nthree"
    assert with_hard_breaks("```\na\nb\n```\nx\ny") == "```\na\nb\n```\nx  \ny"
    document = markdown_document("first line\nsecond line")
    assert document.toPlainText().splitlines() == ["first line", "second line"]


def shown_blocks(text: str) -> list[tuple[str, str]]:
    """Each block of the rendered ``text``: its text and its list marker ("" outside a list)."""
    document, shown = markdown_document(text), []
    block = document.begin()
    while block.isValid():
        items = block.textList()
        shown.append((block.text(), items.itemText(block) if items else ""))
        block = block.next()
    return shown


def test_a_line_under_a_list_is_not_one_more_item(qapp):
    """Lines typed under a list read as in a chat: an unindented one ends the list, an indented
    one is a new line inside its item; neither is numbered as an item nobody wrote."""
    assert shown_blocks("1. build\n2. test\nDone, thanks.") == [("build", "1."), ("test", "2."), ("Done, thanks.", "")]
    assert shown_blocks("- a\n- b\nafter") == [("a", "."), ("b", "."), ("after", "")]
    assert shown_blocks("1. first\n   more\n   and more\n2. second\nDone") == [
        ("first\u2028more\u2028and more", "1."), ("second", "2."), ("Done", "")]
    assert shown_blocks("intro\n- a\n- b") == [("intro", ""), ("a", "."), ("b", ".")]
    nested = [("a", "1."), ("sub1", "."), ("sub2", "."), ("b", "2.")]  # items under an item stay items, at any indent
    assert shown_blocks("1. a\n    - sub1\n    - sub2\n2. b") == shown_blocks("1. a\n  - sub1\n  - sub2\n2. b") == nested
    assert shown_blocks("-5 degrees\nstill cold") == [("-5 degrees", ""), ("still cold", "")]


def test_headings_are_only_a_little_larger_than_the_body(qapp):
    body_font = QFont("Sans Serif", 10)
    document = markdown_document("# Sprint 12 plan\n\n## Goals with `code`\n\n### Details\n\nbody text", body_font)
    sizes: dict[int, list[tuple[float, int]]] = {}
    block = document.begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fragment_format = iterator.fragment().charFormat()
            sizes.setdefault(block.blockFormat().headingLevel(), []).append((fragment_format.font().pointSizeF(), fragment_format.fontWeight()))
            iterator += 1
        block = block.next()
    assert sizes[0] == [(10.0, 400)]
    assert sizes[1] == [(13.0, 700)]
    assert {size for size, _ in sizes[2]} == {11.5} and {weight for _, weight in sizes[2]} == {700} and len(sizes[2]) == 2
    assert sizes[3] == [(10.0, 700)]
    assert document.begin().layout().boundingRect().height() < 1.6 * QFontMetrics(body_font).height()


def test_a_pixel_sized_body_font_scales_headings_in_pixels(qapp):
    body_font = QFont("Sans Serif")
    body_font.setPixelSize(20)
    document = markdown_document("# Title", body_font)
    heading = document.begin().begin().fragment().charFormat()
    assert heading.intProperty(QTextFormat.Property.FontPixelSize) == 26


def test_a_short_body_is_not_folded_and_a_long_one_is_cut_between_lines(qapp):
    font = QFont("Sans Serif", 10)
    line = QFontMetrics(font).lineSpacing()
    short = markdown_document("\n\n".join(f"paragraph {n}" for n in range(3)), font)
    short.setTextWidth(500)
    assert fold(short, 20 * line) is None
    barely = markdown_document("\n\n".join(f"paragraph {n}" for n in range(14)), font)  # a line or two past the limit
    barely.setTextWidth(500)
    assert barely.size().height() > 20 * line and fold(barely, 20 * line) is None
    long = markdown_document("```\n" + "\n".join(f"log line {n}" for n in range(100)) + "\n```", font)
    long.setTextWidth(500)
    cut, hidden = fold(long, 20 * line)
    code_line = long.begin().layout().lineAt(0).height()
    assert 20 * line - code_line < cut <= 20 * line and cut % code_line == 0
    assert hidden == 100 - cut // code_line
