"""Saving shared files: the Save dialog and the strip of files being saved."""
