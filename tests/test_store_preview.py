"""Room-list previews are plain text: Markdown syntax is dropped, the words stay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parler_desktop.store.codec import PREVIEW_CHARS, preview_text
from parler_desktop.store.preview import SCAN_CHARS, plain_text


@pytest.mark.parametrize(
    ("markdown", "plain"),
    [
        ("plain words stay", "plain words stay"),
        ("See [the design doc](https://example.com/d) first", "See the design doc first"),
        ("See [the doc][ref]\n\n[ref]: https://example.com/d", "See the doc"),
        ("[wiki](https://en.wikipedia.org/wiki/Foo_(bar)) page", "wiki page"),
        ('[docs](https://example.com "Title") now', "docs now"),
        ("<https://example.com/x> is up", "https://example.com/x is up"),
        ("look ![chart](http://example.com/p.png) here", "look [image] here"),
        ("[![badge](http://example.com/b.svg)](http://example.com)", "[image]"),
        ("**bold** and __strong__ and *em* and _em_ and ~~gone~~", "bold and strong and em and em and gone"),
        ("***both*** at once", "both at once"),
        ("# Sprint 12 plan\n\nGoals", "Sprint 12 plan Goals"),
        ("### Closed heading ###", "Closed heading"),
        ("#hashtag is not a heading", "#hashtag is not a heading"),
        ("Title\n=====\n\nbody", "Title body"),
        ("- one\n- two\n* three\n+ four", "one two three four"),
        ("1. first\n2) second", "first second"),
        ("> quoted *words*\n>> nested", "quoted words nested"),
        ("run `make test` now", "run make test now"),
        ("``a `tick` inside``", "a `tick` inside"),
        ("```python\ndef f(*args, **kw):\n    return 1\n```\nafter", "def f(*args, **kw): return 1 after"),
        ("~~~\n# not a heading\n~~~", "# not a heading"),
        ("`a*b*c` stays", "a*b*c stays"),
        (r"\*not emphasis\* and \# no heading", "*not emphasis* and # no heading"),
        ("snake_case_name and 2 * 3 * 4", "snake_case_name and 2 * 3 * 4"),
        ("*.py and *.txt files", "*.py and *.txt files"),
        ("above\n\n---\n\nbelow", "above below"),
        ("| a | b |\n|---|:-:|\n| 1 | 2 |", "a · b 1 · 2"),
        ("| step | state |\n|---|---|\n| **build** | green |", "step · state build · green"),
        ("step | state\n--- | ---\nbuild | a \\| b", "step · state build · a | b"),
        ("cost \\| value | shown", "cost | value | shown"),
        ("<b>raw</b> &amp; text", "<b>raw</b> &amp; text"),
        ("  lots \n\n of\t\twhitespace  ", "lots of whitespace"),
        ("", ""),
    ],
)
def test_markdown_becomes_plain_text(markdown: str, plain: str):
    assert plain_text(markdown) == plain


def test_an_unclosed_fence_keeps_its_code():
    assert plain_text("log:\n```\nerror: *boom*") == "log: error: *boom*"


def test_a_huge_message_is_only_scanned_at_its_start():
    text = "**start** " + "x" * (SCAN_CHARS * 100)
    assert len(plain_text(text)) <= SCAN_CHARS


def test_the_room_list_preview_is_stripped_then_shortened():
    parts = ({"kind": "text", "text": "# Build log\n\n```\n" + "line\n" * 200 + "```"}, {"kind": "data", "data": {}})
    preview = preview_text(parts)
    assert preview.startswith("Build log line line") and preview.endswith("…") and len(preview) <= PREVIEW_CHARS
    assert preview_text(({"kind": "text", "text": "[the design doc](https://x.example)"}, {"kind": "data", "data": {}})) == "the design doc [data]"


# The characters plain_text marks kept code with, and Markdown syntax around them.
_MARKUP = st.sampled_from(["\ue000", "\ue001", "\ue0000\ue001", "\ue0003\ue001", "`", "\\", "*", "_", "~~", "[", "](x)", "!", "<", ">", "#", "\n", " ", "0", "7", "a"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(st.one_of(_MARKUP, st.text(max_size=3)), max_size=30))
def test_any_text_becomes_one_plain_line_never_an_error(pieces: list[str]):
    """A hostile body may hold the private-use characters that mark kept code: it still gets a
    preview (and is indexed for search) instead of failing to be stored."""
    plain = plain_text("".join(pieces))
    assert "\n" not in plain and plain == plain.strip()


def test_marker_characters_in_a_message_are_not_taken_for_kept_code():
    assert plain_text("a \ue0007\ue001 b `c`") == "a \ufffd7\ufffd b c"
