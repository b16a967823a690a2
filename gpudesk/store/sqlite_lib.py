"""sqlite-utils (the project's store library), imported without pandas: every module of gpudesk imports
``Database`` and ``Migrations`` from here, never from ``sqlite_utils`` (tests/store/test_sqlite_lib.py holds this).

Why: ``sqlite_utils/db.py`` (4.2, https://github.com/simonw/sqlite-utils/blob/main/sqlite_utils/db.py) runs
``importlib.import_module("pandas")`` when it is first imported, to add ``pandas.Timestamp -> TEXT`` to its
``COLUMN_TYPE_MAPPING`` (the only use of pandas there). On an ML engineer's machine pandas is nearly always
installed, and that import costs about 319 ms and 70 MB while the window starts (issue 31). gpudesk never stores a
pandas value, so the mapping is not needed.

How: while sqlite-utils is first imported, ``sys.modules["pandas"]`` is ``None``; Python's import system then
raises ImportError for ``import pandas`` ("The module cache", https://docs.python.org/3/reference/import.html),
which sqlite-utils catches and treats as "pandas not installed". The entry is removed right after, so a later
``import pandas`` elsewhere in the process works as usual. When pandas is already imported (a user script that
imported it first), sqlite-utils is imported as it is: pandas then costs nothing more.
"""

from __future__ import annotations

import sys


def _import_sqlite_utils_without_pandas() -> None:
    if "sqlite_utils" in sys.modules or "pandas" in sys.modules:
        return
    sys.modules["pandas"] = None  # type: ignore[assignment]  # "import pandas" -> ImportError (see above)
    try:
        import sqlite_utils  # noqa: F401
    finally:
        if "pandas" in sys.modules and sys.modules["pandas"] is None:
            del sys.modules["pandas"]


_import_sqlite_utils_without_pandas()

from sqlite_utils import Database, Migrations  # noqa: E402

__all__ = ["Database", "Migrations"]
