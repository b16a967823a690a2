"""Find an item by id or by a case-insensitive fragment of its name.

Every word of the query must match. Three tiers are tried in order, and the first tier with any match
decides: (1) each query word equals a word of the name or id, (2) each is the start of such a word, (3) each
occurs anywhere in the name or id. Several matches in a tier: the one with the fewest other words, when it is
the only one. So "a10" finds the A10 rather than every A100, and "h100 sxm"
finds the H100 SXM5.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from gpudesk.catalog.errors import AmbiguousItemError, UnknownItemError
from gpudesk.i18n import _


class Named(Protocol):
    """A catalog item the user can name: its id and its display name."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


T = TypeVar("T", bound=Named)

_SPLIT = re.compile(r"[\s\-_/(),]+")


def _words(*texts: str) -> list[str]:
    return [w for t in texts for w in _SPLIT.split(t.lower()) if w]


def find_item(items: Sequence[T], query: str, kind: str, list_hint: str) -> T:
    """Return the single item whose ``id`` or ``name`` matches ``query``.

    Args:
        items: objects with ``id`` and ``name`` attributes.
        query: an id or words from the name, any case.
        kind: what the items are, for messages ("GPU", "model").
        list_hint: where the user can see the valid ids, for messages.

    Raises:
        UnknownItemError: nothing matches (the message suggests close ids).
        AmbiguousItemError: several match; ``.matches`` lists them.
    """
    text = (query or "").strip().lower()
    noun = kind_name(kind)
    if not text:
        raise UnknownItemError(_("No {kind} given. Give an id or part of the name; {hint}.").format(kind=noun,
                                                                                                 hint=list_hint))
    for item in items:
        if item.id.lower() == text or item.name.lower() == text:
            return item
    tokens = _words(text)
    indexed = [(item, _words(item.name, item.id), f"{item.name} {item.id}".lower()) for item in items]
    tiers: list[Callable[[str, list[str], str], bool]] = [
        lambda tok, words, _: tok in words,
        lambda tok, words, _: any(w.startswith(tok) for w in words),
        lambda tok, _, blob: tok in blob,
    ]
    for test in tiers:
        matched = [(item, words) for item, words, blob in indexed if all(test(tok, words, blob) for tok in tokens)]
        matches = [item for item, _ in matched]
        if len(matches) == 1:
            return matches[0]
        if matches:
            # The name with the fewest words beyond the query wins when it is the only one, so "4090" is the RTX
            # 4090 and not the RTX 4090 D (a variant adds a word), "lama 2 7b" is Llama 2 7B and not Llama 4
            # Maverick 17B-128E; ties stay ambiguous.
            extra = [len(set(words) - set(tokens)) for _, words in matched]
            fewest = min(extra)
            if extra.count(fewest) == 1:
                return matches[extra.index(fewest)]
        if matches:
            raise AmbiguousItemError(_ambiguous_text(query, kind, matches), matches)
    names = [i.id for i in items] + [i.name.lower() for i in items]
    import difflib  # only for a name that matches nothing (start-up time)

    close = difflib.get_close_matches(text, names, n=3, cutoff=0.5)
    hint = f"{list_hint[0].upper()}{list_hint[1:]}"
    if close:
        raise UnknownItemError(_("No {kind} matches {query!r}. Did you mean {close}? {hint}.").format(
            kind=noun, query=query, close=", ".join(repr(c) for c in close), hint=hint))
    raise UnknownItemError(_("No {kind} matches {query!r}. {hint}.").format(kind=noun, query=query, hint=hint))


def kind_name(kind: str) -> str:
    """A catalog item kind ("GPU", "model", "server", "link") as a noun in the current language, for messages; an
    unknown kind as it is."""
    names = {"GPU": _("GPU"), "model": _("model"), "server": _("server"), "link": _("link")}
    return names.get(kind, kind)


def _ambiguous_text(query: str, kind: str, matches: Sequence[object]) -> str:
    """Several items match ``query``: the first 12 (id and name) and how many more."""
    listing = "; ".join(f"{getattr(m, 'id', m)} ({getattr(m, 'name', m)})" for m in matches[:12])
    values = {"query": query, "n": len(matches), "listing": listing, "more": len(matches) - 12, "kind": kind}
    if len(matches) > 12:
        if kind == "GPU":
            return _("{query!r} matches {n} GPUs: {listing} and {more} more. Add words to narrow it, or use an "
                     "id.").format(**values)
        if kind == "model":
            return _("{query!r} matches {n} models: {listing} and {more} more. Add words to narrow it, or use an "
                     "id.").format(**values)
        return _("{query!r} matches {n} items of kind {kind}: {listing} and {more} more. Add words to narrow it, or "
                 "use an id.").format(**values)
    if kind == "GPU":
        return _("{query!r} matches {n} GPUs: {listing}. Add words to narrow it, or use an id.").format(**values)
    if kind == "model":
        return _("{query!r} matches {n} models: {listing}. Add words to narrow it, or use an id.").format(**values)
    return _("{query!r} matches {n} items of kind {kind}: {listing}. Add words to narrow it, or use an id.").format(
        **values)
