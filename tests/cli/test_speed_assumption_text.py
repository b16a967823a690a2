"""``gpudesk estimate speed`` prints its assumptions for people (issue 24): a translated label in place of the machine
name, each value with its unit (µs / ms, %, GB/s, TFLOPS, tokens with thousands separators) and no raw e-notation;
``--json`` keeps the machine name, the value and the source, and adds the label and the raw quantities."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

import gpudesk
from gpudesk import i18n
from gpudesk.cli import main
from gpudesk.sizing.speed_common import ASSUMPTION_LABELS

SERVE = ["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "h100-sxm5", "--count", "1", "--engine", "vllm",
         "--concurrency", "16", "--input-tokens", "1000", "--output-tokens", "200"]
TRAIN = ["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "h100-sxm5", "--micro-batch", "1",
         "--global-batch", "256", "--seq", "4096", "--count", "8"]
# A float as Python prints it raw: an exponent, or six and more decimals.
_RAW_FLOAT = re.compile(r"\d[eE][-+]?\d|\d\.\d{6,}")


@pytest.fixture(autouse=True)
def english():
    before = i18n.current_language()
    i18n.set_language("en")
    yield
    i18n.set_language(before)


def _assumption_lines(out: str) -> dict[str, str]:
    """Label -> value of each printed assumption line ("  Label: value  [source]")."""
    block = out.split("assumptions:", 1)[1]
    lines = {}
    for line in block.splitlines():
        if line.startswith("  ") and ": " in line:
            label, rest = line.strip().split(": ", 1)
            lines[label] = rest.split("  [", 1)[0]
    return lines


def test_a_serving_estimate_reads_labels_and_units(capsys):
    assert main(SERVE) == 0
    lines = _assumption_lines(capsys.readouterr().out)
    assert not set(lines) & set(ASSUMPTION_LABELS), "a machine name printed in place of its label"
    assert lines["Host overhead"] == "1 ms per step + 17.6 µs per running request, overlapped with the GPU"
    assert lines["Memory bandwidth efficiency"] == "86.6 % of 3,350 GB/s"
    assert lines["Matmul efficiency"] == "80.3 % of 989 TFLOPS BF16"
    assert lines["Kernel launch floor"] == "3.4 µs x 320 kernels per step"
    assert lines["Engine memory fraction"] == "90 % of the GPU's memory"
    assert lines["Token budget per step"] == "8,192 tokens"
    assert lines["Most running requests"] == "1,024 requests"
    assert lines["Prompt chunks in decode steps"] == "yes"
    assert re.fullmatch(r"\d{3},\d{3} tokens \(\d+\.\d GiB, bf16\)", lines["KV-cache capacity"])
    assert "9.52 ms per request + 17.6 µs per streamed token, of which 749 µs" in lines["API front end"]
    raw = [value for value in lines.values() if _RAW_FLOAT.search(value)]
    assert raw == []


def test_a_training_estimate_reads_labels_and_units(capsys):
    assert main(TRAIN) == 0
    lines = _assumption_lines(capsys.readouterr().out)
    assert not set(lines) & set(ASSUMPTION_LABELS)
    assert lines["Matmul efficiency"] == "80.3 % of the dense BF16 peak (989 TFLOPS)"
    assert lines["Share of MAMF reached in training"] == "66 %"
    assert lines["Attention efficiency"] == "50 % (cudnn) x 66 % in the step = 33 %"
    assert lines["Memory bandwidth efficiency"] == "80 % of 3,350 GB/s"
    assert lines["Link efficiency"] == "80 % of the per-direction link rate"
    assert "450 GB/s inside 8 GPUs" in lines["Links"]
    assert [value for value in lines.values() if _RAW_FLOAT.search(value)] == []


def test_each_engine_setting_cites_its_own_mechanism(capsys):
    assert main(SERVE + ["--json"]) == 0
    sources = {a["name"]: a["source"] for a in json.loads(capsys.readouterr().out)["assumptions"]}
    assert "gpu_memory_utilization" in sources["engine_memory_fraction"]
    assert "max_num_batched_tokens" in sources["token_budget_per_step"]
    assert "max_num_seqs" in sources["max_running_requests"]
    assert "chunked prefill" in sources["mixed_prefill"]
    for name in ("mixed_prefill", "token_budget_per_step", "max_running_requests"):
        assert "gpu_memory_utilization" not in sources[name], name
    assert main(SERVE + ["--engine", "sglang", "--json"]) == 0
    sources = {a["name"]: a["source"] for a in json.loads(capsys.readouterr().out)["assumptions"]}
    assert "mem_fraction_static" in sources["engine_memory_fraction"]
    assert "chunked_prefill_size" in sources["token_budget_per_step"]
    assert "max_running_requests" in sources["max_running_requests"]
    assert "enable_mixed_chunk" in sources["mixed_prefill"]


def test_a_setting_the_user_gave_cites_the_setting(capsys):
    assert main(SERVE + ["--gpu-memory-utilization", "0.8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["assumptions"]
    fraction = next(a for a in out if a["name"] == "engine_memory_fraction")
    assert fraction["source"].startswith("given: ServeLoad.gpu_memory_utilization")
    assert fraction["value"] == "80 % of the GPU's memory" and fraction["quantities"] == {"share": 0.8}


@pytest.mark.parametrize("args", [SERVE, TRAIN])
def test_json_keeps_the_machine_names_and_adds_labels_and_raw_numbers(capsys, args):
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for a in out["assumptions"]:
        assert {"name", "value", "source", "label"} <= set(a) <= {"name", "value", "source", "label", "quantities"}
        assert re.fullmatch(r"[a-z0-9_]+", a["name"]) and a["label"] == i18n.marked(ASSUMPTION_LABELS[a["name"]])
    quantities = {a["name"]: a.get("quantities") for a in out["assumptions"]}
    if "serve" in out:
        assert quantities["host_overhead_s"] == {"step_s": 0.001, "request_s": pytest.approx(1.7578125e-05),
                                                 "overlapped": True}
        assert quantities["hbm_efficiency"]["bandwidth_bytes_per_s"] == 3350e9
        assert quantities["token_budget_per_step"] == {"tokens": 8192}
        assert out["serve"]["kv_capacity_tokens"] == quantities["kv_capacity_tokens"]["tokens"]
    else:
        assert quantities["matmul_efficiency"]["share"] == pytest.approx(0.803)


def test_the_labels_read_in_chinese(capsys):
    assert main(["--lang", "zh_CN", *TRAIN]) == 0
    out = capsys.readouterr().out
    assert "  矩阵乘法效率：BF16 稠密峰值（989 TFLOPS）的 80.3 %" in out
    assert "  链路效率：单向链路速率的 80 %" in out


def _assumption_names_in_the_package() -> set[str]:
    """Every literal name passed to ``Assumption(...)`` in the package."""
    names = set()
    for path in Path(gpudesk.__file__).resolve().parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Assumption"
                    and node.args and isinstance(node.args[0], ast.Constant)):
                names.add(node.args[0].value)
    return names


def test_every_assumption_the_models_state_has_a_label():
    names = _assumption_names_in_the_package()
    assert len(names) > 40  # the scan finds the models' assumptions
    assert names - set(ASSUMPTION_LABELS) == set()
    assert set(ASSUMPTION_LABELS) - names == set(), "a label for an assumption no model states"


def test_the_fused_moe_assumptions_read_as_labels_in_both_languages(capsys):
    """MiniMax-M2 at TP 8 (E 256, N 192 per GPU) ships no tuned block-FP8 fused-MoE config: the default-tile and the
    FP8 expert-quantization assumptions are printed under their labels, never their machine names."""
    args = ["estimate", "speed", "--model", "minimax-m2.7", "--gpu", "h100-sxm5", "--count", "8", "--engine", "vllm",
            "--tp", "8", "--concurrency", "64", "--input-tokens", "1024", "--output-tokens", "1024"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "  Fused-MoE configuration: no tuned fused-MoE configuration ships" in out
    assert "  FP8 quantization kernels in the fused MoE: 124 FP8 quantization kernels per step" in out
    assert main(["--lang", "zh_CN", *args]) == 0
    out = capsys.readouterr().out
    assert "  融合 MoE 配置：" in out and "  融合 MoE 内的 FP8 量化内核：" in out
    assert "fused_moe_default_config" not in out and "expert_quant_kernels" not in out
