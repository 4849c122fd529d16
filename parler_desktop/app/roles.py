"""Item data roles shared by the models and the delegates that paint them."""

from PySide6.QtCore import Qt

ROOM_KIND = Qt.ItemDataRole.UserRole + 1
ROOM_UNREAD = Qt.ItemDataRole.UserRole + 2
ROOM_MENTIONS = Qt.ItemDataRole.UserRole + 3
ROOM_LAST_TS = Qt.ItemDataRole.UserRole + 4
ROOM_PREVIEW = Qt.ItemDataRole.UserRole + 5
ROOM_NAME = Qt.ItemDataRole.UserRole + 6  # the hub's room name (DisplayRole is the label shown)
ROOM_ROW = Qt.ItemDataRole.UserRole + 7  # RoomRow: all a room row paints, in one call (None for a heading)

FIRST_UNREAD = Qt.ItemDataRole.UserRole + 20  # bool: the "new messages" divider sits above this row

MEMBER_STATUS = Qt.ItemDataRole.UserRole + 40
MEMBER_ACTIVITY = Qt.ItemDataRole.UserRole + 41
MEMBER_ROLE = Qt.ItemDataRole.UserRole + 42
MEMBER_AS_OF = Qt.ItemDataRole.UserRole + 43  # str: "as of 12:04" while offline (presence as last known), else ""

HUB_URL = Qt.ItemDataRole.UserRole + 60  # the hub a room-list row belongs to, as the settings name it
HUB_HEADER = Qt.ItemDataRole.UserRole + 61  # bool: the row is a hub's heading, not a room
HUB_ORDER = Qt.ItemDataRole.UserRole + 62  # int: the hub's place in the sidebar
HUB_STATE = Qt.ItemDataRole.UserRole + 63  # StatusView: the hub's connection line (headings)
HUB_COLLAPSED = Qt.ItemDataRole.UserRole + 64  # bool: the hub's rooms are folded away (headings)
HUB_NEEDS = Qt.ItemDataRole.UserRole + 65  # int: items waiting on the human on the hub (headings; app/needs_you)

TRANSFER_FRACTION = Qt.ItemDataRole.UserRole + 80  # float 0..1: how far a file being sent or saved is
TRANSFER_PROBLEM = Qt.ItemDataRole.UserRole + 81  # str: why it failed ("" while it goes on)
