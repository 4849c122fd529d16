"""Message links: made for plain and TLS hubs, read back, any room name survives, bad ones say why."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parler_desktop.client.message_link import MessageLink, is_message_link, message_link, parse_message_link


def test_a_plain_hub_gets_a_parler_link_and_a_tls_hub_its_https_form():
    assert message_link("ws://127.0.0.1:7070/ws", "team", 42) == "parler://127.0.0.1:7070/room/team/42"
    assert message_link("wss://hub.example/parler/ws", "ops/db", 7) == "https://hub.example/parler/room/ops%2Fdb/7"
    assert parse_message_link("parler://127.0.0.1:7070/room/team/42") == MessageLink(
        "ws://127.0.0.1:7070/ws", "team", 42
    )
    assert parse_message_link("https://hub.example/parler/room/ops%2Fdb/7/") == MessageLink(
        "wss://hub.example/parler/ws", "ops/db", 7
    )


@given(room=st.text(min_size=1, max_size=30), seq=st.integers(min_value=1, max_value=2**53))
def test_any_room_name_survives_the_round_trip(room, seq):
    link = message_link("ws://127.0.0.1:7070/ws", room, seq)
    assert parse_message_link(link) == MessageLink("ws://127.0.0.1:7070/ws", room, seq)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("ftp://x/room/a/1", "not a Parler message link"),
        ("parler://127.0.0.1:7070/join/K7QW2MZP", "no /room/"),
        ("parler://127.0.0.1:7070/room/team/0", "does not end in /room/ROOM/SEQ"),
        ("parler://127.0.0.1:7070/room//12", "does not end in /room/ROOM/SEQ"),
        ("parler://127.0.0.1:99999/room/team/1", "not a hub address"),
    ],
)
def test_bad_links_say_what_is_wrong(text, problem):
    with pytest.raises(ValueError, match=problem):
        parse_message_link(text)
    assert not is_message_link(text)
