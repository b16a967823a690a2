"""GpudeskError.user_text: one template per combination of parts, so a language places them itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.errors import GpudeskError


@pytest.fixture
def chinese():
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    yield
    i18n.set_language(before)


def test_user_text_in_english():
    error = GpudeskError("Could not read the recording.", detail="disk I/O error", remedy="Check the disk.")
    assert error.user_text() == "Could not read the recording. (disk I/O error) Check the disk."
    assert GpudeskError("No GPU.", remedy="Install the driver.").user_text() == "No GPU. Install the driver."
    assert GpudeskError("No GPU.", detail="NVML_ERROR_LIB_RM_VERSION_MISMATCH").user_text() == \
        "No GPU. (NVML_ERROR_LIB_RM_VERSION_MISMATCH)"
    # A detail already in the message is not repeated.
    assert GpudeskError("Bad file: not JSON.", detail="not JSON").user_text() == "Bad file: not JSON."


def test_user_text_uses_chinese_punctuation(chinese):
    error = GpudeskError("无法读取记录。", detail="disk I/O error", remedy="请检查磁盘。")
    assert error.user_text() == "无法读取记录。（disk I/O error）请检查磁盘。"
    assert GpudeskError("没有 GPU。", remedy="请安装驱动。").user_text() == "没有 GPU。请安装驱动。"


# --- Errors as data: the parts of an error are read from its attributes, never cut out of its text -----------------

_GPUDESK = Path(__file__).resolve().parents[1] / "gpudesk"
_CUTS = ("split", "rsplit", "partition", "rpartition", "startswith", "removeprefix", "index", "find")
# ``": "``-splits that take apart data, not an error: (module, receiver, why).
_NOT_ERROR_TEXT = {
    ("cli/plan.py", "r.description"): "a validation case's description, 'setup: why it is not scored'",
    ("ui/plan/plan_view.py", "reason"): "the planner's rank reason '#N: why' (a result, not an error)",
}


def _modules():
    for path in sorted(_GPUDESK.rglob("*.py")):
        yield path.relative_to(_GPUDESK).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def _text_of(name: str, expr: ast.AST) -> bool:
    """Whether ``expr`` reads the text of the exception bound to ``name`` (``str(exc)``, ``exc.message``, ``f"{exc}"``),
    as opposed to its ``field``, which names an input and may be taken apart."""
    parents = {child: node for node in ast.walk(expr) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(expr):
        if isinstance(node, ast.Name) and node.id == name:
            parent = parents.get(node)
            if not (isinstance(parent, ast.Attribute) and parent.attr == "field"):
                return True
    return False


def test_no_module_cuts_the_glue_between_field_and_message_out_of_a_text():
    """``f"{field}: {message}"`` is glued by SizingError and PlanInputError only for display; whoever needs the bare
    sentence reads ``.reason`` (and ``.field``). A ``split(": ", 1)`` or ``startswith(field + ": ")`` means someone
    parses it back."""
    found = []
    for name, tree in _modules():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
                continue
            arg, receiver = node.args[0], ast.unparse(node.func.value)
            glue = isinstance(arg, ast.Constant) and arg.value == ": "
            glued = isinstance(arg, ast.BinOp) and any(
                isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value.startswith(": ") for n in ast.walk(arg))
            if (glue or glued) and node.func.attr in _CUTS and (name, receiver) not in _NOT_ERROR_TEXT:
                found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, "error text parsed back into parts:\n" + "\n".join(found)


def test_no_except_clause_takes_the_caught_error_text_apart():
    found = []
    for name, tree in _modules():
        for handler in ast.walk(tree):
            if not (isinstance(handler, ast.ExceptHandler) and handler.name):
                continue
            for stmt in handler.body:
                for node in ast.walk(stmt):
                    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _CUTS
                            and _text_of(handler.name, node.func.value)):
                        found.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not found, "an except clause cuts the caught error's text:\n" + "\n".join(found)


def test_the_scans_find_what_they_look_for():
    """The two scans above catch the forms this project used to write (so they cannot pass by missing them)."""
    sample = ast.parse('try:\n    pass\nexcept ValueError as exc:\n    why = str(exc).split(": ", 1)[-1]\n'
                       '    ok = exc.field.split(".", 1)\n')
    handler = next(n for n in ast.walk(sample) if isinstance(n, ast.ExceptHandler))
    calls = sorted((n for n in ast.walk(handler) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                    and n.func.attr == "split"), key=lambda n: n.lineno)
    assert [_text_of("exc", c.func.value) for c in calls] == [True, False]
    assert any(isinstance(c.args[0], ast.Constant) and c.args[0].value == ": " for c in calls)


def test_sizing_and_plan_input_errors_carry_the_bare_sentence():
    from gpudesk.planner.errors import PlanInputError, PlanInputErrors
    from gpudesk.sizing.errors import SizingError

    error = SizingError("seq_len_tokens", "must be positive, got 0.")
    assert str(error) == error.message == "seq_len_tokens: must be positive, got 0."
    assert (error.field, error.reason) == ("seq_len_tokens", "must be positive, got 0.")
    assert error.user_text() == "seq_len_tokens: must be positive, got 0."
    # A reason that itself holds ": " (a path named first) stays whole.
    nested = PlanInputError("model.config_path", "/tmp/x/config.json: not JSON.")
    assert nested.reason == "/tmp/x/config.json: not JSON."
    both = PlanInputErrors([PlanInputError("model.params", "too big."), nested])
    assert both.field == "model.params" and both.reason == str(both) and both.reason.startswith("2 problems")
    plain = GpudeskError("No GPU.", field="gpu")
    assert plain.reason == "No GPU."
