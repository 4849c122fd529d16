"""LocalStore: schema, messages, slices, unread and mentions, rooms, cursors, roster, meta."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from parler_desktop.protocol.values import EndpointRef, RoomInfo, RosterEntry, StoredMessage
from parler_desktop.store import LocalStore, RoomSummary, StoreError, StoreProblem, outbox_path
from parler_desktop.store import codec, database
from parler_desktop.store.schema import SCHEMA_VERSION
from parler_desktop.store.local_store import RoomPlace

from support.store_versions import store_before_kept_counts
from support.os_needs import HAS_FILE_MODES

ALICE = EndpointRef(id="UALICE", name="alice", role="planner")


def make_message(seq: int, room: str = "team", text: str | None = None, **fields) -> StoredMessage:
    """A message as the hub would relay it (the shared factory of the store tests)."""
    values = dict(
        seq=seq,
        id=f"msg-{seq}",
        room=room,
        sender=ALICE,
        parts=({"kind": "text", "text": text if text is not None else f"message {seq}"},),
        ts=1_700_000_000_000 + seq,
    )
    values.update(fields)
    return StoredMessage(**values)


def mentions_bob(message: StoredMessage) -> bool:
    return "bob" in (message.mentions or ())


@pytest.fixture
def store(tmp_path: Path):
    opened = LocalStore(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def seqs(messages: list[StoredMessage]) -> list[int]:
    return [m.seq for m in messages]


# ---- schema ----------------------------------------------------------------------------------


def test_new_store_is_migrated_private_and_reopens_with_its_data(tmp_path: Path):
    path = tmp_path / "nested" / "dirs" / "store.sqlite3"
    store = LocalStore(path)
    assert store.schema_version == SCHEMA_VERSION
    store.insert_messages([make_message(4)])
    store.set_meta("rooms-refreshed", "12")
    store.close()
    if HAS_FILE_MODES:
        assert path.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "nested").stat().st_mode & 0o777 == 0o700
        assert path.parent.stat().st_mode & 0o777 == 0o700

    reopened = LocalStore(path)
    assert reopened.schema_version == SCHEMA_VERSION
    assert seqs(reopened.messages_after("team", 0, 10)) == [4]
    assert reopened.get_meta("rooms-refreshed") == "12"
    if HAS_FILE_MODES:
        assert (path.parent / (path.name + "-wal")).stat().st_mode & 0o777 == 0o600
        assert outbox_path(path).stat().st_mode & 0o777 == 0o600  # what the human writes, beside it
    reopened.close()


def test_a_version_1_store_is_migrated_keeping_its_data(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    db = sqlite3.connect(path, isolation_level=None)
    database.MIGRATIONS[0](db)  # the schema as the first release wrote it
    db.execute("INSERT INTO rooms (name, kind, cursor) VALUES ('team', 'dm', 9)")
    db.execute("PRAGMA user_version = 1")
    db.close()

    store = LocalStore(path)
    assert store.schema_version == SCHEMA_VERSION >= 2
    assert (store.cursor("team"), store.sync_mark("team")) == (9, None)
    assert [(s.name, s.kind) for s in store.room_summaries()] == [("team", "dm")]
    store.close()


def test_a_failing_migration_leaves_the_previous_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    path = tmp_path / "store.sqlite3"
    LocalStore(path).close()

    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half_done (x)")
        db.execute("INSERT INTO no_such_table VALUES (1)")

    monkeypatch.setattr(database, "MIGRATIONS", (*database.MIGRATIONS, broken))
    monkeypatch.setattr(database, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    assert str(path) in str(raised.value)
    monkeypatch.undo()

    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'half_done'").fetchone()[0] == 0
    db.close()


def test_a_store_from_a_newer_version_is_refused_with_advice(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    LocalStore(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 5}")
    db.close()
    with pytest.raises(StoreError) as raised:
        LocalStore(path)
    assert raised.value.problem is StoreProblem.TOO_NEW
    assert str(path) in str(raised.value) and "newer" in str(raised.value)


def test_the_store_imports_before_the_client_package():
    """client/ imports the store and the store uses client/events.py: no import cycle either way."""
    for first, second in (("store", "client"), ("client", "store")):
        code = f"import parler_desktop.{first}, parler_desktop.{second}"
        subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, timeout=30)


# ---- messages ----------------------------------------------------------------------------------


def test_insert_dedupes_by_seq_across_calls_and_returns_only_new_ascending(store: LocalStore):
    first = store.insert_messages([make_message(9), make_message(3), make_message(3), make_message(5)])
    assert seqs(first) == [3, 5, 9]
    second = store.insert_messages([make_message(7), make_message(5), make_message(11), make_message(9)])
    assert seqs(second) == [7, 11]
    assert store.insert_messages([make_message(3)]) == []
    assert seqs(store.messages_slice("team", 0, 100)) == [3, 5, 7, 9, 11]
    assert store.message_count("team") == 5
    assert store.max_seq("team") == 11


def test_a_stored_seq_with_another_message_means_the_hub_was_reset(store: LocalStore):
    store.insert_messages([make_message(1), make_message(2)])
    with pytest.raises(StoreError) as raised:
        store.insert_messages([make_message(3), make_message(2, id="other-2")])
    error = raised.value
    assert error.problem is StoreProblem.DIVERGED and error.fresh_cache_fixes and not error.is_corrupt
    assert "#2" in str(error) and str(store.path) in str(error)
    assert seqs(store.messages_slice("team", 0, 10)) == [1, 2]  # the whole batch was refused
    assert store.message_count("team") == 2


def test_insert_spanning_rooms_creates_unknown_rooms_as_channels(store: LocalStore):
    inserted = store.insert_messages([make_message(2, "b"), make_message(1, "a"), make_message(3, "b")])
    assert [(m.room, m.seq) for m in inserted] == [("a", 1), ("b", 2), ("b", 3)]
    assert store.room_names() == ["a", "b"]
    assert {s.name: (s.kind, s.max_seq) for s in store.room_summaries()} == {"a": ("channel", 1), "b": ("channel", 3)}
    assert (store.message_count("a"), store.message_count("b"), store.message_count("c")) == (1, 2, 0)
    assert store.max_seq("c") == 0


def test_messages_read_back_equal_to_what_was_stored(store: LocalStore):
    rich = make_message(
        8,
        parts=({"kind": "text", "text": "see ✓"}, {"kind": "com.parler.handoff", "to": "bob", "n": 1.5}),
        mentions=("bob",),
        reply_to="msg-2",
    )
    store.insert_messages([rich])
    assert store.messages_after("team", 0, 1) == [rich]
    assert store.message_by_id("team", "msg-8") == rich
    assert store.message_by_id("other", "msg-8") is None
    assert store.message_by_id("team", "msg-9") is None


def test_slices_by_row_position_from_either_end(store: LocalStore):
    store.insert_messages([make_message(seq) for seq in range(10, 310, 3)])  # 100 rows, gaps in seq
    all_seqs = list(range(10, 310, 3))
    assert seqs(store.messages_slice("team", 0, 5)) == all_seqs[:5]
    assert seqs(store.messages_slice("team", 95, 5)) == all_seqs[95:]
    assert seqs(store.messages_slice("team", 80, 10)) == all_seqs[80:90]  # nearer the end
    assert seqs(store.messages_slice("team", 20, 10)) == all_seqs[20:30]  # nearer the start
    assert seqs(store.messages_slice("team", -3, 5)) == all_seqs[:2]
    assert seqs(store.messages_slice("team", 98, 50)) == all_seqs[98:]
    assert store.messages_slice("team", 100, 5) == []
    assert store.messages_slice("team", 10, 0) == []
    assert store.messages_slice("nowhere", 0, 5) == []


def test_keyset_reads_counts_and_row_of_seq(store: LocalStore):
    store.insert_messages([make_message(seq) for seq in (2, 4, 6, 8, 10)])
    assert seqs(store.messages_after("team", 4, 2)) == [6, 8]
    assert seqs(store.messages_after("team", 5, 10)) == [6, 8, 10]
    assert store.messages_after("team", 10, 10) == []
    assert seqs(store.messages_before("team", 8, 2)) == [4, 6]
    assert seqs(store.messages_before("team", 3, 5)) == [2]
    assert [store.count_after("team", s) for s in (0, 2, 5, 10)] == [5, 4, 3, 0]
    assert [store.row_of_seq("team", s) for s in (0, 2, 5, 10, 99)] == [0, 1, 2, 5, 5]


def test_a_rooms_place_is_its_count_cursor_sync_mark_and_messages_above_the_cursor(store: LocalStore):
    """``room_place``, one statement for what opening a room reads first, says what the separate reads say."""
    assert store.room_place("team") == RoomPlace(0, 0, None, 0)  # a room never heard of
    store.insert_messages([make_message(seq) for seq in (2, 4, 6, 8, 10)])
    store.set_cursor("team", 6)
    store.set_sync_mark("team", 8)
    place = store.room_place("team")
    assert place == RoomPlace(store.message_count("team"), store.cursor("team"), store.sync_mark("team"), store.count_after("team", 6))
    assert place == RoomPlace(5, 6, 8, 2) and place.total - place.after_cursor == store.row_of_seq("team", 6)


def test_message_reads_use_the_indexes_never_a_full_scan(store: LocalStore):
    """The reads a 100,000-message room depends on stay index searches (see bench_store.py)."""
    store.insert_messages([make_message(seq, mentions=("bob",)) for seq in range(1, 60)], mentions_me=mentions_bob)
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    store.messages_slice("team", 40, 5)
    store.messages_slice("team", 2, 5)
    store.messages_after("team", 3, 3)
    store.messages_before("team", 9, 3)
    store.row_of_seq("team", 5)
    store.room_place("team")
    store.max_seq("team")
    store.message_by_id("team", "msg-3")
    store.room_summaries()
    store.set_cursor("team", 30)
    store._db.set_trace_callback(None)
    plans = {
        sql: " / ".join(row[3] for row in store._db.execute("EXPLAIN QUERY PLAN " + sql))
        for sql in statements
        if "FROM messages" in sql
    }
    assert len(plans) >= 9
    for sql, plan in plans.items():
        assert "SEARCH messages USING" in plan and "SCAN messages" not in plan, (sql, plan)


# ---- unread, mentions, summaries --------------------------------------------------------------------


def test_unread_is_stored_messages_above_the_cursor_and_counts_mentions(store: LocalStore):
    store.insert_messages(
        [
            make_message(1, mentions=("bob",)),
            make_message(2),
            make_message(3, mentions=("bob", "carol")),
            make_message(4, mentions=("carol",)),
            make_message(5, mentions=("bob",), text="  the   newest\nline  "),
        ],
        mentions_me=mentions_bob,
    )
    (summary,) = store.room_summaries()
    assert (summary.unread, summary.mentions_unread, summary.cursor) == (5, 3, 0)
    assert (summary.max_seq, summary.last_ts, summary.last_sender) == (5, make_message(5).ts, "alice")
    assert summary.last_preview == "the newest line"

    store.set_cursor("team", 3)
    (summary,) = store.room_summaries()
    assert (summary.unread, summary.mentions_unread, summary.cursor) == (2, 1, 3)
    assert summary.unread == store.count_after("team", store.cursor("team"))


def test_summaries_read_kept_counts_without_counting_messages(store: LocalStore):
    """After the first call (which counts once for the identity asked about), reading every room's
    badges is one query that counts no message rows: what makes a wake over 500 rooms cheap."""
    store.insert_messages([make_message(seq, room=f"r{seq % 7}") for seq in range(1, 200)])
    store.room_summaries("UME")
    statements: list[str] = []
    store._db.set_trace_callback(statements.append)
    store.insert_messages([make_message(seq, room=f"r{seq % 7}") for seq in range(200, 300)])
    summaries = store.room_summaries("UME")
    store._db.set_trace_callback(None)
    assert not [sql for sql in statements if "count(*)" in sql]
    assert sum(s.unread for s in summaries) == 299


def test_own_messages_are_never_unread_and_another_identity_is_recounted(store: LocalStore):
    me = EndpointRef(id="UME", name="boss", role="human")
    store.insert_messages([make_message(1), make_message(2, sender=me), make_message(3)])
    assert [(s.unread, s.max_seq) for s in store.room_summaries("UME")] == [(2, 3)]
    store.insert_messages([make_message(4, sender=me)])
    assert store.room_summaries("UME")[0].unread == 2
    assert store.room_summaries("UALICE")[0].unread == 2  # alice's own are not hers to read
    assert store.room_summaries()[0].unread == 4


def test_a_store_of_the_version_before_kept_counts_counts_once_on_upgrade(tmp_path: Path):
    me = EndpointRef(id="UME", name="boss", role="human")
    messages = [make_message(seq, room="ab"[seq % 2], mentions=("bob",) if seq % 3 == 0 else ()) for seq in range(1, 21)]
    messages.append(make_message(21, room="b", sender=me))
    store_before_kept_counts(tmp_path / "store.sqlite3", messages, {"a": 6, "b": 0})
    store = LocalStore(tmp_path / "store.sqlite3")
    try:
        assert store.schema_version == SCHEMA_VERSION
        counts = {s.name: (s.unread, s.mentions_unread) for s in store.room_summaries("UME")}
        assert counts == {"a": (7, 0), "b": (10, 0)}  # mentions were not flagged (no predicate)
    finally:
        store.close()


def test_a_read_only_store_counts_for_another_identity_in_the_query(tmp_path: Path):
    me = EndpointRef(id="UME", name="boss", role="human")
    with_counts = LocalStore(tmp_path / "store.sqlite3")
    with_counts.insert_messages([make_message(1), make_message(2, sender=me)])
    assert with_counts.room_summaries("UALICE")[0].unread == 1
    with_counts.close()
    read_only = LocalStore(tmp_path / "store.sqlite3", read_only=True)
    try:
        assert read_only.room_summaries("UME")[0].unread == 1
        assert read_only.room_summaries("UALICE")[0].unread == 1
    finally:
        read_only.close()


_COUNT_SENDERS = st.sampled_from([ALICE, EndpointRef(id="UME", name="boss", role="human")])
_COUNT_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("store"), st.lists(st.tuples(st.integers(1, 60), _COUNT_SENDERS, st.booleans()), max_size=8)),
        st.tuples(st.just("cursor"), st.sampled_from("abc"), st.integers(0, 70)),
        st.tuples(st.just("forget"), st.sampled_from("ab")),
        st.tuples(st.just("summaries"), st.sampled_from(["UME", "UALICE"])),
    ),
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_COUNT_STEPS)
def test_kept_counts_always_equal_a_recount(steps):
    """Whatever order messages, cursors, forgotten rooms and summaries for either identity come
    in, the kept unread and mention counts are what counting the stored rows gives."""
    with tempfile.TemporaryDirectory() as directory:
        store = LocalStore(Path(directory) / "store.sqlite3")
        try:
            for step in steps:
                if step[0] == "store":
                    batch = [  # (a seq belongs to one room, as on a hub)
                        make_message(seq, room="ab"[seq % 2], sender=sender, mentions=("bob",) if mention else ())
                        for seq, sender, mention in step[1]
                    ]
                    store.insert_messages(batch, mentions_me=mentions_bob)
                elif step[0] == "cursor":
                    store.set_cursor(step[1], step[2])
                elif step[0] == "forget":
                    store.forget_room(step[1])
                else:
                    store.room_summaries(step[1])
            for me in (store._counted_for() or "UME", "UME", "UALICE"):  # the kept counts, then recounts
                for summary in store.room_summaries(me):
                    above = store.messages_after(summary.name, summary.cursor, 999)
                    expected_unread = sum(m.sender.id != me for m in above)
                    expected_mentions = sum(mentions_bob(m) for m in above)
                    assert (summary.unread, summary.mentions_unread) == (expected_unread, expected_mentions), summary
        finally:
            store.close()


def test_mentions_are_flagged_only_when_a_predicate_is_given(store: LocalStore):
    store.insert_messages([make_message(1, mentions=("bob",))])
    (summary,) = store.room_summaries()
    assert (summary.unread, summary.mentions_unread) == (1, 0)


def test_preview_labels_non_text_parts_skips_signatures_and_shortens(store: LocalStore):
    parts = (
        {"kind": "com.parler.handoff", "to": "dana", "next": "review the login PR"},
        {"kind": "data", "data": {"x": 1}},
        {"kind": "text", "text": "word " * 60},
        {"kind": "com.parler.sig", "sig": "AAAA"},
    )
    store.insert_messages([make_message(1, parts=parts)])
    (summary,) = store.room_summaries()
    assert summary.last_preview.startswith("➤ handoff → dana: review the login PR [data] word word")
    assert len(summary.last_preview) <= 120 and summary.last_preview.endswith("…")
    assert "sig" not in summary.last_preview


def test_an_empty_room_summary(store: LocalStore):
    store.replace_rooms([RoomInfo(name="quiet", kind="dm", members=2, unread=0)])
    assert store.room_summaries() == [
        RoomSummary("quiet", "dm", 2, 0, 0, 0, 0, 0, 0, "", "")
    ]


# ---- rooms ------------------------------------------------------------------------------------------


def test_replace_rooms_upserts_and_forgets_unlisted_rooms_with_their_data(store: LocalStore):
    store.insert_messages([make_message(1, "gone"), make_message(2, "team"), make_message(3, "gone")])
    store.replace_roster("gone", [RosterEntry(id="UALICE", name="alice", status="working", last_seen=5)])
    store.set_cursor("team", 2)
    store.replace_rooms(
        [RoomInfo(name="team", kind="service", members=4, unread=7), RoomInfo(name="new", kind="dm", members=2, unread=1)]
    )
    assert store.room_names() == ["new", "team"]
    team = {s.name: s for s in store.room_summaries()}["team"]
    assert (team.kind, team.members, team.hub_unread, team.cursor, team.max_seq) == ("service", 4, 7, 2, 2)
    assert store.message_count("gone") == 0 and store.messages_after("gone", 0, 10) == []
    assert store.roster("gone") == []
    # seq is hub-global and never reused, but a forgotten room's seqs are free again locally
    assert seqs(store.insert_messages([make_message(1, "gone")])) == [1]


def test_room_heads_change_with_new_messages_and_moved_marks_only(store: LocalStore):
    store.insert_messages([make_message(1, "a"), make_message(3, "a"), make_message(2, "b")])
    before = store.room_heads()
    assert before == {"a": (0, 2), "b": (0, 1)}
    store.set_cursor("a", 3)  # reading moves no head
    store.insert_messages([make_message(3, "a")])  # a repeat is not new
    assert store.room_heads() == before
    store.insert_messages([make_message(4, "a")])
    store.set_sync_mark("b", 2)
    assert store.room_heads() == {"a": (0, 3), "b": (2, 1)}


def test_forget_room(store: LocalStore):
    store.insert_messages([make_message(1, "a"), make_message(2, "b")])
    store.forget_room("a")
    assert store.room_names() == ["b"]
    assert store.max_seq("a") == 0


# ---- cursors, roster, meta ----------------------------------------------------------------------


def test_cursor_is_monotonic_and_survives_reopen(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    assert store.cursor("team") == 0
    assert store.set_cursor("team", 10) == 10
    assert store.set_cursor("team", 4) == 10
    assert store.cursor("team") == 10
    store.replace_rooms([RoomInfo(name="team", kind="channel", members=2, unread=0)])
    store.close()
    reopened = LocalStore(path)
    assert reopened.cursor("team") == 10
    reopened.close()


def test_sync_marks_are_set_as_given_and_forgotten_with_the_room(store: LocalStore):
    assert store.sync_mark("team") is None
    store.set_sync_mark("team", 40)
    store.set_sync_mark("team", 25)  # a gap below 40 is re-read
    assert store.sync_mark("team") == 25
    store.replace_rooms([RoomInfo(name="other", kind="channel", members=1, unread=0)])
    assert store.sync_mark("team") is None  # a later room of that name starts from scratch


def test_many_rooms_sync_marks_are_read_in_one_call(store: LocalStore):
    rooms = [f"room-{n:03d}" for n in range(600)]  # more than one query's worth of names
    for n, room in enumerate(rooms[::2]):
        store.set_sync_mark(room, n + 1)
    marks = store.sync_marks([*rooms, "never-seen"])
    assert marks == {room: store.sync_mark(room) for room in [*rooms, "never-seen"]}
    assert marks["room-598"] == 300 and marks["room-599"] is None and marks["never-seen"] is None


def test_roster_is_replaced_whole_and_keeps_order(store: LocalStore):
    first = [
        RosterEntry(id="U2", name="zed", status="idle", last_seen=2),
        RosterEntry(id="U1", name="amy", status="working", last_seen=1, role="planner", activity="PR 42",
                    attention="focus", service_role="review"),
    ]
    store.replace_roster("team", first)
    assert store.roster("team") == first
    store.replace_roster("team", first[1:])
    assert store.roster("team") == first[1:]
    assert store.roster("other") == []


def test_meta_values_are_replaced(store: LocalStore):
    assert store.get_meta("k") is None
    store.set_meta("k", "1")
    store.set_meta("k", "2")
    assert store.get_meta("k") == "2"


# ---- property: batch order does not matter -----------------------------------------------------------

message_sets = st.dictionaries(
    keys=st.integers(min_value=1, max_value=10_000),
    values=st.tuples(st.sampled_from(["a", "b", "c"]), st.text(max_size=20)),
    max_size=60,
)


@settings(max_examples=40, deadline=None)
@given(message_sets, st.randoms(use_true_random=False), st.integers(min_value=1, max_value=8))
def test_any_batching_and_order_gives_the_same_stored_sequence(
    spec: dict[int, tuple[str, str]], rng: random.Random, batch_count: int
):
    messages = [make_message(seq, room, text) for seq, (room, text) in spec.items()]
    deliveries = messages + rng.sample(messages, k=len(messages) // 3)  # some arrive twice
    rng.shuffle(deliveries)
    cuts = sorted(rng.randint(0, len(deliveries)) for _ in range(batch_count - 1))
    batches = [deliveries[a:b] for a, b in zip([0, *cuts], [*cuts, len(deliveries)])]

    with tempfile.TemporaryDirectory() as directory:
        store = LocalStore(Path(directory) / "store.sqlite3")
        newly_stored: list[StoredMessage] = []
        for batch in batches:
            inserted = store.insert_messages(batch)
            assert seqs(inserted) == sorted(seqs(inserted))
            newly_stored.extend(inserted)
        for room in ("a", "b", "c"):
            expected = sorted((m for m in messages if m.room == room), key=lambda m: m.seq)
            assert store.messages_slice(room, 0, len(messages) + 1) == expected
            assert store.message_count(room) == len(expected)
        store.close()
    assert sorted(seqs(newly_stored)) == sorted(spec)


def test_processes_opening_the_same_fresh_store_at_once_all_succeed(tmp_path: Path):
    """Each opener re-reads the version inside its migration transaction (no 'table exists')."""
    import threading

    path = tmp_path / "shared.sqlite3"
    barrier = threading.Barrier(6)
    failures: list[BaseException] = []

    def open_store() -> None:
        barrier.wait()
        try:
            LocalStore(path).close()
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            failures.append(exc)

    threads = [threading.Thread(target=open_store) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failures == []
    store = LocalStore(path)
    assert store.schema_version == SCHEMA_VERSION
    store.close()


# ---- property: reads and writes in one step (``_rows_at_once``, ``_insert_at_once``) keep every value ----


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(keys=st.text(min_size=1, max_size=12), values=st.lists(st.text(max_size=30), max_size=3), max_size=12))
@example({"\x00": [""], "a\x00b": ["x\x00y", "z"], "a": ["\\u0000"]})  # SQLite's JSON ends a string at a NUL
def test_room_summaries_and_pages_read_in_one_step_keep_every_name_text_and_order(rooms: dict[str, list[str]]):
    with tempfile.TemporaryDirectory() as directory:
        store = LocalStore(Path(directory) / "store.sqlite3")
        try:
            store.replace_rooms([RoomInfo(name=name, kind="channel", members=2, unread=0) for name in rooms])
            messages = [make_message(seq, room, text) for seq, (room, text) in enumerate(
                ((room, text) for room, texts in rooms.items() for text in texts), start=1)]
            store.insert_messages(messages)
            summaries = store.room_summaries("UBOB")
            assert [room.name for room in summaries] == sorted(rooms)  # as SQLite's ORDER BY name had them
            for room in summaries:
                own = [m for m in messages if m.room == room.name]
                assert (room.max_seq, room.unread, room.kind) == (own[-1].seq if own else 0, len(own), "channel")
                wire = store._db.execute("SELECT wire FROM messages WHERE seq = ?", (room.max_seq,)).fetchone()
                assert room.last_preview == (codec.preview_of_wire_text(wire[0]) if own else "")
                assert store.messages_slice(room.name, 0, 10) == own
                assert store.messages_before(room.name, 10**9, 2) == own[-2:]
                assert store.messages_after(room.name, 0, 2) == own[:2]
            assert store.messages_in_order(0, 10**9, 100) == messages
        finally:
            store.close()
