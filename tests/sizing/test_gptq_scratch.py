"""AutoGPTQ's ExLlama kernels keep scratch buffers for the run (``--gptq-kernel``, ``--max-input-tokens``)."""

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.gptq_scratch import gptq_scratch_bytes, quantised_linear_shapes
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
LLAMA_13B = spec_from_hf_config(CONFIGS / "llama-2-13b.config.json")
MISTRAL_7B = spec_from_hf_config(CONFIGS / "mistral-7b.config.json")


def test_layer_shapes_follow_the_published_config():
    # Mistral-7B: hidden 4096, 32 heads, 8 KV heads of 128, FFN 14336.
    assert quantised_linear_shapes(MISTRAL_7B) == [(4096, 4096), (4096, 1024), (4096, 4096), (4096, 14336),
                                                   (14336, 4096)]


def test_buffers_are_autogptqs_sizes():
    # Llama-2-13B (TheBloke GPTQ, act_order False in optimum's benchmark): temp_dq = 5120 x 13824 fp16.
    assert gptq_scratch_bytes(LLAMA_13B, "exllama") == 5120 * 13824 * 2
    # act-order adds temp_state = max_input_len x max(in, out) fp16.
    assert gptq_scratch_bytes(LLAMA_13B, "exllama-act-order") == 5120 * 13824 * 2 + 2048 * 13824 * 2
    assert gptq_scratch_bytes(LLAMA_13B, "exllama-act-order", 4096) == 5120 * 13824 * 2 + 4096 * 13824 * 2
    # exllamav2: temp_dq_size + temp_fwd_size(2048, 8) of the widest Linear (the MLP's up projection).
    assert gptq_scratch_bytes(LLAMA_13B, "exllamav2") == 5120 * 13824 * 2 + 128 + 13824 * 2048 * 8 * 4 + 128
    assert gptq_scratch_bytes(LLAMA_13B, "none") == 0


def test_bad_inputs_are_refused_by_field():
    with pytest.raises(SizingError) as err:
        gptq_scratch_bytes(LLAMA_13B, "marlin")
    assert err.value.field == "gptq_kernel"
    with pytest.raises(SizingError) as err:
        gptq_scratch_bytes(LLAMA_13B, "exllama-act-order", 0)
    assert err.value.field == "max_input_tokens"
    with pytest.raises(SizingError) as err:
        estimate_memory(LLAMA_13B, MemoryWorkload(mode="inference", precision="fp16", weight_format="fp16",
                                                  gptq_kernel="exllama"))
    assert err.value.field == "gptq_kernel"


def test_estimate_keeps_the_scratch_beside_the_weights(capsys):
    assert case_workload({"method": "inference", "gptq_kernel": "exllamav2"}).gptq_kernel == "exllamav2"
    flags = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-13b.config.json"), "--mode", "inference",
             "--precision", "fp16", "--weight-format", "int4-g128", "--kv-cache-impl", "legacy-tuple",
             "--seq", "1024", "--json"]
    totals = []
    for extra in ([], ["--gptq-kernel", "exllama"]):
        assert main(flags + extra) == 0
        totals.append(json.loads(capsys.readouterr().out)["per_gpu"])
    assert "kernel_scratch" not in totals[0]["breakdown_bytes"]
    assert totals[1]["breakdown_bytes"]["kernel_scratch"] == 5120 * 13824 * 2
    assert totals[1]["allocated_bytes"] - totals[0]["allocated_bytes"] == pytest.approx(5120 * 13824 * 2, abs=2)
