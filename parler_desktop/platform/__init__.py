"""What each desktop OS does its own way, one seam per service, Qt-free.

``autostart/`` (start at login), ``secrets/`` (where keys and join secrets live), ``wake/`` (the
OS's resume announcement) and ``notifications/`` (what an alert asks the notification service
for). Each seam is a small module with a Linux, a macOS and a Windows implementation, chosen by
``sys.platform``; a platform's own libraries are imported only inside its implementation, so the
package imports everywhere (tests/test_platform_imports.py). The Qt parts of wake and
notifications live in ``app/`` (``app/hubs/sleep_watch.py``, ``app/attention/``).
"""
