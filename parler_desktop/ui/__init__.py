"""Widgets, delegates and dialogs of the desktop window (the only package importing QtWidgets)."""
