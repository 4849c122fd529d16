"""How rooms are called on screen: a DM after its other member, a service room after its service."""

from __future__ import annotations

from parler_desktop.app.room_list.room_labels import dm_partner, room_label
from parler_desktop.protocol.values import RosterEntry


def member(agent_id: str, name: str) -> RosterEntry:
    return RosterEntry(id=agent_id, name=name, status="idle", last_seen=0)


def test_the_dm_partner_is_the_member_who_is_not_me():
    assert dm_partner([member("UME", "boss"), member("UALICE", "alice")], "UME") == "alice"
    assert dm_partner([member("UALICE", "alice"), member("UME", "boss")], "UME") == "alice"
    assert dm_partner([member("UME", "boss")], "UME") is None  # only me so far
    assert dm_partner([], "UME") is None
    assert dm_partner([member("UABCDEFGHIJ", "")], "UME") == "UABCDEFG"  # nameless: the id's start
    assert dm_partner([member("UX", "two\nlines  here")], "UME") == "two lines here"


def test_labels_fall_back_to_the_hub_room_name():
    assert room_label("dm.k3m9qx", "dm", "alice") == "alice"
    assert room_label("dm.k3m9qx", "dm", None) == "dm.k3m9qx"  # roster not known yet
    assert room_label("svc.review", "service") == "review (service)"
    assert room_label("svc.", "service") == "svc."
    assert room_label("team", "channel", "alice") == "team"
