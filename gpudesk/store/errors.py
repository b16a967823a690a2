"""Errors raised by the user store. Each message says what is wrong and what to do."""


class StoreError(Exception):
    """Base class for user-database problems."""


class StoreNewerVersionError(StoreError):
    """The database was written by a newer gpudesk; it is left untouched."""


class StoreCorruptError(StoreError):
    """The file is not a readable SQLite database."""


class StoreLockedError(StoreError):
    """Another process holds a write lock for longer than the busy timeout."""


class StoreUnwritableError(StoreError):
    """The data folder or the database file cannot be written."""


class StoreFullError(StoreUnwritableError):
    """The disk (or the database's size limit) is full: nothing more can be written; what was committed stays."""
