"""Issue 32: real non-NVIDIA out-of-memory messages (tests/fixtures/oom/vendor_cases.jsonl): torch_npu and the
CANN runtime on Ascend, MindSpore, Intel Gaudi, Intel XPU and ROCm, each with its thread's URL and the cause
written down before the doctor was run. First cause counted strictly (oom.accuracy)."""

from __future__ import annotations

import json

import pytest
from oom_support import FIXTURES

from gpudesk.oom import diagnose_text
from gpudesk.oom.accuracy import evaluate, load_cases
from gpudesk.oom.cause import CAUSE_IDS
from gpudesk.oom.signatures import CHECKS

ROWS = [json.loads(line) for line in (FIXTURES / "vendor_cases.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
# Measured: 4 of 21 before issue 32's readers (NPU/XPU messages, MindSpore and Gaudi wordings, the CANN device
# open, the Level Zero 4 GiB limit), 10 of 21 after; 15 of 21 after the mechanism fixes (HCCL buffers outside the
# allocator, Level Zero's per-allocation limit when the memory was free, TensorFlow-on-ROCm's BFC reservation,
# live tensors filling the NPU in a cut message). The floor sits at the measurement.
FLOOR = 15


ROWS_2 = [json.loads(line) for line in (FIXTURES / "vendor_cases_2.jsonl").read_text(encoding="utf-8").splitlines()
          if line.strip()]
# The second batch was labelled and committed before the doctor ran on it: 9 of 13 on that first run (a held-out
# figure); 11 of 13 after two fixes it exposed (a per-process cap in an XPU message is met before Level Zero's
# limit; TensorFlow-on-ROCm's newer HIP_ERROR_OutOfMemory spelling); 12 of 13 once HIP's free-above-total on an
# APU is read as the carve-out it is (gpudesk.oom.parsers.hip_apu, TheRock#4598).
FLOOR_2 = 12

ROWS_3 = [json.loads(line) for line in (FIXTURES / "vendor_cases_3.jsonl").read_text(encoding="utf-8").splitlines()
          if line.strip()]
# Third batch, labelled and committed before the doctor ran on it (held out): 5 of the first 6 (Apple MPS, Intel
# XPU, Ascend NPU) and 0 of the 3 ROCm rows added after them, 5 of 9 in all. Misses: vllm-ascend#1987 and
# amd-strix-halo-vllm-toolboxes#11 (a request of 2-6 % of the device while the live tensors fill it, read as one
# allocation too large: the shared rule's request > total - allocated branch); vllm-rocm#5 (HIP on an APU refused
# 12.95 GiB with 18.55 GiB free, read as a shortage); gpustack#4963 (a 192 GiB request with no capacity in the cut
# message: unparseable).
FLOOR_3 = 5
ISSUE_VENDOR_PLATFORMS = ("npu", "hpu", "xpu", "rocm", "mps")


@pytest.fixture(scope="module")
def vendors():
    return evaluate([c for c in load_cases() if c.case_set == "vendors"])


def test_cases_are_real_labelled_and_not_nvidia():
    assert len(ROWS) >= 20 and len({r["url"] for r in ROWS}) == len(ROWS)
    for row in ROWS:
        assert row["url"].startswith("https://github.com/") and row["message"].strip() and row["context"].strip()
        assert row["expected_cause"] in CAUSE_IDS and row["labelled"] == "before_rules"
        assert row["expected_check"] is None or row["expected_check"] in CHECKS
    assert sum(r["platform"] in ("npu", "hpu", "xpu", "rocm") for r in ROWS) >= 20


def test_second_batch_is_real_labelled_and_scored(capsys):
    assert len(ROWS_2) >= 10 and not {r["url"] for r in ROWS_2} & {r["url"] for r in ROWS}
    for row in ROWS_2:
        assert row["url"].startswith("https://github.com/") and row["expected_cause"] in CAUSE_IDS
        assert row["platform"] in ("npu", "hpu", "xpu", "rocm") and row["labelled"] == "before_rules"
    second = evaluate([c for c in load_cases() if c.case_set == "vendors-2"])
    with capsys.disabled():
        print(f"\nVendor cases, second batch: first cause right in {second.right}/{second.total}")
    assert second.total == len(ROWS_2) and second.right >= FLOOR_2


def test_third_batch_is_real_labelled_and_scored(capsys):
    urls = {r["url"] for r in ROWS} | {r["url"] for r in ROWS_2}
    assert len(ROWS_3) >= 6 and not {r["url"] for r in ROWS_3} & urls
    for row in ROWS_3:
        assert row["url"].startswith("https://github.com/") and row["expected_cause"] in CAUSE_IDS
        assert row["platform"] in ISSUE_VENDOR_PLATFORMS and row["labelled"] == "before_rules"
    third = evaluate([c for c in load_cases() if c.case_set == "vendors-3"])
    with capsys.disabled():
        print(f"\nVendor cases, third batch: first cause right in {third.right}/{third.total}")
    assert third.total == len(ROWS_3) and third.right >= FLOOR_3


def test_issue_32_bar_over_every_non_nvidia_case(capsys):
    """Issue 32's bar: at least 20 real Ascend, AMD, Gaudi, Intel and Apple OOM messages, first cause right on 85 %,
    counted over every case set (engines and platforms included). Measured 59 of 69 (85.5 %) before the third
    batch's ROCm rows, 59 of 72 (81.9 %) with them: the bar is not met on the held-out rows; the floor is the
    measurement."""
    platform = {}
    for name in ("cases.jsonl", "engine_cases.jsonl", "platform_cases.jsonl", "vendor_cases.jsonl",
                 "vendor_cases_2.jsonl", "vendor_cases_3.jsonl"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                platform[row["url"]] = row.get("platform")
    result = evaluate([c for c in load_cases() if platform.get(c.url) in ISSUE_VENDOR_PLATFORMS])
    with capsys.disabled():
        print(f"\nNon-NVIDIA cases (all sets): first cause right in {result.right}/{result.total}")
    assert result.total >= 20 and result.right >= 59


def test_hip_free_above_total_is_an_apu_carve_out():
    row = next(r for r in ROWS_2 if r["url"].endswith("TheRock/issues/4598"))
    d = diagnose_text(row["message"])
    assert d.causes[0].id == "not_capacity" and abs(d.report.parsed["carveout_total_bytes"] - 15.49 * 2**30) < 2**20
    assert any("VRAM carve-out" in n for n in d.report.notes)
    nvidia = row["message"].replace("HIP out of memory", "CUDA out of memory").replace("PYTORCH_CUDA_ALLOC_CONF", "X")
    assert "carveout_total_bytes" not in diagnose_text(nvidia).report.parsed  # discrete GPUs: free > total is garbage


def test_first_cause_accuracy(vendors, capsys):
    with capsys.disabled():
        print(f"\nVendor cases: first cause right in {vendors.right}/{vendors.total} ("
              + ", ".join(f"{f.family} {f.right}/{f.total}" for f in vendors.families()) + ")")
    assert vendors.right >= FLOOR


def test_ascend_fixes_speak_torch_npu():
    row = next(r for r in ROWS if "TouchNet" in r["url"])
    d = diagnose_text(row["message"])
    assert d.report.platform == "npu"
    text = " ".join([c.fix for c in d.causes] + [m for c in d.causes for m in c.more_fixes])
    assert "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True" in text and "torch.npu.empty_cache()" in text
    assert "PYTORCH_CUDA_ALLOC_CONF" not in text and "torch.cuda." not in text


def test_xpu_four_gib_is_the_level_zero_limit():
    row = next(r for r in ROWS if r["url"].endswith("intel-extension-for-pytorch/issues/846"))
    top = diagnose_text(row["message"]).causes[0]
    assert top.id == "not_capacity" and top.evidence["deciding_check"] == "buffer_limit"
    assert "UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1" in top.fix and "clinfo" in top.checks[0]


def test_hccl_buffers_are_outside_the_allocator_with_hccl_fixes():
    row = next(r for r in ROWS if r["url"].endswith("vllm-ascend/issues/3141"))
    d = diagnose_text(row["message"])
    top = d.causes[0]
    assert d.report.kind == "nccl_oom" and d.report.requested_bytes == 2 * 1024**3
    assert top.id == "allocation_outside_allocator" and "HCCL_BUFFSIZE" in top.fix and "HCCL" in top.title


def test_xpu_refusal_with_the_memory_free_is_the_level_zero_limit():
    for issue in ("torch-xpu-ops/issues/3011", "torch-xpu-ops/issues/5046"):
        row = next(r for r in ROWS if r["url"].endswith(issue))
        top = diagnose_text(row["message"]).causes[0]
        assert top.id == "not_capacity" and top.confidence >= 0.95 and "UR_L0_USE_RELAXED_ALLOCATION_LIMITS=1" in top.fix
    # memory full with PyTorch's own tensors: the limit is not what to fix first
    row = next(r for r in ROWS if r["url"].endswith("intel-extension-for-pytorch/issues/851"))
    assert diagnose_text(row["message"]).causes[0].id != "not_capacity"


def test_rocm_tensorflow_pool_reservation_reads_as_preallocation():
    row = next(r for r in ROWS if r["url"].endswith("hiptensorflow/issues/62"))
    d = diagnose_text(row["message"])
    assert d.report.kind == "cuda_driver_oom" and d.report.requested_bytes == 8 * 1024**3
    assert d.causes[0].id == "preallocation"


def test_cut_message_with_live_tensors_filling_the_npu():
    row = next(r for r in ROWS if r["url"].endswith("vllm-omni/issues/1199"))
    top = diagnose_text(row["message"]).causes[0]
    assert top.id == "genuine_shortage" and top.evidence["headroom_upper_bound_bytes"] < 0.03 * top.evidence["total_capacity_bytes"]
