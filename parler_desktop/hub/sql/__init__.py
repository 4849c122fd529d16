"""Synchronous queries, one module per table group; every function takes the connection first
and runs on the database thread (see ``DbWorker``)."""
