"""The members of the shown room."""
