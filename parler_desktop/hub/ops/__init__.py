"""Operation handlers: ``async handler(ctx, session, frame) -> reply``, one module per topic.

A handler returns the reply frame (or, for ``get_blob``, the reply frame and the bytes to send
after it) and raises ``OpError`` for a refusal.
"""
