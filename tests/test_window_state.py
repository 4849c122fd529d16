"""The window state file: what it keeps, and what it ignores when the file was tampered with."""

from __future__ import annotations

import json

from parler_desktop.window_state import WindowState, load_window_state, save_window_state


def test_the_window_s_size_and_panel_widths_are_kept(tmp_path):
    path = tmp_path / "window-state.json"
    state = WindowState(hub="", room="team", folded=("ws://b",), size=(1920, 1000), panels=(400, 350, 1920))
    save_window_state(path, state)
    assert load_window_state(path) == state
    save_window_state(path, WindowState(hub="", room="team"))  # none known yet: none written
    assert "size" not in json.loads(path.read_text(encoding="utf-8")) and load_window_state(path).size is None


def test_sizes_that_are_not_two_positive_whole_numbers_are_ignored(tmp_path):
    path = tmp_path / "window-state.json"
    for bad in ([0, 100], [-5, 100], ["1920", "1000"], [True, 100], [1920], [1920, 1000, 3], 1920, [1e9, 5]):
        path.write_text(json.dumps({"hub": "", "room": "team", "size": bad, "panels": [*bad, 1] if isinstance(bad, list) else bad}), encoding="utf-8")
        loaded = load_window_state(path)
        assert (loaded.room, loaded.size, loaded.panels) == ("team", None, None), bad
