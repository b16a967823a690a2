"""bitsandbytes 4-bit layers computing in fp32 (BitsAndBytesConfig without bnb_4bit_compute_dtype)."""

import pytest

from conftest import FIXTURES
from gpudesk.sizing import spec_from_hf_config
from gpudesk.sizing.bnb_compute import fp32_compute_extra_bytes, widest_linear
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.memory import MemoryWorkload, estimate_memory

MIB = 2**20
GLM4 = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "glm-4-9b.config.json")
LLAMA2 = spec_from_hf_config(FIXTURES / "sizing" / "configs" / "llama-2-7b.config.json")


def _glm4(prompt, fp32):
    # GLM-4 basic_demo/trans_stress_test.py (c0a6d1e): batch 1, prompt of `prompt` tokens, 512 new tokens.
    return estimate_memory(GLM4, MemoryWorkload(
        mode="inference", precision="bf16", weight_format="nf4", kv_cache_impl="legacy-tuple",
        context_tokens=prompt + 512, prompt_tokens=prompt, bnb_fp32_compute=fp32))


def test_widest_linear_is_the_fused_gate_up_of_glm4():
    assert widest_linear(GLM4) == (4096, 2 * 13696)  # dense_h_to_4h
    assert widest_linear(LLAMA2) == (4096, 11008)  # up_proj (gate and up apart)


def test_extra_bytes_fp32_input_output_and_weight():
    assert fp32_compute_extra_bytes(GLM4, "nf4", 32000) == 4 * 32000 * (4096 + 27392) + 4 * 4096 * 27392
    with pytest.raises(SizingError) as err:
        fp32_compute_extra_bytes(GLM4, "int4-g128", 1000)
    assert err.value.field == "bnb_fp32_compute"


def test_glm4_int4_stress_rows_grow_with_the_prompt():
    # README 'Int4' 8251 / 9613 / 16065 MiB at 1000 / 8000 / 32000 input tokens (A100-80GB, nvidia-smi).
    for prompt, measured in ((1000, 8251), (8000, 9613), (32000, 16065)):
        with_fp32 = _glm4(prompt, True).device_bytes / (measured * MIB)
        assert abs(with_fp32 - 1) < 0.1, (prompt, with_fp32)
    assert _glm4(32000, False).device_bytes / (16065 * MIB) < 0.8


def test_refused_outside_inference():
    with pytest.raises(SizingError) as err:
        estimate_memory(GLM4, MemoryWorkload(mode="qlora", bnb_fp32_compute=True))
    assert err.value.field == "bnb_fp32_compute"
