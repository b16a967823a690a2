"""Versions of the window's settings file (``settings.ini``) and the rules that upgrade an older one (issue 31).

The file holds key -> value pairs written by Qt's QSettings (INI format). The window opens it through
``gpudesk/ui/settings_file.py``, which applies :func:`upgrade_settings` to the stored values and records
:data:`SETTINGS_VERSION` under :data:`VERSION_KEY`. The rules are plain functions of the stored values (Qt-free), so
they are tested on the contents of old files directly.

Versions:

- 0: files written before the version was recorded (no ``settings/version`` key). ``main/tab`` held the index of
  the last open tab in the order of that release: Plan, Catalog, Monitor, OOM doctor (:data:`V0_TAB_ORDER`).
- 1: ``settings/version = 1``; ``main/tab`` holds the tab's name (``plan``, ``catalog``, ``monitor``, ``oom``: the
  package of its module), so adding or reordering tabs never reopens the wrong one.

Every rule is idempotent and checks the form of the value it rewrites, so a file whose version is unreadable is
upgraded as a version 0 file without harm. A file written by a newer gpudesk is left as it is: its keys are kept
and its version is not lowered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

SETTINGS_VERSION = 1
VERSION_KEY = "settings/version"
TAB_KEY = "main/tab"
# The window's tabs, in order, before the settings file had a version (gpudesk/ui/tabs.py of that release).
V0_TAB_ORDER = ("plan", "catalog", "monitor", "oom")


@dataclass(frozen=True)
class SettingsUpgrade:
    """What upgrading a settings file changes.

    Attributes:
        from_version: the version the file had (0: none recorded or unreadable).
        changes: key -> new value; None removes the key. Empty when nothing is to change.
        newer: the file comes from a newer gpudesk (left as it is).
    """

    from_version: int
    changes: dict[str, object | None] = field(default_factory=dict)
    newer: bool = False


def stored_version(values: Mapping[str, object]) -> int:
    """The file's version: 0 when none is recorded or it is not a whole number >= 0."""
    raw = values.get(VERSION_KEY)
    text = str(raw).strip() if raw is not None else ""
    return int(text) if text.isdigit() else 0


def _tab_index_to_name(values: Mapping[str, object]) -> dict[str, object | None]:
    """Version 0 -> 1: ``main/tab`` from an index in :data:`V0_TAB_ORDER` to the tab's name; an index out of that
    range is removed (the window then opens its first tab); any other value is left to the window's fallback."""
    raw = values.get(TAB_KEY)
    if raw is None or isinstance(raw, bool):
        return {}
    text = str(raw).strip()
    if not text.lstrip("-").isdigit():
        return {}
    index = int(text)
    return {TAB_KEY: V0_TAB_ORDER[index] if 0 <= index < len(V0_TAB_ORDER) else None}


# RULES[v] upgrades a version v file to version v + 1.
RULES: tuple[Callable[[Mapping[str, object]], dict[str, object | None]], ...] = (_tab_index_to_name,)


def upgrade_settings(values: Mapping[str, object]) -> SettingsUpgrade:
    """The changes that bring a settings file holding ``values`` to :data:`SETTINGS_VERSION` (the version key
    included), each rule applied in turn to the result of the previous ones."""
    version = stored_version(values)
    if version > SETTINGS_VERSION:
        return SettingsUpgrade(version, newer=True)
    if version == SETTINGS_VERSION:
        return SettingsUpgrade(version)
    current: dict[str, object] = dict(values)
    changes: dict[str, object | None] = {}
    for rule in RULES[version:]:
        for key, value in rule(current).items():
            changes[key] = value
            if value is None:
                current.pop(key, None)
            else:
                current[key] = value
    changes[VERSION_KEY] = SETTINGS_VERSION
    return SettingsUpgrade(version, changes)
