"""What a report says is missing, and its notes, are shown in the user's language: a missing entry is marked with
``N_`` and translated where it is shown (``i18n._(m)`` in the CLI, the window and the diagnosis), a note is translated
with ``_`` where it is written. Neither may be a bare string or f-string, which the catalogue never extracts."""

from __future__ import annotations

import ast
from pathlib import Path

import gpudesk
from gpudesk.oom import diagnose_text
from gpudesk import i18n


def _bare_entries() -> list[str]:
    found = []
    for path in sorted((Path(gpudesk.__file__).parent / "oom").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
                    and isinstance(node.func.value, ast.Attribute | ast.Name)
                    and getattr(node.func.value, "attr", getattr(node.func.value, "id", None)) in ("missing", "notes")
                    and node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr)):
                found.append(f"{path.name}:{node.lineno}")
    return found


def test_every_missing_entry_and_note_is_translatable() -> None:
    assert _bare_entries() == []


def test_a_runtime_buffer_failure_says_what_it_lacks_in_chinese() -> None:
    text = ("[TensorRT-LLM][ERROR] CUDA runtime error in ::cudaMallocAsync(ptr, n, mCudaStream->get()): out of memory "
            "(/app/tensorrt_llm/cpp/tensorrt_llm/runtime/tllmBuffers.h:112)")
    missing = diagnose_text(text).report.missing
    assert missing == ["memory figures (TensorRT-LLM's runtime buffer error prints none)"]
    before = i18n.current_language()
    try:
        i18n.set_language("zh_CN")
        shown = i18n._(missing[0])
    finally:
        i18n.set_language(before)
    assert shown != missing[0] and "TensorRT-LLM" in shown
