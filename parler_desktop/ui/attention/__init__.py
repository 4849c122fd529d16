"""The tray, close to tray, the Notifications menu, and what wires attention to the window."""
