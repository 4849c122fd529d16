"""User settings: defaults, atomic saves, a corrupt file kept and reported; the join secret."""

from __future__ import annotations

import json
import os

import pytest

from parler_desktop.paths import Home
from parler_desktop.settings import (
    JOIN_SECRET_ENV,
    NO_KEY_FILE,
    ROOMS_BY_NAME,
    LoadedSettings,
    Settings,
    default_display_name,
    join_secret_path,
    load_settings,
    read_join_secret,
    save_settings,
)


def test_missing_file_gives_defaults(tmp_path):
    loaded = load_settings(tmp_path / "settings.json")
    assert loaded.problem is None
    assert loaded.settings == Settings(display_name=default_display_name(), role="supervisor", hubs=("",))


def test_save_and_load_round_trip_leaves_no_temp_files(tmp_path):
    path = tmp_path / "config" / "settings.json"
    settings = Settings(display_name="Ada", role=None, hubs=("wss://hub.example/ws", ""), join_secret_file="/s",
                        hub_ca_files={"wss://hub.example/ws": "/etc/ca.pem"})
    save_settings(path, settings)
    assert load_settings(path).settings == settings
    assert os.listdir(path.parent) == ["settings.json"]


@pytest.mark.parametrize("content", [b"{not json", b"[1, 2]", b"\xff\xfe{}"])
def test_a_corrupt_file_falls_back_to_defaults_and_is_not_overwritten(tmp_path, content):
    path = tmp_path / "settings.json"
    path.write_bytes(content)
    loaded = load_settings(path)
    assert loaded.settings == Settings()
    assert loaded.problem and str(path) in loaded.problem
    assert path.read_bytes() == content


def test_saving_over_a_corrupt_file_keeps_it_aside(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text("{broken", encoding="utf-8")
    save_settings(path, Settings(display_name="Ada"))
    assert load_settings(path).settings.display_name == "Ada"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("settings.json.corrupt-")]
    assert [p.read_text() for p in kept] == ["{broken"]


def test_a_wrong_type_is_ignored_for_that_field_only(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"display_name": "Ada", "role": 5, "hub_url": "h:1"}), encoding="utf-8")
    loaded = load_settings(path)
    assert loaded.settings == Settings(display_name="Ada", role="supervisor", hubs=("h:1",))
    assert "role" in (loaded.problem or "")


def test_join_secret_comes_from_the_environment_then_the_file(tmp_path, monkeypatch):
    home = Home.resolve(tmp_path)
    monkeypatch.delenv(JOIN_SECRET_ENV, raising=False)
    assert read_join_secret(home, Settings()) is None
    home.ensure()
    home.join_secret_file.write_text("s3cr3t\n", encoding="utf-8")
    assert read_join_secret(home, Settings()) == "s3cr3t"
    other = tmp_path / "other-secret"
    other.write_text("elsewhere", encoding="utf-8")
    assert read_join_secret(home, Settings(join_secret_file=str(other))) == "elsewhere"
    monkeypatch.setenv(JOIN_SECRET_ENV, "from-env")
    assert read_join_secret(home, Settings()) == "from-env"
    monkeypatch.delenv(JOIN_SECRET_ENV)
    with pytest.raises(OSError):
        read_join_secret(home, Settings(join_secret_file=str(tmp_path / "missing")))


@pytest.mark.parametrize("ca_files", [["/ca.pem"], {"wss://h/ws": 7}])
def test_a_ca_file_map_of_the_wrong_shape_is_ignored_and_reported(tmp_path, ca_files):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"display_name": "Ada", "hub_ca_files": ca_files}))
    loaded = load_settings(path)
    assert loaded.settings.hub_ca_files == {} and loaded.settings.display_name == "Ada"
    assert "hub_ca_files" in loaded.problem


def test_a_file_with_one_hub_reads_as_a_list_of_it_and_keeps_it_for_older_versions(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"display_name": "Ada", "hub_url": "ws://team:7070/ws"}), encoding="utf-8")
    settings = load_settings(path).settings
    assert settings.hubs == ("ws://team:7070/ws",) and settings.hub_url == "ws://team:7070/ws"
    save_settings(path, settings.with_hub(""))
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["hubs"] == ["ws://team:7070/ws", ""] and saved["hub_url"] == "ws://team:7070/ws"
    assert load_settings(path).settings.without_hub("ws://team:7070/ws").hubs == ("",)
    assert Settings(hubs=("",)).without_hub("") == Settings(hubs=("",))  # the last hub stays


def test_each_hub_has_its_own_join_secret(tmp_path, monkeypatch):
    """The first hub keeps the home's secret file; a hub added later never gets it presented."""
    monkeypatch.delenv(JOIN_SECRET_ENV, raising=False)
    home = Home.resolve(tmp_path).ensure()
    settings = Settings(hubs=("wss://team/ws", "wss://shared/ws"))
    home.join_secret_file.write_text("team-secret", encoding="utf-8")
    assert read_join_secret(home, settings, "wss://team/ws") == read_join_secret(home, settings) == "team-secret"
    assert read_join_secret(home, settings, "wss://shared/ws") is None
    shared = join_secret_path(home, settings, "wss://shared/ws")
    assert shared != home.join_secret_file and shared != join_secret_path(home, settings, "wss://other/ws")
    shared.parent.mkdir()
    shared.write_text("shared-secret\n", encoding="utf-8")
    assert read_join_secret(home, settings, "wss://shared/ws") == "shared-secret"


def test_a_file_without_key_files_uses_the_home_s_identity_on_every_hub_and_a_removed_hub_keeps_its_own(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hubs": ["", "ws://a:1/ws"], "display_name": "boss"}))
    loaded = load_settings(path)
    assert loaded.problem is None and loaded.settings.hub_key_files == {}
    chosen = loaded.settings.with_hub("ws://b:2/ws").with_key_file("ws://b:2/ws", "/keys/b.json")
    save_settings(path, chosen.without_hub("ws://b:2/ws"))
    again = load_settings(path).settings
    assert again.hubs == ("", "ws://a:1/ws") and again.hub_key_files == {"ws://b:2/ws": "/keys/b.json"}
    assert again.with_key_file("ws://b:2/ws", None).hub_key_files == {}


@pytest.mark.parametrize("key_files", [{"ws://a:1/ws": 42}, ["/keys/a.json"], "/keys/a.json"])
def test_key_files_that_name_no_file_leave_their_hubs_waiting_for_a_choice_not_on_the_home_s_identity(tmp_path, key_files):
    """An entry that is no file name (or a map that is no map: it may have named any hub) stays an
    entry naming none, saved as such, so the hub is never connected as the home's identity."""
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"hubs": ["", "ws://a:1/ws"], "hub_key_files": key_files}))
    loaded = load_settings(path)
    assert loaded.settings.hub_key_files == {"ws://a:1/ws": NO_KEY_FILE}
    assert "hub_key_files names no usable key file" in loaded.problem and "Hub → Connect…" in loaded.problem
    save_settings(path, loaded.settings)  # the file is kept aside once, and the entry stays
    assert load_settings(path) == LoadedSettings(loaded.settings)


def test_hub_names_are_kept_trimmed_forgotten_with_their_hub_and_a_bad_map_is_ignored(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings(display_name="Ada", hubs=("", "ws://team:7070/ws")).with_hub_name("ws://team:7070/ws", "  Team  ")
    save_settings(path, settings)
    assert load_settings(path).settings.hub_names == {"ws://team:7070/ws": "Team"}
    assert settings.with_hub_name("ws://team:7070/ws", " ").hub_names == {}  # nothing: named after its address again
    assert settings.without_hub("ws://team:7070/ws").hub_names == {}
    path.write_text(json.dumps({"display_name": "Ada", "hub_names": {"ws://team:7070/ws": 7}}))
    loaded = load_settings(path)
    assert loaded.settings.hub_names == {} and "hub_names" in loaded.problem


def test_a_hub_s_room_order_is_kept_forgotten_with_its_hub_and_a_bad_map_is_ignored(tmp_path):
    path = tmp_path / "settings.json"
    settings = Settings(display_name="Ada", hubs=("", "ws://team:7070/ws")).with_room_order("ws://team:7070/ws", True)
    save_settings(path, settings)
    assert load_settings(path).settings.room_order == {"ws://team:7070/ws": ROOMS_BY_NAME}
    assert settings.with_room_order("ws://team:7070/ws", False).room_order == {}  # by activity: the default
    assert settings.without_hub("ws://team:7070/ws").room_order == {}
    path.write_text(json.dumps({"display_name": "Ada", "room_order": ["ws://team:7070/ws"]}))
    loaded = load_settings(path)
    assert loaded.settings.room_order == {} and "room_order" in loaded.problem
