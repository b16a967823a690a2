"""The speed check's per-set summaries kept on disk: read back only under the same key, which changes with the set's
fixture files and with the catalog; a broken or unwritable cache never loses or falsifies the figures."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gpudesk import paths
from gpudesk.sizing import speed_accuracy_cache as cache
from gpudesk.sizing import speed_validation as sv

# A small real set (30 published serving runs) copied to a folder of its own, so a test can change its rows.
SET = "fresh6"


@pytest.fixture
def cases(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "speed"
    folder.mkdir()
    for name in sv.SET_FILES[SET]:
        if (sv.speed_cases_dir() / name).exists():
            shutil.copy(sv.speed_cases_dir() / name, folder / name)
    shutil.copytree(sv.speed_cases_dir() / "configs", folder / "configs")
    monkeypatch.setattr(sv, "speed_cases_dir", lambda: folder)
    monkeypatch.setattr(sv, "SET_FILES", {SET: sv.SET_FILES[SET]})
    monkeypatch.setattr(sv, "_EVALUATED", {})
    return folder


def _serve_file(folder: Path) -> Path:
    return folder / f"{SET}_serve_runs.jsonl"


def test_key_changes_when_a_fixture_row_changes(cases):
    models = cache.models_digest()
    before = cache.set_key(SET, models)
    assert cache.set_key(SET, models) == before
    text = _serve_file(cases).read_text(encoding="utf-8")
    first, rest = text.split("\n", 1)
    # One measured value changed, same file size: the key still changes.
    changed = first.replace('"value": 84.95', '"value": 85.95', 1)
    assert changed != first and len(changed) == len(first)
    _serve_file(cases).write_text(changed + "\n" + rest, encoding="utf-8")
    assert cache.set_key(SET, models) != before


def test_key_changes_when_a_model_config_a_row_names_changes(cases, tmp_path, monkeypatch):
    # Most rows name a config.json under tests/fixtures/sizing/configs, outside the speed fixture folder.
    name = "tests/fixtures/sizing/configs/qwen2.5-coder-14b.config.json"
    root = tmp_path / "root"
    config = root / name
    config.parent.mkdir(parents=True)
    shutil.copy(paths.bundle_root() / name, config)
    models = cache.models_digest()
    monkeypatch.setattr(paths, "bundle_root", lambda: root)
    text = _serve_file(cases).read_text(encoding="utf-8")
    assert '"model": "qwen2.5-7b"' in text
    _serve_file(cases).write_text(text.replace('"model": "qwen2.5-7b"', f'"model": "{name}"', 1), encoding="utf-8")
    before = cache.set_key(SET, models)
    assert cache.set_key(SET, models) == before
    config.write_text(config.read_text(encoding="utf-8").replace('"num_hidden_layers": 48', '"num_hidden_layers": 47'),
                      encoding="utf-8")
    assert cache.set_key(SET, models) != before


def test_key_changes_when_the_catalog_changes(cases, tmp_path, monkeypatch):
    catalog = tmp_path / "catalog.db"
    shutil.copy(paths.catalog_path(), catalog)
    monkeypatch.setenv("GPUDESK_CATALOG", str(catalog))
    before = cache.models_digest()
    with catalog.open("ab") as handle:
        handle.write(b"\0")
    assert cache.models_digest() != before


def test_second_check_reads_the_kept_summary_and_a_changed_set_is_predicted_again(cases, monkeypatch):
    seen: list[tuple[str, int, int]] = []
    first = cache.check_speed_sets(on_set=lambda name, number, total, rows: seen.append((name, number, total)))
    assert first is not None and first.cache_error is None
    assert seen == [(SET, 1, 1)]
    assert first.rows == sv.speed_class_rows(sv.summarize_speed(sv.evaluate_speed()))
    assert cache.cache_file(SET).is_file()

    def no_prediction(*_args):
        raise AssertionError("the kept summary should have been used")

    monkeypatch.setattr(sv, "speed_set_class_rows", no_prediction)
    again = cache.check_speed_sets()
    assert again is not None and again.rows == first.rows
    # One run fewer in the set: the kept figures are stale and must not be shown.
    lines = _serve_file(cases).read_text(encoding="utf-8").splitlines()
    _serve_file(cases).write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="kept summary"):
        cache.check_speed_sets()


def test_stale_key_is_never_read(cases):
    cache.write_cached(SET, "old-key", [{"set": SET, "class": "kind", "value": "serve", "rows": 1}])
    assert cache.read_cached(SET, "new-key") is None
    assert cache.read_cached(SET, "old-key") == [{"set": SET, "class": "kind", "value": "serve", "rows": 1}]


def test_damaged_cache_file_is_predicted_again_and_rewritten(cases):
    key = cache.set_key(SET, cache.models_digest())
    target = cache.cache_file(SET)
    target.parent.mkdir(parents=True)
    target.write_text('{"key": "' + key + '", "rows": [', encoding="utf-8")
    assert cache.read_cached(SET, key) is None
    check = cache.check_speed_sets()
    assert check is not None and check.rows and check.cache_error is None
    assert cache.read_cached(SET, key) == check.rows


def test_unwritable_cache_is_reported_and_the_figures_are_still_given(cases, tmp_path, monkeypatch):
    blocked = tmp_path / "data"
    blocked.mkdir()
    (blocked / "cache").write_text("a file where the cache folder should be", encoding="utf-8")
    monkeypatch.setenv("GPUDESK_DATA_DIR", str(blocked))
    check = cache.check_speed_sets()
    assert check is not None and check.rows
    assert check.cache_error is not None and check.cache_error.startswith("cannot write ")


def test_stop_before_the_end_gives_nothing_and_keeps_nothing(cases):
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 5  # a few rows in

    assert cache.check_speed_sets(should_stop=stop) is None
    assert not cache.cache_file(SET).exists()
    assert not sv._EVALUATED  # an unfinished set is not kept in the process either


def test_the_process_cache_misses_when_a_config_a_row_names_is_edited(cases, tmp_path):
    # qa19: the process's own cache (speed_validation._EVALUATED) uses the disk cache's key, which includes the
    # configurations the rows name: before, it was keyed on the set's own files only and gave the old figures.
    name = "tests/fixtures/sizing/configs/qwen2.5-coder-14b.config.json"
    config = tmp_path / "qwen2.5-coder-14b.config.json"
    shutil.copy(paths.bundle_root() / name, config)
    text = _serve_file(cases).read_text(encoding="utf-8")
    _serve_file(cases).write_text(text.replace('"model": "qwen2.5-7b"', f'"model": "{config}"', 1), encoding="utf-8")
    first = sv.evaluate_speed_set(SET)
    assert first is not None and len(sv._EVALUATED) == 1
    assert sv.evaluate_speed_set(SET) == first and len(sv._EVALUATED) == 1  # the same files and configs: a hit
    config.write_text(config.read_text(encoding="utf-8").replace('"num_hidden_layers": 48', '"num_hidden_layers": 47'),
                      encoding="utf-8")
    again = sv.evaluate_speed_set(SET)
    assert len(sv._EVALUATED) == 2  # predicted again, not the kept rows
    assert again is not None and again != first  # the edited configuration's run is predicted from its new layers
