"""The everyday line is built without Qt's Markdown importer, into the document the importer
(and the shading after it) would have built; anything else is left to the importer."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtGui import QFont, QTextDocument

from parler_desktop.ui.timeline import markdown
from parler_desktop.ui.timeline.inline_markdown import inline_runs
from parler_desktop.ui.timeline.markdown import blank_document, fill_document, import_markdown

pytestmark = pytest.mark.timeout(120)


def described(document: QTextDocument) -> list[object]:
    """Everything a reader could see of ``document``: each block's format and each run of text
    with its format (formats compared by Qt's own equality), and its HTML."""
    seen: list[object] = [document.toHtml()]
    block = document.begin()
    while block.isValid():
        seen.append(block.blockFormat())
        seen.append(block.charFormat())
        iterator = block.begin()
        while not iterator.atEnd():
            fragment = iterator.fragment()
            seen.append((fragment.text(), fragment.charFormat()))
            iterator += 1
        block = block.next()
    return seen


def assert_as_imported(text: str, font: QFont | None = None) -> None:
    font = font or QFont("Sans Serif", 11)
    built, imported = fill_document(blank_document(font), text), import_markdown(blank_document(font), text)
    assert described(built) == described(imported), text
    for width in (40, 400):
        built.setTextWidth(width)
        imported.setTextWidth(width)
        assert built.size() == imported.size(), (text, width)


def test_everyday_lines_take_the_inline_way(qapp):
    assert inline_runs("push 4: the **build** is green, `pytest -q` passed") == [
        ("push 4: the ", "plain"),
        ("build", "strong"),
        (" is green, ", "plain"),
        ("pytest -q", "code"),
        (" passed", "plain"),
    ]
    assert inline_runs("*maybe* later, see `a*b` (not **now**).") == [
        ("maybe", "emphasis"),
        (" later, see ", "plain"),
        ("a*b", "code"),
        (" (not ", "plain"),
        ("now", "strong"),
        (").", "plain"),
    ]
    assert inline_runs("plain words, 3 of them: done!") == [("plain words, 3 of them: done!", "plain")]
    assert inline_runs("3 tests fail in `auth`") == [("3 tests fail in ", "plain"), ("auth", "code")]
    assert inline_runs("`test_login` fails on `a<b && c[0]`") == [
        ("test_login", "code"),
        (" fails on ", "plain"),
        ("a<b && c[0]", "code"),
    ]
    for text in ("push 4: the **build** is green, `pytest -q` passed", "*maybe* later, see `a*b` (not **now**).", "`x_y`", "ok"):
        for font in (QFont(), QFont("Sans Serif", 11), QFont("Serif", 15)):
            assert_as_imported(text, font)


@pytest.mark.parametrize(
    "text",
    [
        "- a list item",
        "1. first",
        "2) second",
        "12.",
        "# heading",
        "> quoted",
        "---",
        "first\nsecond",
        "tab\there",
        "a [link](https://example.com)",
        "see https://example.com",
        "www.example.com",
        "mail me@example.com",
        "snake_case_name",
        "~~struck~~",
        "a | table",
        "<b>html</b>",
        "fish &amp; chips",
        "back\\slash",
        "**bold *and em* too**",
        "***both***",
        "a ** b **",
        "2*3*4",
        "**bold**text",
        "**a**`b`",
        "``double``",
        "`a``b`",
        "` spaced `",
        "an `unpaired backtick",
        " leading space",
        "trailing space ",
        "a\u00a0*nbsp*",
        "parler://hub/room/message",
    ],
)
def test_other_markdown_takes_the_importers_way(qapp, text):
    assert inline_runs(text) is None
    assert described(fill_document(blank_document(), text)) == described(import_markdown(blank_document(), text))


TOKENS = ["word", "Ünï", "漢字", "🚀", "e\u0301", "9", "1.", "2)", " ", "  ", "*", "**", "***", "`", "``", "."]
TOKENS += [",", ":", ";", "!", "?", "(", ")", "{", "}", "'", '"', "/", "%", "$", "^", "#", "-", "+", "="]
TOKENS += ["_", "<", ">", "&", "[", "]", "~", "|", "@", "\\", "://", "www.", "parler://hub/r/m"]  # literal in code only


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=12).map("".join))
def test_whatever_the_inline_way_takes_it_builds_as_the_importer_does(qapp, text):
    if inline_runs(text) is not None:
        assert_as_imported(text)


CODE_TOKENS = ["a", " ", "_", "<", ">", "&", "[", "]", "~", "|", "@", "\\", "*", "**", "&amp;", "<b>", "[x](y)", "_i_", "#"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(["", "see ", "**b** "]),
    st.lists(st.sampled_from(CODE_TOKENS), min_size=1, max_size=6).map("".join),
    st.sampled_from(["", " done", ".", " *e*"]),
)
def test_what_is_markdown_elsewhere_is_literal_in_code_either_way(qapp, before, code, after):
    text = f"{before}`{code}`{after}"
    if inline_runs(text) is not None:
        assert_as_imported(text)


def test_without_every_kind_of_run_in_the_sample_every_line_takes_the_importers_way(qapp, monkeypatch):
    monkeypatch.setattr(markdown, "INLINE_SAMPLE", "plain **strong** `code`")  # as a Qt that merged emphasis away
    monkeypatch.setattr(markdown, "_INLINE_FORMATS", {})
    document = blank_document(QFont("Serif", 13))
    assert document.inline_formats is None
    text = "the **build** is green, `pytest -q` passed"
    assert described(fill_document(document, text)) == described(import_markdown(blank_document(QFont("Serif", 13)), text))
