"""The timeline of the shown room: its rows (stored messages and unsent posts), when new ones enter, and what counts as read."""
