"""The pure core of indexing: which files are read, how they are cut, and how they are cited.

Nothing in this package performs I/O: callers hand in paths and bytes and get values back.
"""
