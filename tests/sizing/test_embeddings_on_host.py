"""Inference that keeps the input embedding table in host memory (ExLlama's device map)."""

import json

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.planner.requirement import ModelMemory, Requirement
from gpudesk.planner.workload import memory_workload
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L7 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")


def _weights(spec=L7, **kw) -> int:
    base = dict(mode="inference", precision="fp16", weight_format="int4-g128", context_tokens=2048)
    return estimate_memory(spec, MemoryWorkload(**{**base, **kw})).breakdown["weights"]


def test_the_16bit_table_leaves_the_gpu():
    assert _weights() - _weights(embeddings_on_host=True) == 32000 * 4096 * 2


def test_a_tied_table_is_the_lm_head_and_stays():
    tied = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
    object.__setattr__(tied, "tied_embeddings", True)
    assert _weights(tied, embeddings_on_host=True) == _weights(tied)


def test_cli_harness_and_wizard_read_the_same_switch(capsys):
    assert case_workload({"method": "inference", "embeddings_on_host": True}).embeddings_on_host
    flags = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "inference",
             "--precision", "fp16", "--weight-format", "int4-g128", "--seq", "2048", "--json"]
    weights = []
    for extra in ([], ["--embeddings-on-host"]):
        assert main(flags + extra) == 0
        weights.append(json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]["weights"])
    assert weights[0] - weights[1] == 32000 * 4096 * 2
    req = Requirement(model=ModelMemory(embeddings_on_host=True, lora_kernels="fused"))
    w = memory_workload(req)
    assert w.embeddings_on_host and w.lora_kernels == "fused"
