"""Sending files: the attach dialog, drops and pastes on the composer, the uploads strip."""
