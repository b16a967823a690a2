"""gpudesk.store.sqlite_lib is the one door to sqlite-utils (so that pandas stays out of start-up, issue 31; the
start-up itself is checked in tests/test_startup_without_pandas.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import sqlite_utils

from gpudesk.store import sqlite_lib

GPUDESK = Path(__file__).resolve().parents[2] / "gpudesk"


def _imports_sqlite_utils(path: Path) -> bool:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "sqlite_utils":
            return True
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "sqlite_utils" for a in node.names):
            return True
    return False


def test_only_the_store_library_module_imports_sqlite_utils():
    direct = sorted(str(p.relative_to(GPUDESK)) for p in GPUDESK.rglob("*.py") if _imports_sqlite_utils(p))
    assert direct == ["store/sqlite_lib.py"], (
        "import Database and Migrations from gpudesk.store.sqlite_lib, not sqlite_utils (it keeps pandas out of "
        f"start-up): {direct}")


def test_the_store_library_gives_sqlite_utils_own_classes(tmp_path):
    assert sqlite_lib.Database is sqlite_utils.Database and sqlite_lib.Migrations is sqlite_utils.Migrations
    db = sqlite_lib.Database(tmp_path / "t.db")
    db["plans"].insert({"id": 1, "name": "名字\r"}, pk="id")
    assert list(db["plans"].rows) == [{"id": 1, "name": "名字\r"}]
