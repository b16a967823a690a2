"""Core translation (gpudesk.i18n, gettext catalogs built by tools/i18n_catalog.py) and the completeness checks
of both catalogs: the core's .po and the window's Qt .ts (docs/translating.md).

(a) every core message has a zh_CN translation, (b) a core translation keeps the message's placeholders,
(c) the same two for the Qt .ts, (d) core sources never glue a sentence from pieces around ``_()``.
(a) and the completeness half of (c) are expected to fail until the translation round is done.
"""

from __future__ import annotations

import ast
import gettext
import importlib.util
import re
import string
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog, Message
from babel.numbers import get_decimal_symbol, get_group_symbol

from gpudesk import i18n, units

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "gpudesk"
SHIPPED_TS = REPO / "resources" / "translations" / "gpudesk_zh_CN.ts"
#: A few hundred core messages existed when this test was written (366); far fewer means extraction broke.
MIN_CORE_MESSAGES = 300


def _load_tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("i18n_catalog", REPO / "tools" / "i18n_catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["i18n_catalog"] = module
    spec.loader.exec_module(module)
    return module


tool = _load_tool()


@pytest.fixture(scope="module")
def template() -> Catalog:
    return tool.extract()


@pytest.fixture
def language_restored(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    before = i18n.current_language()
    yield
    monkeypatch.undo()  # the environment first: set_language(None) reads it
    i18n.set_language(before)


# --- placeholders -------------------------------------------------------------------------------------------

NAMED_PERCENT = re.compile(r"%\((\w+)\)[-#0 +]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
POSITIONAL_PERCENT = re.compile(r"%(?!\()[-#0+]*\d*(?:\.\d+)?[diouxXeEfFgGcrsa]")
QT_ARG = re.compile(r"%L?\d{1,2}|%n")


def brace_fields(text: str) -> list[str]:
    """``{name:.1f}`` style fields of a str.format message, as written (name, conversion and spec)."""
    fields = []
    for _literal, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            fields.append("{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}")
    return sorted(fields)


def core_placeholders(text: str, flags: set[str] | frozenset[str] = frozenset()) -> dict[str, list[str]]:
    """Placeholders a translation must keep: str.format fields, ``%(name)s`` and (for %-format messages
    only) positional ``%s``."""
    try:
        braces = brace_fields(text)
    except ValueError:  # not a format string: keep its braces literally
        braces = sorted(c for c in text if c in "{}")
    found = {"brace": braces, "named": sorted(m.group(0) for m in NAMED_PERCENT.finditer(text))}
    if "python-format" in flags and not braces:
        found["positional"] = sorted(m.group(0) for m in POSITIONAL_PERCENT.finditer(text.replace("%%", "")))
    return found


def qt_placeholders(text: str) -> dict[str, list[str]]:
    """Placeholders of a Qt message: ``%1``, ``%L1``, ``%n`` and the ``{0}`` fields of ``tr(...).format()``."""
    try:
        braces = brace_fields(text)
    except ValueError:
        braces = sorted(c for c in text if c in "{}")
    return {"brace": braces, "qt": sorted(set(QT_ARG.findall(text)))}


def core_placeholder_problems(message: Message) -> list[str]:
    """Translated forms of ``message`` whose placeholders differ from the message's."""
    if not message.string or message.fuzzy:
        return []
    ids = [message.id] if isinstance(message.id, str) else list(message.id)
    strings = [message.string] if isinstance(message.string, str) else list(message.string)
    flags = set(message.flags)
    allowed = [core_placeholders(msgid, flags) for msgid in ids]
    problems = []
    for translated in strings:
        if translated and core_placeholders(translated, flags) not in allowed:
            problems.append(f"{ids[0]!r} -> {translated!r}: {allowed[-1]} became {core_placeholders(translated, flags)}")
    return problems


def test_placeholder_check_catches_a_dropped_or_renamed_placeholder():
    good = Message("{gpu} has {free_gib:.1f} GiB free", "{gpu} 有 {free_gib:.1f} GiB 可用显存", flags=["python-brace-format"])
    assert core_placeholder_problems(good) == []
    for broken in ("{gpu} 有可用显存", "{gpu} 有 {free:.1f} GiB 可用显存", "{gpu} 有 {free_gib} GiB 可用显存"):
        assert core_placeholder_problems(Message(good.id, broken)), broken
    percent = Message("%(count)d GPUs found", "找到 %(count)d 块 GPU")
    assert core_placeholder_problems(percent) == []
    assert core_placeholder_problems(Message(percent.id, "找到 %(n)d 块 GPU"))
    plural = Message(("one GPU", "{count} GPUs"), ("{count} 块 GPU",))
    assert core_placeholder_problems(plural) == []
    assert qt_placeholders("%n plan(s), %1 GiB") == qt_placeholders("%n 个方案，%1 GiB")
    assert qt_placeholders("{0} of {1}") != qt_placeholders("{0}")


# --- (a), (b): the core catalog -------------------------------------------------------------------------------

def test_extraction_covers_the_core_and_leaves_the_window_to_qt(template):
    messages = [m for m in template if m.id]
    assert len(messages) >= MIN_CORE_MESSAGES
    files = {path for m in messages for path, _line in m.locations}
    assert not any(path.startswith("gpudesk/ui/") for path in files)
    assert {"gpudesk/cli/__init__.py", "gpudesk/errors.py"} <= files
    assert {tool.package_of(path) for path in files} >= {"cli", "oom", "telemetry"}
    assert tool.package_of("gpudesk/oom/rules/leak.py") == "oom"
    assert tool.package_of("gpudesk/__main__.py") == "cli"


def test_every_core_message_has_a_zh_cn_translation(template):
    merged = tool.merge(template, "zh_CN")
    missing = [m.id for m in merged if m.id and not tool._is_translated(m)]
    assert not missing, f"{len(missing)} core messages without a finished zh_CN translation, e.g. {missing[:5]}"


def test_core_translations_keep_their_placeholders():
    problems = [p for part in tool.read_parts("zh_CN").values() for m in part if m.id
                for p in core_placeholder_problems(m)]
    assert not problems, "\n".join(problems[:20])


def test_the_cli_part_is_complete(template):
    """The worked example: the CLI's own messages (gpudesk/cli/__init__.py, __main__.py, errors.py)."""
    merged = tool.merge(template, "zh_CN")
    cli = [m for m in merged if m.id and any(path in ("gpudesk/cli/__init__.py", "gpudesk/__main__.py",
                                                      "gpudesk/errors.py") for path, _ in m.locations)]
    assert len(cli) >= 8
    assert all(tool._is_translated(m) for m in cli), [m.id for m in cli if not tool._is_translated(m)]


def test_shipped_mo_has_every_finished_translation_of_the_parts():
    """gpudesk.mo is rebuilt after a part changes (`python tools/i18n_catalog.py merge`)."""
    with tool.mo_path("zh_CN").open("rb") as handle:
        shipped = gettext.GNUTranslations(handle)
    stale = []
    for part in tool.read_parts("zh_CN").values():
        for message in part:
            if message.id and isinstance(message.id, str) and tool._is_translated(message):
                if shipped.gettext(message.id) != message.string:
                    stale.append(message.id)
    assert not stale, f"run `make translations` (or tools/i18n_catalog.py merge): {stale[:5]}"


def test_merge_output_is_deterministic(template):
    first = tool._po_bytes(tool.merge(template, "zh_CN"))
    assert first == tool._po_bytes(tool.merge(tool.extract(), "zh_CN"))
    assert b"POT-Creation-Date: 2026-01-01" in first


def test_merge_prefers_the_owning_part_and_skips_fuzzy_entries(template):
    message = next(m for m in template if m.id and tool._owner(m) == "cli")
    owner = Catalog(locale="zh_CN")
    owner.add(message.id, "主要译文", flags=["fuzzy"])
    other = Catalog(locale="zh_CN")
    other.add(message.id, "其他译文")
    merged = tool.merge(template, "zh_CN", {"cli": owner, "oom": other})
    assert merged.get(message.id).string == "其他译文"  # the owner's is fuzzy, so another part's finished one wins
    owner.get(message.id).flags.discard("fuzzy")
    assert tool.merge(template, "zh_CN", {"cli": owner, "oom": other}).get(message.id).string == "主要译文"


# --- (c): the window's Qt catalog -----------------------------------------------------------------------------

def _ts_messages() -> list[tuple[str, str, ET.Element]]:
    found = []
    for context in ET.parse(SHIPPED_TS).getroot().iter("context"):
        for message in context.iter("message"):
            kind = message.find("translation").get("type")
            if kind not in ("obsolete", "vanished"):
                found.append((context.findtext("name") or "", message.findtext("source") or "", message))
    return found


def _ts_translations(message: ET.Element) -> list[str]:
    translation = message.find("translation")
    forms = translation.findall("numerusform")
    return [f.text or "" for f in forms] if forms else [translation.text or ""]


def test_every_window_message_is_finished():
    unfinished = [(ctx, source) for ctx, source, m in _ts_messages()
                  if m.find("translation").get("type") == "unfinished" or not all(_ts_translations(m))]
    assert not unfinished, f"{len(unfinished)} unfinished in {SHIPPED_TS.name}, e.g. {unfinished[:5]}"


def test_window_translations_keep_their_placeholders():
    problems = []
    for ctx, source, message in _ts_messages():
        if message.find("translation").get("type") == "unfinished":
            continue
        expected = qt_placeholders(source)
        for translated in _ts_translations(message):
            got = qt_placeholders(translated)
            # %n may be left out of a plural form that does not need the number ("一个方案"), nothing else.
            if translated and {**got, "qt": sorted(set(got["qt"]) | {"%n"} & set(expected["qt"]))} != expected:
                problems.append(f"{ctx}: {source!r} -> {translated!r}")
    assert not problems, "\n".join(problems[:20])


# --- (d): whole sentences ------------------------------------------------------------------------------------

WORDS = re.compile(r"[A-Za-z]{2,}")
TRANSLATE = {"_": 1, "N_": 1, "ngettext": 2}


def _is_translate_call(node: ast.AST) -> bool:
    """``_("...")`` or ``_("...").format(...)`` (and the same for ngettext)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        node = node.func.value
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "ngettext")


def _is_wordy_literal(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and bool(WORDS.search(node.value))


def glued_sentences(source: str, filename: str = "<string>") -> list[str]:
    """Places where a translated message is not one literal whole sentence: a ``_()`` whose argument is not a
    string literal (f-string, concatenation, variable, %-format), or a translated piece joined to words or to
    another translated piece with ``+`` or inside an f-string. Markup (``"## " + _("Summary")``) is allowed."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in TRANSLATE:
            for arg in node.args[: TRANSLATE[node.func.id]]:
                if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                    found.append(f"{filename}:{node.lineno}: {node.func.id}() of {type(arg).__name__}, not a literal")
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            for piece, other in ((node.left, node.right), (node.right, node.left)):
                if _is_translate_call(piece) and (_is_translate_call(other) or _is_wordy_literal(other)):
                    found.append(f"{filename}:{node.lineno}: translated text glued with +")
                    break
        elif isinstance(node, ast.JoinedStr):
            literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
            if WORDS.search(literal) and any(isinstance(v, ast.FormattedValue) and _is_translate_call(v.value)
                                             for v in node.values):
                found.append(f"{filename}:{node.lineno}: translated text inside an f-string with words")
    return found


def test_glued_sentence_check_flags_pieces_and_accepts_whole_sentences():
    assert glued_sentences('_("{gpu} has {n} GiB").format(gpu=g, n=n)\nout = "## " + _("Summary")') == []
    assert glued_sentences('N_("Memory")\nngettext("one GPU", "{n} GPUs", n)') == []
    for bad in ('_(f"{gpu} has memory")', '_("GPU " + name)', "_(text)", '_("a %s" % x)',
                '_("GPU") + " has memory"', '_("Free:") + _("{n} GiB").format(n=n)', "f'{_(\"GPU\")} has {n} GiB'",
                'ngettext("one GPU", f"{n} GPUs", n)'):
        assert glued_sentences(bad), bad


def test_core_sources_translate_whole_sentences():
    found = []
    for path in sorted(CORE.rglob("*.py")):
        if path.relative_to(CORE).parts[0] != "ui":
            found += glued_sentences(path.read_text(encoding="utf-8"), str(path.relative_to(REPO)))
    assert not found, "\n".join(found)


# --- choosing the language -------------------------------------------------------------------------------------

def test_set_language_switches_core_messages(language_restored):
    message = "gpudesk: --self-test takes no other arguments"
    i18n.set_language("zh_CN")
    assert i18n.current_language() == "zh_CN"
    chinese = i18n._(message)
    assert chinese != message and re.search(r"[\u4e00-\u9fff]", chinese)
    assert "--self-test" in chinese  # flags stay English
    i18n.set_language("en")
    assert i18n._(message) == message


def test_gpudesk_lang_overrides_the_system_locale(monkeypatch, language_restored):
    message = "gpudesk: --self-test takes no other arguments"
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    monkeypatch.setenv("GPUDESK_LANG", "zh_CN")
    i18n.set_language(None)
    assert i18n._(message) != message
    monkeypatch.delenv("GPUDESK_LANG")
    monkeypatch.setenv("LANGUAGE", "zh_CN:en")
    i18n.set_language(None)  # the system locale alone also chooses Chinese
    assert i18n._(message) != message
    monkeypatch.setenv("LANGUAGE", "en_US")
    i18n.set_language(None)
    assert i18n._(message) == message


def test_unknown_language_falls_back_to_english(language_restored):
    i18n.set_language("xx_YY")
    assert i18n._("gpudesk: --self-test takes no other arguments") == "gpudesk: --self-test takes no other arguments"


# --- numbers ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("language", ["en", *tool.LANGUAGES])
def test_units_number_format_suits_every_shipped_language(language):
    """gpudesk.units writes "." decimals and SI/IEC units (GiB, GB/s) in every language: right for zh_CN and en
    (CLDR). A language with a decimal comma (de, fr, ru) needs locale-aware formatting in units.py first."""
    assert get_decimal_symbol(language) == "."
    assert get_group_symbol(language) == ","
    assert units.format_gib(85_100_000_000) == "79.26 GiB"


def test_effective_language_follows_the_environment(monkeypatch):
    # qa17: LANGUAGE=zh_CN gave a Chinese PDF sheet whose chart titles stayed English: the chart child process only
    # knew a language set by --lang / GPUDESK_LANG, not the one gettext took from the environment.
    from gpudesk import i18n

    for name in ("GPUDESK_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANGUAGE", "zh_CN")
    try:
        i18n.set_language(None)
        assert i18n.current_language() is None
        assert i18n.effective_language() == "zh_CN"
        monkeypatch.setenv("LANGUAGE", "en")
        i18n.set_language(None)
        assert i18n.effective_language() is None
        i18n.set_language("zh_CN")
        assert i18n.effective_language() == "zh_CN"
    finally:
        monkeypatch.undo()
        i18n.set_language(None)
