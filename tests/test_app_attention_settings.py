"""config/attention.json: room levels per room of a hub, a file from before several hubs read as the
first hub's, and a bad file falling back to defaults with a sentence."""

from __future__ import annotations

import json

import pytest

from parler_desktop.app.attention.attention_settings import AttentionSettings, Level, load_attention, save_attention, with_level

HUB_A = "ws://10.0.0.1:7070/ws"
HUB_B = "wss://hub.example.com/ws"


def test_a_level_is_one_hubs_rooms_and_the_file_says_so_readably(tmp_path):
    path = tmp_path / "attention.json"
    settings = with_level(with_level(AttentionSettings(), HUB_A, "team", Level.NONE), "", "team", Level.ALL)
    assert (settings.level(HUB_A, "team"), settings.level("", "team"), settings.level(HUB_B, "team")) == (Level.NONE, Level.ALL, Level.RULES)
    save_attention(path, settings)
    assert json.loads(path.read_text())["room_levels"] == {"": {"team": "all"}, HUB_A: {"team": "none"}}
    assert "levels" not in json.loads(path.read_text())
    loaded = load_attention(path, lambda: pytest.fail("a file of today's form needs no hub"))
    assert loaded.settings == settings and loaded.problem is None
    back_to_rules = with_level(loaded.settings, HUB_A, "team", Level.RULES)
    assert back_to_rules.levels == {("", "team"): Level.ALL}  # the default is not kept


def test_levels_saved_before_several_hubs_are_the_first_hubs_rooms(tmp_path):
    path = tmp_path / "attention.json"
    path.write_text(json.dumps({"levels": {"team": "none", "ops": "for_me"}, "paused": True}))
    asked = []
    loaded = load_attention(path, lambda: asked.append(True) or HUB_A)
    assert loaded.problem is None and asked == [True]
    settings = loaded.settings
    assert settings.levels == {(HUB_A, "team"): Level.NONE, (HUB_A, "ops"): Level.FOR_ME} and settings.paused
    assert settings.level(HUB_B, "team") is Level.RULES  # a hub added since: its "team" is another room
    save_attention(path, settings)
    assert json.loads(path.read_text())["room_levels"] == {HUB_A: {"ops": "for_me", "team": "none"}}


def test_bad_room_levels_are_ignored_with_a_sentence_and_the_rest_is_kept(tmp_path):
    path = tmp_path / "attention.json"
    for bad in ({HUB_A: "none"}, {HUB_A: {"team": "loud"}}, ["team"]):
        path.write_text(json.dumps({"room_levels": bad, "close_to_tray": False}))
        loaded = load_attention(path)
        assert loaded.settings.levels == {} and loaded.settings.close_to_tray is False
        assert loaded.problem == f"{path}: ignored invalid room levels; using defaults for them."
    path.write_text('{"room_levels": {')
    loaded = load_attention(path)
    assert loaded.settings == AttentionSettings() and "notifications use the defaults" in (loaded.problem or "")

