"""The hub database's per-turn batches: per-job rollback, surviving storage failures, and the
member lists its connection keeps only while they are true."""

from __future__ import annotations

import asyncio
import sqlite3

import pytest

from parler_desktop.hub.db import HubDatabaseConnection
from parler_desktop.hub.dbworker import DbWorker
from parler_desktop.hub.sql import rooms


@pytest.fixture
async def worker(tmp_path):
    db = DbWorker(tmp_path / "hub.sqlite3")
    await db.start()
    yield db
    await db.stop()


def insert_room(conn: sqlite3.Connection, name: str) -> int:
    conn.execute("INSERT INTO rooms (name, kind, owner, created) VALUES (?, 'channel', NULL, 0)", (name,))
    return conn.execute("SELECT count(*) FROM rooms").fetchone()[0]


def insert_then_fail(conn: sqlite3.Connection, name: str) -> None:
    insert_room(conn, name)
    raise ValueError("refused")


def room_names(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT name FROM rooms ORDER BY name")]


def break_the_transaction(conn: sqlite3.Connection) -> None:
    conn.execute("COMMIT")  # leaves the batch without a transaction: its COMMIT will fail


async def test_a_failing_job_rolls_back_only_itself(worker):
    results = await asyncio.gather(
        worker.call(insert_room, "a"),
        worker.call(insert_then_fail, "b"),
        worker.call(insert_room, "c"),
        return_exceptions=True,
    )
    assert isinstance(results[1], ValueError)
    assert await worker.call(room_names) == ["a", "c"]


async def test_a_failing_job_alone_in_its_batch_rolls_back_and_the_next_one_commits(worker):
    with pytest.raises(ValueError, match="refused"):
        await worker.call(insert_then_fail, "b")
    assert await worker.call(insert_room, "c") == 1
    assert await worker.call(room_names) == ["c"]


async def test_a_storage_failure_fails_the_batch_but_not_the_hub(worker):
    results = await asyncio.gather(
        worker.call(break_the_transaction), worker.call(insert_room, "x"), return_exceptions=True
    )
    assert any(isinstance(r, sqlite3.Error) for r in results)
    assert await worker.call(insert_room, "y") >= 1  # the hub still serves jobs
    with pytest.raises(sqlite3.Error):  # alone in its batch too
        await worker.call(break_the_transaction)
    assert await worker.call(insert_room, "z") >= 2


async def test_stop_finishes_queued_jobs(tmp_path):
    db = DbWorker(tmp_path / "hub.sqlite3")
    await db.start()
    pending = [asyncio.ensure_future(db.call(insert_room, f"r{i}")) for i in range(50)]
    await asyncio.sleep(0)
    await db.stop()
    assert [await p for p in pending][-1] >= 1
    again = DbWorker(tmp_path / "hub.sqlite3")
    await again.start()
    assert len(await again.call(room_names)) == 50
    await again.stop()


def hand_in_turn_by_turn(worker: DbWorker, turns: list[list[tuple]]) -> list[asyncio.Future]:
    """Hand the jobs of ``turns[i]`` (each a function and its arguments) to the worker ``i`` loop
    turns from now; the futures, one per job in order, resolve to the finished calls."""
    loop = asyncio.get_running_loop()
    futures: list[asyncio.Future] = []

    def hand_in(index: int, mine: list[asyncio.Future]) -> None:
        for (fn, *args), future in zip(turns[index], mine):
            asyncio.ensure_future(worker.call(fn, *args)).add_done_callback(future.set_result)
        if index + 1 < len(turns):
            loop.call_soon(hand_in, index + 1, later[index + 1])

    later = [[loop.create_future() for _ in jobs] for jobs in turns]
    loop.call_soon(hand_in, 0, later[0])
    return [future for mine in later for future in mine]


async def test_jobs_arriving_on_following_turns_share_the_batch_of_a_busy_loop(worker):
    """While jobs keep coming, jobs handed in turns after the first still join its batch: a
    broken transaction fails them all (with one batch per turn, the first two would commit)."""
    turns = [[(insert_room, "a"), (insert_room, "b")], [(insert_room, "c")], [(break_the_transaction,)]]
    outcomes = [await future for future in hand_in_turn_by_turn(worker, turns)]
    assert all(isinstance(outcome.exception(), sqlite3.Error) for outcome in outcomes), outcomes


async def test_a_batch_stops_waiting_for_more_jobs_after_a_few_turns(worker):
    """Jobs that keep coming every turn do not hold the first ones back for long."""
    turns = [[(insert_room, f"r{turn}-{i}") for i in range(2)] for turn in range(20)]
    futures = hand_in_turn_by_turn(worker, turns)
    first = await futures[0]
    assert first.exception() is None
    assert sum(f.done() for f in futures) < len(futures)  # answered while jobs were still coming
    await asyncio.gather(*futures)
    assert len(await worker.call(room_names)) == 40


def join(conn: HubDatabaseConnection, room: str, agent: str) -> tuple[str, ...]:
    """Create ``room`` if new, add ``agent``, and read the members (kept by the connection)."""
    if rooms.get_room(conn, room) is None:
        rooms.create_room(conn, room, "channel", agent, 0)
    rooms.add_member(conn, room, agent)
    return rooms.member_ids(conn, room)


def join_then_fail(conn: HubDatabaseConnection, room: str, agent: str) -> None:
    assert agent in join(conn, room, agent)
    raise ValueError("refused after reading the members")


async def test_member_lists_follow_joins_and_deletions(worker):
    assert await worker.call(rooms.member_ids, "team") == ()
    assert await worker.call(join, "team", "amy") == ("amy",)
    assert set(await worker.call(join, "team", "bob")) == {"amy", "bob"}
    assert set(await worker.call(rooms.member_ids, "team")) == {"amy", "bob"}
    await worker.call(rooms.delete_room, "team")
    assert await worker.call(rooms.member_ids, "team") == ()


@pytest.mark.parametrize("alone", [True, False])
async def test_a_member_list_read_in_a_rolled_back_job_is_not_kept(worker, alone):
    await worker.call(join, "team", "amy")
    calls = [worker.call(join_then_fail, "team", "eve")]
    if not alone:  # another job in the batch: the failing one rolls back to its savepoint
        calls.append(worker.call(rooms.member_ids, "team"))
    results = await asyncio.gather(*calls, return_exceptions=True)
    assert isinstance(results[0], ValueError)
    assert await worker.call(rooms.member_ids, "team") == ("amy",)
    assert await worker.call(rooms.is_member, "team", "eve") is False


def roll_back_the_transaction(conn: sqlite3.Connection) -> None:
    conn.execute("ROLLBACK")  # the batch's own statements fail after it


async def test_a_member_list_read_in_a_batch_that_fails_is_not_kept(worker):
    await worker.call(join, "team", "amy")
    results = await asyncio.gather(
        worker.call(join, "team", "eve"), worker.call(roll_back_the_transaction), return_exceptions=True
    )
    assert all(isinstance(r, sqlite3.Error) for r in results)
    assert await worker.call(rooms.member_ids, "team") == ("amy",)
