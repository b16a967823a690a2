"""The OOM doctor under zh_CN: causes, evidence labels and fixes in Chinese, settings and flags verbatim.

Input: the Vad-R1#11 message of tests/fixtures/oom/cases.jsonl (https://github.com/wbfwonderful/Vad-R1/issues/11,
a fragmentation case: 14.15 GiB reserved but unallocated plus 6.96 GiB free against a 14.06 GiB request).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from oom_support import load_cases

from gpudesk import i18n
from gpudesk.cli import main
from gpudesk.oom import diagnose_text

CJK = re.compile(r"[\u4e00-\u9fff]")
VAD_R1 = next(c for c in load_cases() if c["url"] == "https://github.com/wbfwonderful/Vad-R1/issues/11")


@pytest.fixture
def language_restored() -> Iterator[None]:
    before = i18n.current_language()
    yield
    i18n.set_language(before)


def test_diagnosis_reads_in_chinese_with_settings_verbatim(language_restored):
    i18n.set_language("zh_CN")
    diagnosis = diagnose_text(VAD_R1["message"])
    top = diagnosis.top
    assert top is not None and top.id == "fragmentation"  # cause ids stay English
    assert top.title == "分配器缓存碎片"
    assert CJK.search(top.explanation) and "连续" in top.explanation
    assert CJK.search(top.fix) and "PYTORCH_ALLOC_CONF=expandable_segments:True" in top.fix
    assert all(CJK.search(text) for text in top.more_fixes + top.checks)
    assert "max_split_size_mb:<N>" in " ".join(top.more_fixes)  # code in a fix is kept as written
    labels = dict((key, label) for key, label, _value in top.evidence_items())
    assert labels["requested_bytes"] == "请求的分配"
    assert labels["reserved_unallocated_bytes"] == "已保留但未分配（分配器缓存）"
    assert all(CJK.search(label) for label in labels.values()), labels
    assert set(top.evidence) >= {"requested_bytes", "free_bytes", "fragmentation_ratio"}  # JSON keys stay English


def test_english_stays_the_default(language_restored):
    i18n.set_language("en")
    top = diagnose_text(VAD_R1["message"]).top
    assert top is not None and top.title == "Fragmented allocator cache"
    assert top.fix.startswith("Set PYTORCH_ALLOC_CONF=expandable_segments:True")
    assert not CJK.search(top.explanation + top.fix + "".join(top.more_fixes))


def test_cli_lang_option_prints_the_diagnosis_in_chinese(tmp_path, capsys, language_restored):
    path = tmp_path / "vad-r1.txt"
    path.write_text(VAD_R1["message"], encoding="utf-8")
    assert main(["--lang", "zh_CN", "oom", "diagnose", str(path)]) == 0
    out = capsys.readouterr().out
    assert "框架：PyTorch" in out
    assert "分配器缓存碎片 [fragmentation]" in out and "置信度" in out
    assert "证据：" in out and "请求的分配" in out
    assert "修复：在进程启动前设置 PYTORCH_ALLOC_CONF=expandable_segments:True" in out
    # Evidence figures carry their byte count in Chinese too (issue 28: "bytes" was left in English).
    assert "字节）" in out and " bytes)" not in out
    # --lang applies to that command only: the caller's language is back afterwards
    assert i18n._("Fragmented allocator cache") == "Fragmented allocator cache"


def test_cli_without_oom_message_says_so_in_chinese(tmp_path, capsys, language_restored):
    path = tmp_path / "train.log"
    path.write_text("epoch 1 loss 0.42\nepoch 2 loss 0.37\n", encoding="utf-8")
    assert main(["--lang", "zh_CN", "oom", "diagnose", str(path)]) == 1
    out = capsys.readouterr().out
    assert "没有找到显存不足消息" in out and str(path) in out


def test_what_the_input_lacks_reads_in_chinese_and_stays_english_in_the_report(language_restored, tmp_path, capsys):
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "23.65 GiB of which 1.20 GiB is free. Of the allocated memory 12.10 GiB is allocated by PyTorch, and 0.50 "
            "GiB is reserved by PyTorch but unallocated.")
    assert any(m.startswith("this process's memory") for m in diagnose_text(text).report.missing)  # ids stay English
    path = tmp_path / "oom.txt"
    path.write_text(text, encoding="utf-8")
    i18n.set_language("zh_CN")
    assert main(["oom", "diagnose", str(path)]) == 0
    missing = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("缺少"))
    assert "本进程的显存" in missing and "this process's memory" not in missing


TRTLLM_ONE_SEQUENCE = (
    "[TensorRT-LLM][ERROR] Assertion failed: The maxTokensInPagedKvCache (2048) must be large enough to process at "
    "least 1 sequence to completion (i.e. must be larger than beam_width (1) * tokensPerBlock (64) * maxBlocksPerSeq "
    "(64))")


def test_token_counts_read_in_chinese_and_the_evidence_column_lines_up(tmp_path, capsys, language_restored):
    # TensorRT-LLM's KV-pool assertion (trtGptModelInflightBatching.cpp): its evidence is counted in tokens; under
    # zh_CN the unit was left in English and the values stood at ragged columns (labels padded by characters,
    # while a CJK character takes two terminal cells).
    path = tmp_path / "trtllm.txt"
    path.write_text(TRTLLM_ONE_SEQUENCE, encoding="utf-8")
    assert main(["--lang", "zh_CN", "oom", "diagnose", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2,048 个 token" in out and " tokens" not in out
    from gpudesk.cli.columns import display_width
    # Labels wider than the 56-cell cap (the one-sequence row) overflow it by design: compare the others.
    rows = [line for line in out.splitlines() if line.endswith("个 token") and line.startswith("     ")
            and "束宽 ×" not in line]
    assert len(rows) == 3
    starts = {display_width(line[:re.search(r"[\d,]+ 个 token$", line).start()]) for line in rows}
    assert len(starts) == 1, rows
    assert main(["--lang", "en", "oom", "diagnose", str(path)]) == 0
    assert "2,048 tokens" in capsys.readouterr().out
