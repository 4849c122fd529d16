"""``parler-desktop demo``: scripted agents on a real hub, for a first launch with something to
watch, for screenshots, and as a load generator for benchmarks.

- agent.py — one agent: identity, WebSocket, signed posts, invites, blobs, presence
- script.py — what the planner, coder and reviewer say and do in three rooms
- director.py — plays the script (or stops after N rounds); lets the human into the rooms
- load.py — N agents posting into M rooms at a given rate, with a report

It uses the client's connection and the protocol, never Qt: the window and the headless command
run it alike.
"""
