"""docs/api.md and gpudesk.api agree, the examples on the page run, and the API loads without Qt.

The page's fenced ``python`` blocks run in order in one namespace, as a reader would paste them, each compiled with
its line in docs/api.md as the file name of its code so a failure points at the page.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import gpudesk.api as api
from gpudesk import i18n

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "api.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)


def examples() -> list[tuple[int, str]]:
    """(line of the block's first code line, code) for each fenced python block of docs/api.md."""
    text = PAGE.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in FENCE.finditer(text)]


def documented_names() -> set[str]:
    """The names of the page's "Names" table (every backticked word in its second column)."""
    section = PAGE.read_text(encoding="utf-8").split("## Names", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[2] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {name for row in rows[1:] for name in re.findall(r"`([A-Za-z_]+)`", row)}


def test_the_names_table_lists_exactly_the_public_names():
    assert len(api.__all__) == len(set(api.__all__))
    assert documented_names() == set(api.__all__)
    for name in api.__all__:
        assert getattr(api, name) is not None


def test_every_function_runs_in_an_example_and_every_type_is_explained():
    code = "\n".join(block for _, block in examples())
    text = PAGE.read_text(encoding="utf-8")
    prose = text.split("## Names", 1)[0] + text.split("## Catalog", 1)[1]  # all but the table itself
    unused = [name for name in api.__all__ if not re.search(rf"\b{name}\b", code)]
    # the rest are at least explained in the prose (the types returned, the errors raised)
    assert not [name for name in unused if f"`{name}`" not in prose]
    assert not [name for name in unused if name[0].islower()], "every function is called in an example"


def test_the_examples_run_in_order(capsys):
    blocks = examples()
    assert len(blocks) >= 8
    namespace: dict[str, object] = {"__name__": "docs_api_examples"}
    saved = i18n._translation, i18n._language  # the last example switches the language: put it back as it was
    try:
        for line, block in blocks:
            exec(compile("\n" * (line - 1) + block, str(PAGE), "exec"), namespace)  # noqa: S102
    finally:
        i18n._translation, i18n._language = saved
    out = capsys.readouterr().out
    assert "h100-sxm5" in out and "requested 550.0 MiB" in out
    assert "gpudesk catalog list" in out and re.search(r"[\u4e00-\u9fff]", out)  # the Chinese message


def test_an_example_that_breaks_fails_the_test():
    """The runner is not a no-op: a false assertion in a block surfaces with the page's line number."""
    line, block = examples()[0]
    broken = block.replace('gpu.id == "h100-sxm5"', 'gpu.id == "not-this-gpu"')
    assert broken != block
    with pytest.raises(AssertionError) as raised:
        exec(compile("\n" * (line - 1) + broken, str(PAGE), "exec"), {})  # noqa: S102
    assert any(entry.path == PAGE for entry in raised.traceback)


def test_every_documented_name_imports_without_qt():
    """In a fresh interpreter: ``from gpudesk.api import *`` gives every documented name, and no Qt was loaded."""
    code = ("import sys\n"
            "from gpudesk.api import *\n"
            f"missing = [name for name in {sorted(documented_names())!r} if name not in globals()]\n"
            "qt = sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'pyqtgraph'))\n"
            "print(missing, qt)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False,
                            cwd=REPO)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[] []"
