"""The room list: each hub's rooms with unread and mention counts, their labels, and what their agents are doing."""
