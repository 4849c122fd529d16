"""The one rule for wire text on screen (``display_text``) and for file names proposed to save
(``bare_file_name``), for any text a hub or a peer could send; a file's card shows its name so."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parler_desktop.app.display_text import NAME_CHARS, NOTICE_CHARS, display_text
from parler_desktop.app.file_names import FALLBACK_NAME, MAX_NAME_BYTES, bare_file_name, save_folder
from parler_desktop.app.tooltips import plain_tooltip
from parler_desktop.protocol.parts import FileRef
from parler_desktop.app.timeline.cards import card_for

pytestmark = pytest.mark.timeout(60)

BIDI_AND_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")
REFUSED_IN_FILE_NAMES = re.compile(r'[/\\:*?"<>|]')
# Text as a hostile hub writes it: controls, bidirectional controls, separators, dots, HTML, any letter.
WIRE_TEXT = st.text(
    alphabet=st.one_of(
        st.sampled_from(list("./\\:<>*?|\"' \n\t\r\x00\x1b\x7f\x85\u061c\u200e\u202a\u202e\u2066\u2069\u2028&;")),
        st.characters(),
    ),
    max_size=400,
)


@given(WIRE_TEXT, st.integers(min_value=2, max_value=NOTICE_CHARS))
def test_display_text_is_one_readable_bounded_line(text: str, limit: int):
    shown = display_text(text, limit)
    assert not BIDI_AND_CONTROLS.search(shown)  # no line break, no reordering, no terminal control
    assert len(shown) <= limit
    assert shown.endswith("…") or len(text) <= limit
    assert display_text(shown, limit) == shown or shown.endswith("…")  # what is shown shows as it is


def test_display_text_shows_what_it_replaced_and_keeps_the_order_written():
    assert display_text("rtl-\u202egpj.exe") == "rtl-\ufffdgpj.exe"
    assert display_text("two\nlines\tand a\u2028separator") == "two lines and a separator"
    osc_52 = display_text("\x1b]52;c;ZXZpbA==\x07")  # a terminal's clipboard write: shown, not obeyed
    assert not BIDI_AND_CONTROLS.search(osc_52) and "]52;c;ZXZpbA==" in osc_52
    assert display_text("W" * 1_000_000) == "W" * (NAME_CHARS - 1) + "…"
    assert display_text("<b>bold</b>") == "<b>bold</b>"  # as text: a label showing it is plain text


@given(WIRE_TEXT)
def test_a_tooltip_is_escaped_text_a_few_bounded_lines(text: str):
    tip = plain_tooltip(text)
    inner = tip.removeprefix('<p style="white-space:pre">').removesuffix("</p>")
    assert "<" not in inner and ">" not in inner  # every tag escaped: nothing renders, nothing loads
    assert len(inner.split("\n")) <= 12 and all(len(line) <= 6 * NOTICE_CHARS for line in inner.split("\n"))


@given(WIRE_TEXT)
def test_a_proposed_file_name_is_bare(name: str):
    bare = bare_file_name(name)
    assert bare and bare == bare.strip(". ") and not bare.startswith(".")
    assert not REFUSED_IN_FILE_NAMES.search(bare) and ".." not in bare and not BIDI_AND_CONTROLS.search(bare)
    assert len(bare.encode("utf-8")) <= MAX_NAME_BYTES
    assert bare.split(".")[0].upper() not in ("CON", "NUL", "AUX", "PRN", "COM1", "LPT1")


@pytest.mark.parametrize(
    ("name", "bare"),
    [
        ("../../../../tmp/x/escaped.md", "_._._._tmp_x_escaped.md"),
        (".bashrc", "bashrc"),
        ("..", FALLBACK_NAME),
        ("", FALLBACK_NAME),
        ("CON.txt", "_CON.txt"),
        ("nul", "_nul"),
        ("com1 .log", "_com1 .log"),
        ("C:\\Windows\\win.ini", "C__Windows_win.ini"),
        ("report.", "report"),
        ("rtl-\u202egpj.exe", "rtl-_gpj.exe"),
        ("q3 numbers.csv", "q3 numbers.csv"),
        ("r" * 1000 + ".ndjson", "r" * (NAME_CHARS - len(".ndjson") - 1) + "….ndjson"),
        ("🙂" * 200 + ".md", None),  # four bytes each: cut to fit, the suffix kept
    ],
)
def test_proposed_file_names(name: str, bare: str | None):
    made = bare_file_name(name)
    if bare is not None:
        assert made == bare
    else:
        assert made.endswith("….md") and len(made.encode("utf-8")) <= MAX_NAME_BYTES


def test_a_save_opens_in_the_folder_chosen_last_else_downloads_else_home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    assert save_folder(None) == home  # no Downloads folder: home, never the working directory
    (home / "Downloads").mkdir()
    assert save_folder(None) == home / "Downloads"
    assert save_folder(tmp_path) == tmp_path
    assert save_folder(tmp_path / "gone") == home / "Downloads"


def test_a_shared_file_named_with_an_override_reads_in_its_own_order_on_its_card():
    card = card_for(FileRef(blob="b" * 64, name="invoice-\u202efdp.exe", size=10).to_part(), "boss", None)
    assert "\u202e" not in card.title and "invoice-\ufffdfdp.exe" in card.title
