"""Every colour the window draws, one palette per scheme, as data ("#rrggbb", "#aarrggbb").

Each text colour is chosen for the ground it is drawn on (``tests/test_ui_contrast.py`` holds
every pair to WCAG's 4.5:1, 3:1 for badges and dots): row grounds are opaque here, so the
contrast of a name on a mentioned or selected row is the one measured. The Qt palette roles
(window … tooltip) become the application's ``QPalette`` (``ui/appearance/theme.py``); the rest
is read by the delegates and style sheets that paint beyond it.
"""

from __future__ import annotations

from dataclasses import dataclass

from parler_desktop.app.hubs.connection_status import Tone
from parler_desktop.app.room_list.agent_activity import AgentState


@dataclass(frozen=True)
class Colours:
    # Qt's palette roles: the window, fields and lists, selection, links, buttons, bevels
    window: str
    window_text: str
    base: str
    alternate_base: str  # a hub's heading in the room list
    text: str
    muted: str  # PlaceholderText: times, details, previews, a card's detail line, rules
    highlight: str
    highlighted_text: str
    link: str  # also Markdown links: the importer bakes the application's link colour in
    button: str
    button_text: str
    light: str
    midlight: str  # a focused hub heading
    mid: str
    dark: str
    shadow: str
    disabled_text: str
    tooltip_base: str
    tooltip_text: str
    # the timeline: row grounds (opaque), markers, cards, the signature's mark
    mine_row: str
    mention_row: str  # mentions the human, or a handoff to them
    selected_row: str
    mention_bar: str  # the mentioned row's left edge
    divider: str  # the "New messages" line and its label
    warning_band: str  # an invalid signature's band…
    warning_text: str  # …and its words
    signed: str  # ✓
    forged: str  # ✗
    failed: str  # an unsent post's "Failed" line; error words in dialogs and the composer
    card: str
    handoff_card: str  # a handoff or request addressed to the human
    code_shade: str  # translucent: over whatever row ground is under the code
    names: tuple[str, ...]  # authors, by a stable pick per id
    # the room list, the members panel, the bars above the timeline
    unread_badge: str
    mention_badge: str
    badge_text: str
    heading_tones: dict[Tone, str]  # a hub heading's connection line, on alternate_base
    connection_tones: dict[Tone, tuple[str, str]]  # the connection bar: (ground, text)
    hint_ground: str  # an agent seems stuck, or two in a loop
    hint_text: str
    agent_dots: dict[AgentState, str]
    presence_dots: dict[str, str]  # a member's status: working, waiting, idle, offline


LIGHT = Colours(
    window="#efefef", window_text="#1a1a1a", base="#ffffff", alternate_base="#f2f2f2", text="#1a1a1a",
    muted="#5c6066", highlight="#1f67a8", highlighted_text="#ffffff", link="#0b57d0",
    button="#efefef", button_text="#1a1a1a", light="#ffffff", midlight="#e0e0e0", mid="#b8b8b8", dark="#9f9f9f",
    shadow="#767676", disabled_text="#8a8a8a", tooltip_base="#ffffdc", tooltip_text="#1a1a1a",
    mine_row="#eef4fe", mention_row="#fff7d6", selected_row="#d4e5f7", mention_bar="#e69100",
    divider="#c62828", warning_band="#c62828", warning_text="#ffffff", signed="#2e7d32", forged="#c62828",
    failed="#b3261e", card="#f0f0f0", handoff_card="#ffe4bf", code_shade="#287f7f7f",
    names=("#1558b0", "#6a1b9a", "#2b6e2f", "#a3124f", "#00626b", "#4e342e", "#283593"),
    unread_badge="#5a5a5a", mention_badge="#c62828", badge_text="#ffffff",
    heading_tones={Tone.OK: "#2b6e2f", Tone.BUSY: "#5c6066", Tone.WARN: "#8a5300", Tone.ERROR: "#b3261e"},
    connection_tones={
        Tone.OK: ("#e8f5e9", "#1b5e20"), Tone.BUSY: ("#e3f2fd", "#0d47a1"),
        Tone.WARN: ("#fff8e1", "#6d4c00"), Tone.ERROR: ("#ffebee", "#b71c1c"),
    },
    hint_ground="#fff3e0", hint_text="#6d4c00",
    agent_dots={AgentState.WAITING: "#e65100", AgentState.FAILED: "#d32f2f", AgentState.WORKING: "#2e7d32"},
    presence_dots={"working": "#2e7d32", "waiting": "#e65100", "idle": "#1e88e5", "offline": "#8a8a8a"},
)

DARK = Colours(
    window="#2b2d31", window_text="#e3e5e8", base="#1e1f22", alternate_base="#26282c", text="#e3e5e8",
    muted="#adb2b9", highlight="#3466a8", highlighted_text="#ffffff", link="#8ab4f8",
    button="#3a3d42", button_text="#e3e5e8", light="#4e5157", midlight="#3a3d42", mid="#2f3136", dark="#141517",
    shadow="#000000", disabled_text="#73777e", tooltip_base="#3a3d42", tooltip_text="#e3e5e8",
    mine_row="#212a38", mention_row="#332c14", selected_row="#2b4160", mention_bar="#f0a020",
    divider="#ff8a80", warning_band="#b71c1c", warning_text="#ffffff", signed="#81c784", forged="#ff8a80",
    failed="#ff8a80", card="#2d2f34", handoff_card="#4a3514", code_shade="#2effffff",
    names=("#8ab4f8", "#d7aefb", "#81c995", "#f28bb5", "#78d9ec", "#d7b9a8", "#aab4f0"),
    unread_badge="#bdc1c6", mention_badge="#f28b82", badge_text="#1e1f22",
    heading_tones={Tone.OK: "#81c995", Tone.BUSY: "#adb2b9", Tone.WARN: "#fdd663", Tone.ERROR: "#ff8a80"},
    connection_tones={
        Tone.OK: ("#1b3a1f", "#c8e6c9"), Tone.BUSY: ("#0d2a47", "#bbdefb"),
        Tone.WARN: ("#3e3100", "#ffecb3"), Tone.ERROR: ("#4a1111", "#ffcdd2"),
    },
    hint_ground="#3e2c00", hint_text="#ffe0b2",
    agent_dots={AgentState.WAITING: "#ffb74d", AgentState.FAILED: "#ff8a80", AgentState.WORKING: "#81c995"},
    presence_dots={"working": "#81c995", "waiting": "#ffb74d", "idle": "#64b5f6", "offline": "#80868b"},
)

# The tray icon is painted on the desktop's panel, not in the window: the same in either scheme.
TRAY_TONES = {Tone.OK: "#2ea043", Tone.BUSY: "#dba000", Tone.WARN: "#db7800", Tone.ERROR: "#d32f2f"}
TRAY_GROUND = "#3c3c3c"  # where the app's icon is missing
TRAY_BADGE = "#d32f2f"  # the unread count's
TRAY_INK = "#ffffff"  # the dot's rim and the count
