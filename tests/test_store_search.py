"""Full-text search in the local store: kept current on insert, filtered, safe for any input,
forgotten with its room, and built for messages stored before the index existed."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.store_versions import store_before_search
from test_store import make_message

from parler_desktop.protocol.values import EndpointRef, RoomInfo
from parler_desktop.store import LocalStore
from parler_desktop.store.search import SNIPPET_END, SNIPPET_START

BOB = EndpointRef(id="UBOB", name="Bob", role="reviewer")


@pytest.fixture
def store(tmp_path: Path):
    made = LocalStore(tmp_path / "store.sqlite3")
    yield made
    made.close()


def seqs(hits) -> list[int]:
    return [hit.seq for hit in hits]


def test_words_are_prefixes_all_required_newest_first_with_marked_snippets(store):
    store.insert_messages(
        [
            make_message(1, text="The **database** migration failed"),
            make_message(2, text="database is fine"),
            make_message(3, text="Deploying the migrations now"),
        ]
    )
    assert seqs(store.search("datab")) == [2, 1]
    assert seqs(store.search("migration datab")) == [1]
    assert seqs(store.search("MIGRAT")) == [3, 1]
    (hit,) = store.search("failed")
    assert (hit.room, hit.sender) == ("team", "alice")
    assert hit.snippet == f"The database migration {SNIPPET_START}failed{SNIPPET_END}"  # Markdown stripped


def test_a_long_message_is_found_by_its_first_pages_and_junk_words_stay_small(store):
    log = " ".join(f"line{n}" for n in range(1500)) + " needle " + "tail " * 4000  # ~16 KB before "tail"
    blob = "QUJD" * 2500  # one 10,000-character "word" (base64)
    store.insert_messages([make_message(1, text=log), make_message(2, text=f"upload {blob} done")])
    assert seqs(store.search("needle")) == [1]
    assert seqs(store.search("done")) == [2] and seqs(store.search(blob[:40])) == [2]
    (stored,) = store._db.execute("SELECT length(body) FROM message_search WHERE rowid = 2").fetchone()
    assert stored < 100  # the blob is kept as its first 64 characters


def test_filters_by_room_author_and_part_kind(store):
    handoff = {"kind": "com.parler.handoff", "next": "review the schema change", "to": "boss"}
    store.insert_messages(
        [
            make_message(1, "team", "schema change ready"),
            make_message(2, "ops", "schema change deployed", sender=BOB),
            make_message(3, "team", "over to you", parts=({"kind": "text", "text": "over to you"}, handoff)),
        ]
    )
    assert seqs(store.search("schema")) == [3, 2, 1]  # a card's words are found too
    assert seqs(store.search("schema", room="team")) == [3, 1]
    assert seqs(store.search("schema", author="bob")) == [2]
    assert seqs(store.search("schema", kind="handoff")) == [3]
    assert seqs(store.search("handoff")) == []  # the kind is a filter, not a word of the body


@settings(max_examples=60, deadline=None)
@given(query=st.text(max_size=40))
def test_any_input_is_a_search_never_an_error(tmp_path_factory, query):
    store = LocalStore(tmp_path_factory.mktemp("any") / "store.sqlite3")
    try:
        store.insert_messages([make_message(1, text='say "AND" OR NOT* (x) NEAR col:umn -- \' ^')])
        assert isinstance(store.search(query), list)
    finally:
        store.close()


def test_a_body_forging_the_code_markers_is_stored_and_found(store):
    """plain_text marks code it keeps with private-use characters; a message holding them itself
    (an agent's hostile or garbled output) is still stored, indexed and previewed."""
    forged = make_message(1, text="build \ue0009\ue001 failed at `step two`")
    assert store.insert_messages([forged]) == [forged]
    assert seqs(store.search("failed")) == [1]
    assert store.room_summaries()[0].last_preview == "build \ufffd9\ufffd failed at step two"


def test_a_forgotten_room_leaves_the_index(store):
    store.insert_messages([make_message(1, "team", "alpha"), make_message(2, "ops", "alpha")])
    store.replace_rooms([RoomInfo(name="ops", kind="channel", members=2, unread=0)])
    assert [hit.room for hit in store.search("alpha")] == ["ops"]
    assert store._db.execute("SELECT count(*) FROM message_search").fetchone() == (1,)


def test_pushes_stored_for_later_are_indexed_by_index_pending_even_after_a_reopen(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.insert_messages([make_message(1, text="indexed at once")])
    pushed = [make_message(seq, "team" if seq % 2 else "ops", f"pushed words {seq}") for seq in range(2, 8)]
    assert store.insert_messages(pushed, index_now=False) == pushed
    assert store.insert_messages(pushed[:1], index_now=False) == []  # stored already: nothing new waits
    assert seqs(store.search("words")) == [] and store.search_progress().indexed == 1
    store.replace_rooms([RoomInfo(name="team", kind="channel", members=2, unread=0)])  # ops is forgotten
    store.close()  # as if killed before indexing: the reopened store still knows what waits
    store = LocalStore(path)
    try:
        assert store.index_pending(batch=2) is True
        assert seqs(store.search("words")) == [5, 3]
        assert store.index_pending(batch=2) is False
        assert seqs(store.search("words")) == [7, 5, 3]
        assert (store.search_progress().indexed, store.search_progress().total) == (4, 4)
        assert store.index_pending() is False  # nothing left: a no-op
    finally:
        store.close()


def test_index_pending_up_to_a_seq_leaves_the_newer_for_later(store: LocalStore):
    assert store.newest_pending() is None
    store.insert_messages([make_message(seq, text=f"pushed words {seq}") for seq in range(1, 9)], index_now=False)
    assert store.newest_pending() == 8
    assert store.index_pending(batch=3, up_to=5) is True
    assert store.index_pending(batch=3, up_to=5) is False  # 4 and 5: fewer than a batch below 5
    assert seqs(store.search("words")) == [5, 4, 3, 2, 1] and store.newest_pending() == 8
    assert store.index_pending() is False
    assert seqs(store.search("words")) == [8, 7, 6, 5, 4, 3, 2, 1] and store.newest_pending() is None


def test_messages_stored_before_the_index_are_indexed_in_steps_with_progress(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store_before_search(path, [make_message(seq, text=f"old words {seq}") for seq in range(1, 51)])
    store = LocalStore(path)
    try:
        assert store.search_progress().indexed == 0 and store.search("old") == []
        store.insert_messages([make_message(60, text="new words"), make_message(30, text="old words 30")])
        assert seqs(store.search("words")) == [60]  # 30 was stored already: nothing new
        steps = []
        while not (progress := store.index_backlog(batch=20)).done:
            steps.append(progress.indexed)
        assert steps == [21, 41]
        assert (progress.indexed, progress.total) == (51, 51)
        assert seqs(store.search("old", limit=100)) == list(range(50, 0, -1))
        assert store.index_backlog(batch=20).done  # nothing left: a no-op
    finally:
        store.close()
