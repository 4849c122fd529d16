"""Synchronous queries, one module per table group; every function takes the connection first
and runs inside a batch of database jobs (see ``DbWorker``)."""
