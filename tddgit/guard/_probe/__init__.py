"""The guard's pytest plugin lives here, importable on its own (stdlib only)."""
