"""What an alert asks the OS's notification service for, the same on every OS: one notification
per room (a room's newer alert replaces its older one), an "Open" action and a click that both go
to the alert's message. The services differ only in how they are asked:

Linux: the freedesktop Notifications service over D-Bus (``app/attention/desktop_notifications.py``,
jeepney), replacing by the id it returned (``replaces_id``). macOS (UNUserNotificationCenter) and
Windows (toasts): desktop-notifier (``app/attention/native_notifications.py``), replacing by a
request identifier (macOS) or toast tag (Windows) derived from the room (``payload.py``).
"""
