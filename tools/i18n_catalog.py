#!/usr/bin/env python3
"""Core (Qt-free) message catalogs: extract, split into per-package parts, merge and compile.

The window's texts live in Qt's .ts files (resources/translations); this script handles the gettext catalogs
of everything outside gpudesk/ui (see docs/translating.md):

    gpudesk/locale/gpudesk.pot                                 every message of the core (extracted, generated)
    gpudesk/locale/<lang>/LC_MESSAGES/parts/<package>.po       translations, one file per package (edit these)
    gpudesk/locale/<lang>/LC_MESSAGES/gpudesk.po               all parts merged (generated, do not edit)
    gpudesk/locale/<lang>/LC_MESSAGES/gpudesk.mo               compiled, loaded by gpudesk.i18n (generated)

A message belongs to the package of its first source file (``gpudesk/planner/sheet.py`` -> ``planner``); the
top-level modules (``gpudesk/errors.py``, ``gpudesk/__main__.py`` ...) belong to the ``cli`` part. Splitting by
package lets several translators work at once without touching each other's files.

Commands (run from anywhere; ``make translations`` runs ``all``):

    python tools/i18n_catalog.py extract   write the .pot
    python tools/i18n_catalog.py parts     add new messages to the parts (untranslated), drop removed ones
    python tools/i18n_catalog.py merge     merge the parts into gpudesk.po and compile gpudesk.mo
    python tools/i18n_catalog.py all       the three above
    python tools/i18n_catalog.py stats     translated / total messages, by package

Output is deterministic (sorted, no line numbers, fixed dates), so re-running it changes no file unless a
message or translation changed.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import sys
from collections.abc import Iterable
from pathlib import Path

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

REPO = Path(__file__).resolve().parents[1]
LOCALE_DIR = REPO / "gpudesk" / "locale"
POT = LOCALE_DIR / "gpudesk.pot"
BABEL_CFG = REPO / "babel.cfg"
DOMAIN = "gpudesk"
#: Languages with a core catalog; add one here and run `all` to start its parts.
LANGUAGES = ("zh_CN",)
#: gpudesk.i18n's translation functions: _(msg), ngettext(singular, plural, n), N_(msg).
KEYWORDS: dict[str, tuple[int, ...] | None] = {"_": None, "ngettext": (1, 2), "N_": None}
#: Comments above a message that start with this go to the translator (``# Translators: {gpu} is a name``).
COMMENT_TAGS = ("Translators:",)
#: Part that takes the messages of the top-level modules (gpudesk/*.py).
TOP_LEVEL_PART = "cli"
#: Fixed header dates keep the generated files identical between runs (git diffs show only real changes).
FIXED_DATE = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
GENERATED_HEADER = (
    "# gpudesk core messages ({lang}), merged from parts/*.po by tools/i18n_catalog.py.\n"
    "# Generated file: edit parts/<package>.po instead and run `python tools/i18n_catalog.py merge`.\n#"
)


def parts_dir(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / "parts"


def po_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def mo_path(language: str) -> Path:
    return LOCALE_DIR / language / "LC_MESSAGES" / f"{DOMAIN}.mo"


def package_of(location: str) -> str:
    """The part a source file's messages go to: ``gpudesk/oom/rules/x.py`` -> ``oom``; ``gpudesk/errors.py`` -> cli."""
    pieces = Path(location).parts
    if len(pieces) >= 3 and pieces[0] == "gpudesk":
        return pieces[1]
    return TOP_LEVEL_PART


def _key(message: Message) -> str:
    return message.id if isinstance(message.id, str) else message.id[0]


def _owner(message: Message) -> str:
    return package_of(sorted(str(path) for path, _line in message.locations)[0]) if message.locations else TOP_LEVEL_PART


def extract(repo: Path = REPO) -> Catalog:
    """Every message in the core's sources (outside gpudesk/ui), as a template catalog."""
    with BABEL_CFG.open(encoding="utf-8") as cfg:
        method_map, options_map = parse_mapping_cfg(cfg)  # type: ignore[no-untyped-call]

    def only_core(path: str) -> bool:
        rel = Path(path).resolve().relative_to(repo.resolve()).as_posix()
        return rel == "." or rel == "gpudesk" or (rel.startswith("gpudesk/") and not rel.startswith("gpudesk/ui")
                                                   and "__pycache__" not in rel and "/locale" not in rel)

    template = Catalog(project="gpudesk", domain=DOMAIN, creation_date=FIXED_DATE, fuzzy=False, charset="utf-8")
    found = extract_from_dir(str(repo), method_map, options_map, keywords=KEYWORDS, comment_tags=COMMENT_TAGS,
                             strip_comment_tags=True, directory_filter=only_core)
    for filename, _lineno, message, comments, context in found:
        # No line numbers: locations name the file only, so moving code does not change the catalogs.
        template.add(message, None, [(Path(filename).as_posix(), None)],  # type: ignore[list-item]
                     auto_comments=comments, context=context)
    return template


def _write_if_changed(path: Path, data: bytes) -> bool:
    if path.exists() and path.read_bytes() == data:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return True


def _po_bytes(catalog: Catalog) -> bytes:
    buffer = io.BytesIO()
    write_po(buffer, catalog, width=116, sort_output=True, ignore_obsolete=True, include_lineno=False)
    return buffer.getvalue()


def write_template(template: Catalog) -> bool:
    return _write_if_changed(POT, _po_bytes(template))


def _subset(template: Catalog, package: str) -> Catalog:
    subset = Catalog(project="gpudesk", domain=DOMAIN, creation_date=FIXED_DATE, fuzzy=False, charset="utf-8")
    for message in template:
        if message.id and _owner(message) == package:
            subset[message.id] = message
    return subset


def read_part(path: Path, language: str) -> Catalog:
    with path.open("rb") as handle:
        return read_po(handle, locale=language, domain=DOMAIN)


def update_parts(template: Catalog, language: str) -> list[Path]:
    """Bring every part in line with the sources: new messages untranslated, removed ones dropped, a changed
    message matched to its old translation as fuzzy (review it, then delete the ``#, fuzzy`` line)."""
    packages = sorted({_owner(m) for m in template if m.id} | {p.stem for p in parts_dir(language).glob("*.po")})
    changed = []
    for package in packages:
        path = parts_dir(language) / f"{package}.po"
        if path.exists():
            part = read_part(path, language)
        else:
            part = Catalog(locale=language, domain=DOMAIN, project="gpudesk", creation_date=FIXED_DATE,
                           fuzzy=False, charset="utf-8")
        part.update(_subset(template, package), no_fuzzy_matching=False, update_creation_date=True)
        if _write_if_changed(path, _po_bytes(part)):
            changed.append(path)
    return changed


def read_parts(language: str) -> dict[str, Catalog]:
    return {path.stem: read_part(path, language) for path in sorted(parts_dir(language).glob("*.po"))}


def merge(template: Catalog, language: str, parts: dict[str, Catalog] | None = None) -> Catalog:
    """gpudesk.po for ``language``: every message of ``template`` with its translation from its package's part
    (or, failing that, from the first other part that has one)."""
    parts = read_parts(language) if parts is None else parts
    merged = Catalog(locale=language, domain=DOMAIN, project="gpudesk", creation_date=FIXED_DATE,
                     revision_date=FIXED_DATE, fuzzy=False, charset="utf-8",
                     header_comment=GENERATED_HEADER.format(lang=language))
    for message in template:
        if not message.id:
            continue
        owner = _owner(message)
        sources = [parts[owner]] if owner in parts else []
        sources += [parts[name] for name in sorted(parts) if name != owner]
        translated = next((part.get(message.id, message.context) for part in sources
                           if _is_translated(part.get(message.id, message.context))), None)
        if translated is None:  # keep a fuzzy or empty entry from the owner, so `stats` can count it
            translated = parts[owner].get(message.id, message.context) if owner in parts else None
        merged.add(message.id, translated.string if translated is not None else None, list(message.locations),
                   flags=set(message.flags) | (set(translated.flags) & {"fuzzy"} if translated is not None else set()),
                   auto_comments=message.auto_comments, context=message.context)
    return merged


def _is_translated(message: Message | None) -> bool:
    if message is None or message.fuzzy:
        return False
    strings = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
    return all(bool(s) for s in strings)


def compile_catalog(merged: Catalog, language: str) -> list[Path]:
    changed = []
    if _write_if_changed(po_path(language), _po_bytes(merged)):
        changed.append(po_path(language))
    buffer = io.BytesIO()
    write_mo(buffer, merged, use_fuzzy=False)
    if _write_if_changed(mo_path(language), buffer.getvalue()):
        changed.append(mo_path(language))
    return changed


def stats(template: Catalog, language: str) -> list[tuple[str, int, int]]:
    """(package, translated, total) per package, and ``("total", ...)`` last."""
    merged = merge(template, language)
    counts: dict[str, list[int]] = {}
    for message in merged:
        if not message.id:
            continue
        row = counts.setdefault(_owner(message), [0, 0])
        row[0] += _is_translated(message)
        row[1] += 1
    rows = [(name, done, total) for name, (done, total) in sorted(counts.items())]
    rows.append(("total", sum(r[1] for r in rows), sum(r[2] for r in rows)))
    return rows


def _report(paths: Iterable[Path]) -> None:
    for path in paths:
        print(f"wrote {path.relative_to(REPO)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("command", choices=["extract", "parts", "merge", "all", "stats"])
    parser.add_argument("--language", action="append", help="only this language (default: every one of LANGUAGES)")
    args = parser.parse_args(argv)
    languages = args.language or list(LANGUAGES)
    template = extract()
    if args.command in ("extract", "all") and write_template(template):
        _report([POT])
    for language in languages:
        if args.command in ("parts", "all"):
            _report(update_parts(template, language))
        if args.command in ("merge", "all"):
            _report(compile_catalog(merge(template, language), language))
        if args.command == "stats":
            for name, done, total in stats(template, language):
                print(f"{language}\t{name}\t{done}/{total}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
