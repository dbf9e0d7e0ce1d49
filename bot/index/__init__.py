"""The index: the SQLite store, the writer, query building, retrieval and passage selection."""
