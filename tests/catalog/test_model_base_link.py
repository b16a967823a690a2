"""FP8 checkpoints in the catalog link to the model they quantize (models.base_model; qafix4 item 7)."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog

REPO = Path(__file__).resolve().parents[2]
#: FP8 rows without a base in the catalog, and why: Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 quantizes
#: Qwen3-235B-A22B-Instruct-2507 (other weights and a 262k context), which is not a catalog row; qwen3-235b-a22b
#: has its shape but not its weights.
NO_BASE = {"qwen3-235b-a22b-instruct-2507-fp8"}
SHAPE = ("layers", "hidden_size", "num_attention_heads", "num_kv_heads", "head_dim", "ffn_size", "vocab_size",
         "moe_experts", "moe_active_experts", "moe_ffn_size", "params", "tied_embeddings")


def _builder():
    spec = importlib.util.spec_from_file_location("build_catalog", REPO / "db" / "build_catalog.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_fp8_variant_names_its_base_of_the_same_shape() -> None:
    catalog = open_catalog()
    models = {m.id: m for m in catalog.models()}
    variants = {mid for mid in models if mid.endswith("-fp8")}
    assert {mid for mid in variants if models[mid].base_model is None} == NO_BASE
    linked = {mid: m for mid, m in models.items() if m.base_model}
    assert set(linked) == variants - NO_BASE
    for mid, m in linked.items():
        base = models[m.base_model]
        assert m.checkpoint_weight_format == "fp8" and base.checkpoint_weight_format is None, mid
        assert [getattr(m, f) for f in SHAPE] == [getattr(base, f) for f in SHAPE], mid
        assert "quantization_config" in (m.notes or ""), mid  # the published config the link rests on
    assert models["qwen3-8b-fp8"].base_model == "qwen3-8b"


def test_a_catalog_built_before_the_column_still_opens(tmp_path: Path) -> None:
    old = tmp_path / "catalog.db"
    shutil.copy(paths.catalog_path(), old)
    conn = sqlite3.connect(old)
    columns = [r[1] for r in conn.execute("PRAGMA table_info(models)") if r[1] != "base_model"]
    conn.executescript(f"CREATE TABLE models_before AS SELECT {', '.join(columns)} FROM models; DROP TABLE models; "
                       "ALTER TABLE models_before RENAME TO models;")
    conn.close()
    assert open_catalog(old).model("qwen3-8b-fp8").base_model is None


def test_the_build_refuses_a_link_to_no_row_or_from_an_original(tmp_path: Path) -> None:
    builder = _builder()
    src = tmp_path / "src"
    shutil.copytree(REPO / "db", src, ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    text = (src / "models.csv").read_text(encoding="utf-8")
    (src / "models.csv").write_text(text.replace(",qwen3-8b\n", ",qwen3-9b\n", 1), encoding="utf-8")
    with pytest.raises(builder.BuildError, match="base_model 'qwen3-9b'"):
        builder.build(tmp_path / "out.db", src)


def test_catalog_models_lists_the_link(capsys) -> None:
    from gpudesk.cli import main

    assert main(["catalog", "models"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("qwen3-8b-fp8 "))
    assert line.rstrip().endswith("fp8 of qwen3-8b")
    assert main(["catalog", "models", "--json"]) == 0
    rows = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["qwen3-8b-fp8"]["base_model"] == "qwen3-8b" and rows["qwen3-8b"]["base_model"] is None
