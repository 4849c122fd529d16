"""The durable outbox: idempotent adds, updates, ordering, a real kill -9, a full disk."""

from __future__ import annotations

import contextlib
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from parler_desktop.store.outbox_item import Draft, OutboxItem, OutboxStatus
from parler_desktop.store import LocalStore, StoreError, StoreProblem, outbox_path
from support.store_versions import store_before_outbox_file
from support.os_needs import HAS_FILE_MODES, posix_signals

from test_store import make_message


def make_item(client_id: str, room: str = "team", text: str = "hello", created_at: float = 100.0, **fields) -> OutboxItem:
    return OutboxItem(
        client_id=client_id,
        room=room,
        parts=({"kind": "text", "text": text}, {"kind": "com.parler.sig", "alg": "ed25519", "sig": "QUJD"}),
        created_at=created_at,
        **fields,
    )


def test_an_older_cache_hands_its_outbox_and_drafts_over_to_the_outbox_file(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    sent = make_item("sent", status=OutboxStatus.SENT, message_id="m-1", seq=4)
    store_before_outbox_file(path, [make_item("unsent", created_at=200.0), sent], [Draft("team", "typed", "m-1", "bob: hi")])
    store = LocalStore(path)
    assert store.outbox_items() == [sent, make_item("unsent", created_at=200.0)]
    assert store.draft("team") == Draft("team", "typed", "m-1", "bob: hi")
    store.close()
    with contextlib.closing(sqlite3.connect(path)) as cache:
        tables = {name for (name,) in cache.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
    assert not tables & {"outbox", "drafts"}  # the cache holds nothing the human wrote any more
    assert not HAS_FILE_MODES or outbox_path(path).stat().st_mode & 0o777 == 0o600


@pytest.fixture
def store(tmp_path: Path):
    opened = LocalStore(tmp_path / "store.sqlite3")
    yield opened
    opened.close()


def test_an_added_item_reads_back_whole(store: LocalStore):
    item = make_item("c1", mentions=("bob", "carol"), reply_to="msg-1")
    store.outbox_add(item)
    assert store.outbox_get("c1") == item
    assert store.outbox_get("c2") is None


def test_adding_the_same_content_again_is_a_no_op(store: LocalStore):
    store.outbox_add(make_item("c1"))
    store.outbox_update("c1", status=OutboxStatus.SENT, message_id="m-1", seq=12)
    store.outbox_add(make_item("c1"))  # e.g. a retry path re-adding before sending
    assert store.outbox_get("c1").status is OutboxStatus.SENT
    assert len(store.outbox_items()) == 1


@pytest.mark.parametrize(
    "different",
    [
        make_item("c1", text="goodbye"),
        make_item("c1", room="elsewhere"),
        make_item("c1", mentions=("bob",)),
        make_item("c1", reply_to="msg-9"),
    ],
    ids=["text", "room", "mentions", "reply_to"],
)
def test_a_client_id_is_never_reused_for_different_content(store: LocalStore, different: OutboxItem):
    store.outbox_add(make_item("c1"))
    with pytest.raises(StoreError) as raised:
        store.outbox_add(different)
    assert raised.value.problem is StoreProblem.CONFLICT
    assert "c1" in str(raised.value)
    assert store.outbox_get("c1") == make_item("c1")


def test_items_are_oldest_first_and_filter_by_status_and_room(store: LocalStore):
    store.outbox_add(make_item("late", created_at=300.0))
    store.outbox_add(make_item("early", room="other", created_at=100.0))
    store.outbox_add(make_item("tie-b", created_at=200.0))
    store.outbox_add(make_item("tie-a", created_at=200.0))
    store.outbox_update("late", status=OutboxStatus.FAILED, error="not a member", error_code="not_member")
    ids = lambda items: [i.client_id for i in items]  # noqa: E731
    assert ids(store.outbox_items()) == ["early", "tie-b", "tie-a", "late"]
    assert ids(store.outbox_items({OutboxStatus.PENDING})) == ["early", "tie-b", "tie-a"]
    assert ids(store.outbox_items({OutboxStatus.PENDING, OutboxStatus.FAILED}, room="team")) == ["tie-b", "tie-a", "late"]
    assert ids(store.outbox_items(set())) == []


def test_the_posts_a_room_may_not_have_stored_are_the_unsent_then_those_sent_past_the_sync_mark(store: LocalStore):
    """``outbox_unstored``, what a room opened shows of the outbox: waiting and failed posts,
    then the sent ones the hub numbered above the mark, each oldest first; never another room's,
    one sent at or below the mark, or one discarded."""
    for client_id, created_at, room in (("sent-high", 100.0, "team"), ("waiting", 200.0, "team"), ("sent-low", 150.0, "team"),
                                        ("failed", 120.0, "team"), ("sent-later", 300.0, "team"), ("gone", 50.0, "team"),
                                        ("elsewhere", 10.0, "other")):
        store.outbox_add(make_item(client_id, room=room, created_at=created_at))
    store.outbox_update("sent-high", status=OutboxStatus.SENT, seq=12, message_id="m12")
    store.outbox_update("sent-low", status=OutboxStatus.SENT, seq=10, message_id="m10")
    store.outbox_update("sent-later", status=OutboxStatus.SENT, seq=11, message_id="m11")
    store.outbox_update("failed", status=OutboxStatus.FAILED, error="not a member")
    store.outbox_update("gone", status=OutboxStatus.DISCARDED)
    assert [item.client_id for item in store.outbox_unstored("team", 10)] == ["failed", "waiting", "sent-high", "sent-later"]
    assert [item.client_id for item in store.outbox_unstored("team", 0)] == ["failed", "waiting", "sent-high", "sent-low", "sent-later"]


def test_update_changes_only_the_named_fields_and_persists(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = LocalStore(path)
    store.outbox_add(make_item("c1"))
    failed = store.outbox_update("c1", status=OutboxStatus.FAILED, error="too large", error_code="too_large")
    assert (failed.status, failed.error, failed.error_code, failed.seq) == (OutboxStatus.FAILED, "too large", "too_large", None)
    retried = store.outbox_update("c1", status=OutboxStatus.PENDING, error=None, error_code=None)
    assert retried == make_item("c1")
    sent = store.outbox_update("c1", status=OutboxStatus.SENT, message_id="m-7", seq=7)
    store.close()
    reopened = LocalStore(path)
    assert reopened.outbox_get("c1") == sent
    reopened.close()


def test_update_refuses_unknown_items_and_fields(store: LocalStore):
    with pytest.raises(KeyError):
        store.outbox_update("missing", status=OutboxStatus.SENT)
    store.outbox_add(make_item("c1"))
    with pytest.raises(TypeError):
        store.outbox_update("c1", room="elsewhere")
    with pytest.raises(TypeError):
        store.outbox_update("c1", status="sent")
    assert store.outbox_get("c1") == make_item("c1")


def test_prune_removes_only_old_finished_items(store: LocalStore):
    store.outbox_add(make_item("old-sent", created_at=10.0))
    store.outbox_add(make_item("old-discarded", created_at=11.0))
    store.outbox_add(make_item("old-failed", created_at=12.0))
    store.outbox_add(make_item("old-pending", created_at=13.0))
    store.outbox_add(make_item("new-sent", created_at=500.0))
    for client_id in ("old-sent", "new-sent"):
        store.outbox_update(client_id, status=OutboxStatus.SENT)
    store.outbox_update("old-discarded", status=OutboxStatus.DISCARDED)
    store.outbox_update("old-failed", status=OutboxStatus.FAILED)
    assert store.outbox_prune(created_before=100.0) == 2
    assert [i.client_id for i in store.outbox_items()] == ["old-failed", "old-pending", "new-sent"]


CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from parler_desktop.store.outbox_item import OutboxItem
    from parler_desktop.store import LocalStore

    store = LocalStore(Path(sys.argv[1]))
    n = 0
    while True:
        client_id = f"kill-{n}"
        store.outbox_add(OutboxItem(client_id=client_id, room="team",
                                    parts=({"kind": "text", "text": f"draft {n}"},), created_at=time.time()))
        print("added", client_id, flush=True)
        n += 1
    """
)


@posix_signals
@pytest.mark.timeout(30)
def test_every_accepted_item_survives_kill_9_of_the_writer(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path)], stdout=subprocess.PIPE, text=True
    )
    accepted: list[str] = []
    try:
        for line in child.stdout:
            accepted.append(line.split()[1])
            if len(accepted) == 25:
                break
        child.send_signal(signal.SIGKILL)  # mid-loop: it may be inside the next outbox_add
        child.wait(timeout=10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert len(accepted) == 25

    reopened = LocalStore(path)
    stored = {item.client_id: item for item in reopened.outbox_items()}
    reopened.close()
    assert set(accepted) <= set(stored)
    assert all(stored[c].status is OutboxStatus.PENDING for c in accepted)
    assert stored["kill-3"].parts == ({"kind": "text", "text": "draft 3"},)


def fill_until_full(db: sqlite3.Connection) -> None:
    """Cap a file at its current size (a real SQLITE_FULL from SQLite's page limit)."""
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")


def test_a_full_disk_refuses_an_outbox_add_loudly_and_keeps_earlier_items(store: LocalStore):
    store.outbox_add(make_item("before"))
    fill_until_full(store._outbox.db)
    with pytest.raises(StoreError) as raised:
        store.outbox_add(make_item("during", text="y" * 20_000))
    assert raised.value.problem is StoreProblem.DISK_FULL
    assert str(store.outbox_path) in str(raised.value) and "full" in str(raised.value)
    assert store.outbox_get("during") is None
    assert store.outbox_get("before") == make_item("before")

    store._outbox.db.execute("PRAGMA max_page_count = 1073741823")  # space freed
    store.outbox_add(make_item("during", text="y" * 20_000))
    assert [i.client_id for i in store.outbox_items()] == ["before", "during"]


def test_a_full_cache_still_takes_what_the_human_writes(store: LocalStore):
    fill_until_full(store._db)
    with pytest.raises(StoreError) as raised:
        store.insert_messages([make_message(seq, text="x" * 3000) for seq in range(1, 10)])
    assert raised.value.problem is StoreProblem.DISK_FULL
    store.outbox_add(make_item("after", text="y" * 20_000))
    assert [i.client_id for i in store.outbox_items()] == ["after"]


def test_a_failed_update_leaves_the_item_as_it_was(store: LocalStore):
    store.outbox_add(make_item("c1"))
    fill_until_full(store._outbox.db)
    with pytest.raises(StoreError):
        store.outbox_update("c1", status=OutboxStatus.FAILED, error="e" * 50_000)
    assert store.outbox_get("c1") == make_item("c1")
    store._outbox.db.execute("PRAGMA max_page_count = 1073741823")
    assert store.outbox_update("c1", status=OutboxStatus.SENT).status is OutboxStatus.SENT


def test_a_first_message_takes_the_room_the_hub_named_and_a_post_never_moves(store: LocalStore):
    store.outbox_add(make_item("dm", room=""))  # to an agent: the hub names the DM
    sent = store.outbox_update("dm", status=OutboxStatus.SENT, message_id="m-1", seq=3, room="dm.k3m9qx")
    assert store.outbox_get("dm") == sent and sent.room == "dm.k3m9qx"
    assert store.outbox_items(room="dm.k3m9qx") == [sent]
    store.outbox_add(make_item("c1"))
    with pytest.raises(TypeError):
        store.outbox_update("c1", room="elsewhere")
    with pytest.raises(TypeError):
        store.outbox_update("dm", room="dm.other")
    assert store.outbox_get("c1").room == "team" and store.outbox_get("dm").room == "dm.k3m9qx"
