"""gpudesk/settings_upgrade.py: the settings file's version and the rules that bring an older file to it (issue 31),
on the values real files of each version hold (as QSettings reads an INI file: text)."""

from __future__ import annotations

import pytest

from gpudesk.settings_upgrade import (RULES, SETTINGS_VERSION, TAB_KEY, VERSION_KEY, stored_version,
                                      upgrade_settings)

# A settings.ini written before the version was recorded, as QSettings reads it back (values are text).
V0_FILE = {"main/geometry": b"\x01\xd9\xd0\xcb\x00\x03", "main/tab": "2", "alerts/tray": "true",
           "ui/language": "zh_CN", "export/last_folder": "/home/ml/Documents"}


def _apply(values: dict, changes: dict) -> dict:
    out = dict(values)
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def test_a_version_0_file_gets_the_tab_by_name_and_the_version():
    result = upgrade_settings(V0_FILE)
    assert result.from_version == 0 and not result.newer
    assert result.changes == {TAB_KEY: "monitor", VERSION_KEY: SETTINGS_VERSION}


@pytest.mark.parametrize(("stored", "expected"), [
    ("0", "plan"), ("1", "catalog"), (3, "oom"), (" 2 ", "monitor"),  # an int when set in the same session
    ("4", None), ("-1", None),  # an index past the tabs of that release: removed, the window opens its first tab
])
def test_every_version_0_tab_index_maps_to_that_releases_tab(stored, expected):
    assert upgrade_settings({TAB_KEY: stored}).changes[TAB_KEY] == expected


@pytest.mark.parametrize("stored", ["not-a-number", "catalog", ""])
def test_a_tab_value_that_is_not_an_index_is_left_to_the_windows_fallback(stored):
    assert TAB_KEY not in upgrade_settings({TAB_KEY: stored}).changes


def test_upgrading_twice_changes_nothing_the_second_time():
    once = _apply(V0_FILE, upgrade_settings(V0_FILE).changes)
    again = upgrade_settings(once)
    assert again.from_version == SETTINGS_VERSION and again.changes == {}
    assert once["ui/language"] == "zh_CN" and once["main/geometry"] == V0_FILE["main/geometry"]  # others kept


def test_a_file_from_a_newer_gpudesk_is_left_as_it_is():
    newer = {VERSION_KEY: str(SETTINGS_VERSION + 1), TAB_KEY: "3", "future/key": "x"}
    result = upgrade_settings(newer)
    assert result.newer and result.from_version == SETTINGS_VERSION + 1 and result.changes == {}


@pytest.mark.parametrize("stored", ["abc", "-3", "1.5", None])
def test_an_unreadable_version_is_upgraded_as_version_0(stored):
    values = {TAB_KEY: "1"} if stored is None else {VERSION_KEY: stored, TAB_KEY: "1"}
    assert stored_version(values) == 0
    assert upgrade_settings(values).changes == {TAB_KEY: "catalog", VERSION_KEY: SETTINGS_VERSION}


def test_one_rule_per_version_step():
    assert len(RULES) == SETTINGS_VERSION
