"""The fleet: every agent the window knows, across its hubs, and what their work cost."""
