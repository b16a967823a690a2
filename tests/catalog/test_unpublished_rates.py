"""An empty rate cell reads "unknown" where the GPU's architecture has the precision (the A10G's tensor rates are
not published) and "not supported" where it lacks it (FP8 on Ampere, everything on Kepler), in the CLI and in
both languages. Before the fix, the A10G's FP16 cell read "N/A (no FP16 tensor cores)" although Ampere has them."""

from __future__ import annotations

import pytest

from gpudesk import i18n
from gpudesk.catalog import open_catalog
from gpudesk.catalog.fields import FIELDS_BY_KEY, UNPUBLISHED_RATE_TEXT
from gpudesk.cli import main


@pytest.fixture(autouse=True)
def english_afterwards(monkeypatch):
    monkeypatch.delenv("GPUDESK_LANG", raising=False)
    monkeypatch.setenv("LANGUAGE", "en")
    before = i18n.current_language()
    yield
    monkeypatch.undo()
    i18n.set_language(before)


def test_unknown_rates_follow_the_architectures_precisions():
    catalog = open_catalog()
    a10g, a100, k80 = (catalog.gpu(i) for i in ("a10g", "a100-80-sxm4", "k80"))
    # Ampere has TF32/FP16/BF16/INT8 tensor cores (precision_support); FP8 and FP4 it lacks.
    assert set(a10g.unpublished_rates) == {"tf32_dense_tflops", "fp16_dense_tflops", "bf16_dense_tflops",
                                           "int8_dense_tops"}
    assert a100.unpublished_rates == ()  # every rate it has is published; FP8 is absent
    assert k80.unpublished_rates == ()  # Kepler: no FP16/BF16/TF32/FP8/INT8/FP4 units at all
    fp16, fp8 = FIELDS_BY_KEY["fp16_dense_tflops"], FIELDS_BY_KEY["fp8_dense_tflops"]
    assert fp16.none_reason(a10g) == UNPUBLISHED_RATE_TEXT
    assert fp8.none_reason(a10g) == fp8.none_reason(a100) == "no FP8 support"
    assert fp16.none_reason(k80) == "no FP16 tensor cores"


def _line(out: str, label: str) -> str:
    return next(text for text in out.splitlines() if text.startswith(label))


def test_show_says_unknown_apart_from_absent(capsys):
    assert main(["catalog", "show", "a10g"]) == 0
    out = capsys.readouterr().out
    assert _line(out, "FP16 dense:").endswith("N/A (unknown: not published for this GPU)")
    assert _line(out, "FP8 dense:").endswith("N/A (no FP8 support)")
    assert "no FP16 tensor cores" not in out


def test_show_in_chinese(capsys):
    assert main(["--lang", "zh_CN", "catalog", "show", "a10g"]) == 0
    out = capsys.readouterr().out
    assert _line(out, "FP16 稠密").endswith("N/A（未知：此 GPU 未公布该值）")
    assert _line(out, "FP8 稠密").endswith("N/A（不支持 FP8）")


def test_list_and_compare_cells_say_unknown(capsys):
    assert main(["catalog", "list"]) == 0
    out = capsys.readouterr().out
    cells = {line.split()[0]: line.split() for line in out.splitlines() if line.split()[:1] in (["a10g"], ["p40"])}
    assert cells["a10g"][5] == "unknown" and cells["p40"][5] == "N/A"  # BF16: Ampere has it; Pascal lacks it
    assert "unknown = a rate the GPU's architecture has but nobody published" in out
    assert main(["catalog", "compare", "a10g", "p40"]) == 0
    rows = {line[3:20].strip(): line.split()[-2:] for line in capsys.readouterr().out.splitlines()[2:]}
    assert rows["BF16 dense"] == ["unknown", "N/A"] and rows["FP8 dense"] == ["N/A", "N/A"]


def test_compare_and_list_headers_in_chinese_line_up(capsys):
    from gpudesk.cli.columns import display_width

    assert main(["--lang", "zh_CN", "catalog", "compare", "a10g", "p40"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "规格" and any("BF16 稠密" in line and "未知" in line for line in lines)
    assert any("ECC" in line and line.split()[-2:] == ["是", "是"] for line in lines)  # yes/no translated
    rows = [next(line for line in lines if label in line) for label in ("显存带宽", "FP32", "TF32 稠密", "INT8 稠密")]
    assert len({display_width(line) for line in rows}) == 1  # right-aligned to one edge, counting terminal cells
    assert main(["--lang", "zh_CN", "catalog", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[0].startswith("标识")


def test_show_json_lists_the_unpublished_rates(capsys):
    import json

    assert main(["catalog", "show", "a10g", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["fp16_dense_tflops"] is None and shown["fp8_dense_tflops"] is None
    assert "fp16_dense_tflops" in shown["unpublished_rates"] and "fp8_dense_tflops" not in shown["unpublished_rates"]
