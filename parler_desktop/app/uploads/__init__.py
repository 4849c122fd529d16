"""Files the human sends: their uploads, progress and refusals."""
