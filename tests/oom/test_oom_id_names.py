"""Evidence values that are ids (the kind of a not-capacity failure, the deciding check) and cause ids read as
translated names, from one table (gpudesk.oom.labels), in the CLI and the UI; and the report header of a TensorRT-LLM
message names no framework the text does not show, and its fix tells a default from a value the log printed.

Inputs: oneMKL's allocation failure as it prints it ("mkl_malloc: failed to allocate memory", oneMKL's
``mkl_malloc`` returning NULL in host memory), and TensorRT-LLM's KV cache manager assertion
(cpp/tensorrt_llm/batch_manager/kvCacheManager.cpp: "maxTokensInPagedKvCache (N) must be large enough to process at
least 1 sequence to completion").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from gpudesk import i18n
from gpudesk.cli import main
from gpudesk.oom import diagnose_text
from gpudesk.oom.cause import CAUSE_IDS
from gpudesk.oom.labels import CAUSE_NAMES, CHECK_NAMES, NOT_CAPACITY_KIND_NAMES, cause_name, id_value_name
from gpudesk.oom.parsers import parse_text
from gpudesk.oom.signatures import CHECKS, NOT_CAPACITY

MKL = "mkl_malloc: failed to allocate memory\n"
TRTLLM = ("[TensorRT-LLM][ERROR] Assertion failed: maxTokensInPagedKvCache ({tokens}) must be large enough to process "
          "at least 1 sequence to completion (i.e. must be larger than beam_width (1) * tokensPerBlock (64) * "
          "maxBlocksPerSeq (64))\n")
CJK = re.compile(r"[\u4e00-\u9fff]")
OOM_SOURCES = Path(__file__).resolve().parents[2] / "gpudesk" / "oom"


@pytest.fixture
def language_restored() -> Iterator[None]:
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def _cli(tmp_path, capsys, text: str) -> str:
    paste = tmp_path / "paste.txt"
    paste.write_text(text, encoding="utf-8")
    assert main(["oom", "diagnose", str(paste)]) == 0
    return capsys.readouterr().out


def test_every_cause_kind_and_check_id_has_a_name():
    assert set(CAUSE_IDS) <= set(CAUSE_NAMES)
    assert set(CHECKS) <= set(CHECK_NAMES)
    kinds = set(NOT_CAPACITY)
    for source in OOM_SOURCES.rglob("*.py"):  # every kind a rule writes as a literal
        kinds |= set(re.findall(r'not_capacity_kind="(\w+)"', source.read_text(encoding="utf-8")))
    signature_rule = (OOM_SOURCES / "rules" / "signature.py").read_text(encoding="utf-8")
    titles = signature_rule[signature_rule.index("def _not_capacity("):]
    titles = titles[:titles.index("explanations = {")]
    kinds |= set(re.findall(r'^\s+"(\w+)": _\(', titles, re.M))  # the kinds _not_capacity names by key
    assert kinds <= set(NOT_CAPACITY_KIND_NAMES), kinds - set(NOT_CAPACITY_KIND_NAMES)
    assert id_value_name("deciding_check", "host_ram") == "Host memory use"
    assert id_value_name("requested_bytes", "host_ram") is None  # only the keys that hold ids


def test_mkl_paste_names_kind_and_check_in_english(tmp_path, capsys):
    out = _cli(tmp_path, capsys, MKL)
    assert "Host RAM (system memory)" in out and "Host memory use" in out
    assert not re.search(r"\s(host_ram)\s*$", out, re.M), out  # no raw id as a value


def test_mkl_paste_names_kind_and_check_in_chinese(tmp_path, capsys, language_restored):
    i18n.set_language("zh_CN")
    out = _cli(tmp_path, capsys, MKL)
    assert "主机内存（系统内存）" in out and "主机内存使用" in out
    assert not re.search(r"\s(host_ram)\s*$", out, re.M), out
    assert cause_name("genuine_shortage") == "GPU 显存不足"


def test_trtllm_message_names_no_pytorch_it_does_not_show(tmp_path, capsys):
    text = TRTLLM.format(tokens=1024)
    assert parse_text(text).framework == "unknown"
    out = _cli(tmp_path, capsys, text)
    assert out.splitlines()[0].startswith("Framework: TensorRT-LLM") and "PyTorch" not in out.splitlines()[0]
    # The PyTorch backend's traceback shows torch: then it is PyTorch, by the same detection.
    assert parse_text("Traceback: File \"torch/nn/modules/module.py\"\n" + text).framework == "pytorch"


def test_trtllm_fix_says_default_when_the_log_printed_no_fraction():
    fix = diagnose_text(TRTLLM.format(tokens=4000)).top.fix  # 0.9 x 4096 / 4000 -> 0.93
    assert "(default 0.9)" in fix and "now" not in fix
    printed = "kv_cache_free_gpu_mem_fraction = 0.5\n" + TRTLLM.format(tokens=4000)
    fix = diagnose_text(printed).top.fix  # 0.5 x 4096 / 4000 -> 0.52
    assert "(now 0.5)" in fix and "0.52" in fix
