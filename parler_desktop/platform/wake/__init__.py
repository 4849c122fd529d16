"""The OS's own word that the machine woke, one source per OS, beside the session's clock-jump
detector (``client/wake.py``) and Qt's network changes (``app/hubs/network_watch.py``).

Linux: logind's ``PrepareForSleep(false)`` on the system bus (``app/hubs/sleep_watch.py``, QtDBus).
macOS: NSWorkspace's ``NSWorkspaceDidWakeNotification`` (``workspace.py``, rubicon-objc).
Windows: ``WM_POWERBROADCAST`` with ``PBT_APMRESUMEAUTOMATIC`` to the app's windows, seen through a
Qt native event filter (``app/hubs/power_filter.py``; the message itself is read in
``power_broadcast.py``). Each calls ``on_wake()`` and nothing else: the session then probes its
line at once rather than at the next heartbeat.
"""
