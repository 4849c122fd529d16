"""The link to each hub: the Qt bridge of its session, its connection state, the embedded hub, and the machine's network, sleep and single-instance signals."""
