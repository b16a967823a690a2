"""Skip a regular expression's scan of a long text when the text lacks a literal every match must contain.

Python's ``re`` tries most of the OOM doctor's patterns (word alternations, case-insensitive, ``\\b``-anchored) at
every position of the text, so a 5 MB log cost about 8 s of CPU per MB: hundreds of patterns, each a full pass. A
match of such a pattern always contains one of a few literal strings (``out of memory``, ``tried to allocate``,
``sigkill`` ...); :func:`required_literals` reads that set from the compiled pattern's parse tree, and where none of
the strings occurs in the text (one ``str.__contains__`` each, a fast substring search) the pattern cannot match and
its scan is skipped. The answer is the same as the scan's: only a search that must fail is skipped. (The idea is the
"required literal" prefilter of grep tools, e.g. ripgrep's literal extraction in regex-syntax's ``hir::literal``.)

Case-insensitive patterns are checked against ``text.lower()``; that is exact for every character whose
case-insensitive match of an ASCII letter is its ``lower()`` (all but a few: the long s, the dotless i, the
dotted capital I ...), and a text holding one of those few is scanned as before.

:func:`install` wraps the compiled patterns of the ``gpudesk.oom`` modules (module-level names, and the tuples, lists
and dicts of patterns there) in :class:`LiteralScan`, which keeps the pattern's whole interface. Texts shorter than
:data:`MIN_CHARS` are always scanned: a pasted message is short and its scan is cheap.
"""

from __future__ import annotations

import re
import string
import sys
import unicodedata
from collections.abc import Iterator
from typing import Any

if sys.version_info >= (3, 11):  # CPython's sre parser and its opcodes: re._parser from 3.11, sre_parse before
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as P  # type: ignore[attr-defined]
else:  # pragma: no cover - Python 3.10 (pyproject: requires-python >= 3.10)
    import sre_constants as C
    import sre_parse as P

# Below this many characters a text is scanned as it is (the check costs more than it saves).
MIN_CHARS = 50_000

_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT) + ((C.POSSESSIVE_REPEAT,) if hasattr(C, "POSSESSIVE_REPEAT") else ())
_ZERO_WIDTH = (C.AT, C.ASSERT, C.ASSERT_NOT)


def _folds_to_ascii(ch: str) -> bool:
    """``ch`` matches an ASCII character case-insensitively (the Kelvin sign K, the long s ...)."""
    return any(re.fullmatch(re.escape(ch), a, re.IGNORECASE) for a in string.ascii_letters)


def _caseless(ch: str) -> bool:
    """``ch`` has no case (a CJK ideograph, CJK punctuation): a case-insensitive pattern matches only ``ch`` itself."""
    return unicodedata.category(ch) not in ("Lu", "Ll", "Lt") and ch.lower() == ch == ch.upper() == ch.casefold()


# A condition on the text that every match needs: a literal it contains, all of several conditions, or one of several.
# ("lit", "OOM"); ("ilit", "out of memory"): in the lower-cased text, for a case-insensitive part; ("nonascii", ""):
# a character outside ASCII
Need = tuple[str, Any]  # ... | ("all", [Need, ...]) | ("any", [Need, ...])


def _sequence(items: Any, ignorecase: bool) -> list[Need]:
    """What a match of ``items`` needs, every entry (an empty list: nothing known)."""
    needs: list[Need] = []
    run: list[str] = []

    def flush() -> None:
        if run:
            needs.append(("ilit" if ignorecase else "lit", "".join(run)))
            run.clear()

    for op, av in items:
        if op is C.LITERAL:
            ch = chr(av)
            if ignorecase and not ch.isascii() and not _caseless(ch):
                # A non-ASCII letter's case-insensitive matches are not all its lower(); unless it folds to an
                # ASCII letter (the Kelvin sign to k), a match of it needs a non-ASCII character in the text.
                flush()
                if not _folds_to_ascii(ch):
                    needs.append(("nonascii", ""))
            else:
                run.append(ch.lower() if ignorecase else ch)
        elif op in _ZERO_WIDTH:
            continue  # consumes nothing: the literals around it stay adjacent
        elif op is C.SUBPATTERN:
            flush()
            _group, add_flags, del_flags, sub = av
            case = (ignorecase or bool(add_flags & C.SRE_FLAG_IGNORECASE)) and not del_flags & C.SRE_FLAG_IGNORECASE
            needs.extend(_sequence(sub, case))
        elif op is C.BRANCH:
            flush()
            branches = [_sequence(branch, ignorecase) for branch in av[1]]
            if branches and all(branches):  # a branch that needs nothing makes the choice need nothing
                needs.append(("any", [("all", branch) for branch in branches]))
        elif op in _REPEATS:
            flush()
            low, _high, sub = av
            if low >= 1:
                needs.extend(_sequence(sub, ignorecase))
        elif op is getattr(C, "ATOMIC_GROUP", None):
            flush()
            needs.extend(_sequence(av, ignorecase))
        else:  # a class, any character, a back-reference, a conditional: no literal known
            flush()
    flush()
    return needs


def required_literals(pattern: re.Pattern[str]) -> Need | None:
    """What every match of ``pattern`` needs of the text (literals lower-cased for a case-insensitive pattern), or
    None when nothing is known."""
    if not isinstance(pattern.pattern, str):
        return None
    try:
        tree = P.parse(pattern.pattern, pattern.flags & ~re.UNICODE)
    except (re.error, TypeError, ValueError):
        return None
    needs = _sequence(tree, bool(tree.state.flags & re.IGNORECASE))
    return ("all", needs) if needs else None


def _met(need: Need, entry: _Entry) -> bool:
    """``need`` holds in the text of ``entry`` (see :func:`_entry`); an unknown answer counts as met."""
    kind, value = need
    if kind == "nonascii":
        return not entry[0].isascii()
    if kind in ("lit", "ilit"):
        text, low, found_raw, found_low = entry
        haystack, found = (text, found_raw) if kind == "lit" else (low, found_low)
        if haystack is None:
            return True
        hit = found.get(value)
        if hit is None:
            hit = found[value] = value in haystack
        return hit
    if kind == "all":
        return all(_met(n, entry) for n in value)
    return any(_met(n, entry) for n in value)


# The last texts checked: their lower-cased forms and which literals each holds (the rules scan the same few texts
# many times, and many patterns share a word).
_Entry = tuple[str, "str | None", dict[str, bool], dict[str, bool]]
_SEEN: dict[int, _Entry] = {}


def _entry(text: str) -> _Entry:
    """``text``, its ``lower()`` when that is exact for case-insensitive ASCII literals (else None: see the module's
    docstring), and which literals were found in each of the two."""
    hit = _SEEN.get(id(text))
    if hit is not None and hit[0] is text:
        return hit
    low: str | None = text.lower()
    if not text.isascii():
        for ch in set(text):
            if not ch.isascii() and not ch.lower().isascii() and re.fullmatch("[a-z]", ch, re.IGNORECASE):
                low = None
                break
    if len(_SEEN) >= 8:
        _SEEN.clear()
    entry: _Entry = (text, low, {}, {})
    _SEEN[id(text)] = entry
    return entry


def forget() -> None:
    """Drop the texts kept by the checks (a diagnosis is over: a 5 MB log and its lower-cased copy are not kept)."""
    _SEEN.clear()


class LiteralScan:
    """A compiled pattern that skips the scans that must fail (see the module's docstring); otherwise the pattern."""

    __slots__ = ("_pattern", "_literals")

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self._pattern = pattern
        self._literals = required_literals(pattern)

    def _absent(self, text: Any, pos: int = 0) -> bool:
        """No match is possible in ``text``: it lacks what every match needs."""
        if self._literals is None or not isinstance(text, str) or len(text) < MIN_CHARS or pos:
            return False
        return not _met(self._literals, _entry(text))

    def search(self, string: str, *args: Any) -> re.Match[str] | None:
        if not args and self._absent(string):
            return None
        return self._pattern.search(string, *args)

    def findall(self, string: str, *args: Any) -> list[Any]:
        if not args and self._absent(string):
            return []
        return self._pattern.findall(string, *args)

    def finditer(self, string: str, *args: Any) -> Iterator[re.Match[str]]:
        if not args and self._absent(string):
            return iter(())
        return self._pattern.finditer(string, *args)

    def sub(self, repl: Any, string: str, count: int = 0) -> str:
        if self._absent(string):
            return string
        return self._pattern.sub(repl, string, count)

    def subn(self, repl: Any, string: str, count: int = 0) -> tuple[str, int]:
        if self._absent(string):
            return string, 0
        return self._pattern.subn(repl, string, count)

    def __getattr__(self, name: str) -> Any:  # match, fullmatch, split, pattern, flags, groups, groupindex
        return getattr(self._pattern, name)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LiteralScan):
            other = other._pattern
        return self._pattern == other

    def __hash__(self) -> int:
        return hash(self._pattern)

    def __repr__(self) -> str:
        return f"LiteralScan({self._pattern!r})"


def _wrapped(value: Any) -> Any:
    if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
        scan = LiteralScan(value)
        return scan if scan._literals is not None else value
    if isinstance(value, tuple) and any(isinstance(v, re.Pattern) for v in value):
        return tuple(_wrapped(v) for v in value)
    if isinstance(value, list) and any(isinstance(v, re.Pattern) for v in value):
        value[:] = [_wrapped(v) for v in value]
    elif isinstance(value, dict) and any(isinstance(v, re.Pattern) for v in value.values()):
        for key, item in value.items():
            value[key] = _wrapped(item)
    return value


_INSTALLED: set[str] = set()


def install(prefix: str = "gpudesk.oom") -> None:
    """Wrap the compiled patterns of every loaded module under ``prefix`` (once per module)."""
    for name, module in list(sys.modules.items()):
        if module is None or name in _INSTALLED or not (name == prefix or name.startswith(prefix + ".")):
            continue
        _INSTALLED.add(name)
        for attr, value in list(vars(module).items()):
            if attr.startswith("__"):
                continue
            wrapped = _wrapped(value)
            if wrapped is not value:
                setattr(module, attr, wrapped)
