"""GGML types, llama.cpp file-type mixes and real .gguf files written with the gguf package's writer."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers.gguf_files import write_gguf

from gpudesk.catalog import open_catalog
from gpudesk.sizing import ConfigFileError, SizingError, spec_from_catalog
from gpudesk.sizing.dtypes import weight_bits_per_param
from gpudesk.sizing.engines.ggml_mix import gguf_tensors, gguf_weight_bytes
from gpudesk.sizing.engines.ggml_types import (
    file_type_bits_per_weight, ggml_block, ggml_row_bytes, kv_cache_type_bytes)
from gpudesk.sizing.engines.gguf_file import read_gguf
from gpudesk.sizing.memory_inference import weight_bytes

GIB = 1024**3


@pytest.fixture(scope="module")
def llama3_8b():
    return spec_from_catalog(open_catalog().model("llama-3-8b"))


def test_block_sizes_are_ggml_common_h() -> None:
    assert ggml_block("q4_K") == (256, 144)
    assert ggml_block("Q8_0") == (32, 34)
    assert ggml_block("iq4_xs") == (256, 136)
    assert ggml_row_bytes("q4_0", 4096) == 4096 // 32 * 18
    assert kv_cache_type_bytes("q8_0") == pytest.approx(34 / 32)
    assert kv_cache_type_bytes("q4_0") == pytest.approx(18 / 32)
    with pytest.raises(SizingError, match="llama.cpp accepts"):
        kv_cache_type_bytes("fp8")


def test_file_type_bits_follow_quantize_table() -> None:
    # quantize.cpp: Q4_K_M 4.58 GiB at Llama-3-8B (8.03 B params) -> 4.90 bpw; IQ4_XS given as 4.25 bpw.
    assert file_type_bits_per_weight("Q4_K_M") == pytest.approx(4.90, abs=0.01)
    assert file_type_bits_per_weight("q4_k") == file_type_bits_per_weight("q4_k_m")
    assert file_type_bits_per_weight("iq4_xs") == 4.25
    assert weight_bits_per_param("q5_k_s") == pytest.approx(5.57, abs=0.01)
    with pytest.raises(SizingError, match="q4_k_m"):
        weight_bits_per_param("q4_k_x")


def test_estimate_memory_accepts_gguf_quant_names(llama3_8b) -> None:
    assert weight_bytes(llama3_8b, "q4_k_m") / GIB == pytest.approx(4.58, rel=0.002)
    assert weight_bytes(llama3_8b, "q8_0") / GIB == pytest.approx(7.96, rel=0.002)


@pytest.mark.parametrize(("ftype", "gib"), [("q4_k_m", 4.58), ("q4_k_s", 4.37), ("q5_k_m", 5.33), ("q6_k", 6.14),
                                            ("q8_0", 7.96), ("q4_0", 4.34), ("q3_k_m", 3.74), ("q2_k", 2.96)])
def test_per_tensor_mix_matches_quantize_sizes(llama3_8b, ftype: str, gib: float) -> None:
    assert gguf_weight_bytes(llama3_8b, ftype) / GIB == pytest.approx(gib, rel=0.01)


def test_q4_k_m_mix_has_llama_cpp_tensor_counts(llama3_8b) -> None:
    # llama.cpp loading Meta-Llama-3-8B Q4_K_M prints: type f32 65, q4_K 193, q6_K 33 tensors.
    counts: dict[str, int] = {}
    for t in gguf_tensors(llama3_8b, "q4_k_m"):
        counts[t.ggml_type] = counts.get(t.ggml_type, 0) + 1
    assert counts == {"f32": 65, "q4_K": 193, "q6_K": 33}


def test_read_gguf_sizes_every_tensor_by_its_type(tmp_path: Path) -> None:
    m = read_gguf(write_gguf(tmp_path / "tiny.gguf", qtype="Q4_K"))
    assert (m.architecture, m.layers, m.embedding_length, m.head_count, m.head_count_kv) == ("llama", 2, 256, 4, (2, 2))
    assert m.context_length == 2048 and m.vocab_size == 64 and m.rope["freq_base"] == pytest.approx(500000.0)
    assert m.type_counts() == {"q4_K": 16, "f32": 3}
    q4k_values = sum(t.values for t in m.tensors if t.ggml_type == "q4_K")
    assert m.weight_bytes == q4k_values // 256 * 144 + 3 * 256 * 4
    spec = m.to_spec()
    assert spec.kv_heads_resolved == 2 and spec.head_dim_resolved == 64 and not spec.tied_embeddings


def test_read_gguf_refuses_a_file_that_is_not_gguf(tmp_path: Path) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a gguf file at all")
    with pytest.raises(ConfigFileError, match="GGUF"):
        read_gguf(bad)
    with pytest.raises(ConfigFileError):
        read_gguf(tmp_path / "missing.gguf")


def test_70b_class_attn_v_gets_q5_k() -> None:
    # Llama 3.3 70B Q3_K_M as llama.cpp loads it (ollama#10553): q3_K 321, q4_K 155, q5_K 85, q6_K 1 (f32 162 with
    # rope_freqs, which gpudesk does not list), 31.91 GiB.
    spec = spec_from_catalog(open_catalog().model("llama-3.3-70b"))
    counts: dict[str, int] = {}
    for t in gguf_tensors(spec, "q3_k_m"):
        counts[t.ggml_type] = counts.get(t.ggml_type, 0) + 1
    assert {k: v for k, v in counts.items() if k != "f32"} == {"q3_K": 321, "q4_K": 155, "q5_K": 85, "q6_K": 1}
    assert gguf_weight_bytes(spec, "q3_k_m") / GIB == pytest.approx(31.91, rel=0.002)


def test_ollama_sizes_deepseek_latent_attention_per_head_like_its_library_files() -> None:
    """ollama/ollama#8447: deepseek-r1:671b at num_ctx 2048 -> memory.required.kv 9.5 GiB (llama.cpp: 9760 MiB)."""
    from gpudesk.sizing.engines.ggml_kv import kv_row_widths
    from gpudesk.sizing.engines.ollama import SETTINGS, ollama_estimate
    from gpudesk.sizing.engines.common import settings_with_defaults

    spec = spec_from_catalog(open_catalog().model("deepseek-r1"))
    assert kv_row_widths(spec, "per_head") == (192, 128, 128)
    assert kv_row_widths(spec, "latent") == (576, 512, 1)
    est = ollama_estimate(spec, gguf_tensors(spec, "q4_k_m"), [24 * 2**30],
                          settings_with_defaults(SETTINGS, {"num_ctx": 2048}))
    assert est.kv_bytes == 61 * 2048 * (192 + 128) * 128 * 2 == 9760 * 2**20
    llama = spec_from_catalog(open_catalog().model("llama-3-8b"))
    assert kv_row_widths(llama) == (128, 128, 8)


def test_ollama_places_layers_from_the_first_block_and_logs_blocks_plus_kv_as_weights_total() -> None:
    """llm/memory.go: layers go on from blk.0 and a GPU takes none after its first miss, so DeepSeek-R1's three
    small dense layers land before its MoE ones (ollama/ollama#8667: layers.offload 3 on a 6.9 GiB GPU);
    memory.weights.total sums each block and its KV share, without the output layer or the embedding (releases
    before 0.6.1; the issue's 0.5.7)."""
    from gpudesk.sizing.engines.common import settings_with_defaults
    from gpudesk.sizing.engines.ollama import SETTINGS, ollama_estimate

    r1 = spec_from_catalog(open_catalog().model("deepseek-r1"))
    tensors = gguf_tensors(r1, "q4_k_m")
    s = settings_with_defaults(SETTINGS, {"num_ctx": 2048})
    est = ollama_estimate(r1, tensors, [int(6.9 * GIB)], s, version="0.5.7")
    dense = r1.layers - r1.moe_layers
    assert dense == 3 and est.layers_offload == dense
    llama = spec_from_catalog(open_catalog().model("llama-3.2-3b"))
    t = gguf_tensors(llama, "q4_k_m")
    est = ollama_estimate(llama, t, [80 * GIB], settings_with_defaults(SETTINGS, {"num_ctx": 2048}), version="0.5.1")
    blocks = sum(x.bytes for x in t if x.layer is not None)
    outside = sum(x.bytes for x in t if x.layer is None)
    assert outside > 0.25 * GIB  # the tied token embedding, counted in memory.weights.nonrepeating only
    assert est.weights_total == blocks + est.kv_bytes
    # From 0.6.1 the total is the blocks and the output layer (the tied embedding), without the KV.
    new = ollama_estimate(llama, t, [80 * GIB], settings_with_defaults(SETTINGS, {"num_ctx": 2048}), version="0.9.6")
    assert new.weights_total == blocks + outside


def test_split_expert_files_keep_ffn_down_at_the_base_type() -> None:
    """TheBloke's Mixtral-8x7B-Instruct Q4_K_M (December 2023, one tensor per expert) is 26,441,533,376 bytes
    (ggml-org/llama.cpp#4406) and lists blk.31.ffn_down.5.weight as q4_K (abetlen/llama-cpp-python#1014); the
    merged-expert layout of later files gives the last layers' ffn_down q6_K."""
    spec = spec_from_catalog(open_catalog().model("mixtral-8x7b"))
    old = {t.name: t for t in gguf_tensors(spec, "q4_k_m", split_experts=True)}
    new = {t.name: t for t in gguf_tensors(spec, "q4_k_m")}
    assert old["blk.31.ffn_down_exps.weight"].ggml_type == "q4_K"
    assert new["blk.31.ffn_down_exps.weight"].ggml_type == "q6_K"
    assert sum(t.bytes for t in old.values()) == pytest.approx(26_441_533_376, rel=0.003)
    assert sum(t.bytes for t in new.values()) > 1.05 * 26_441_533_376


def test_fused_qkv_models_get_one_attn_qkv_tensor_with_its_own_rule() -> None:
    """GPT-NeoX stores attn_qkv; Q4_K_M gives it q5_K (llama-quant.cpp). llama.cpp's CI printed 'model size =
    1.66 GiB' for Pythia-2.8B Q4_K_M (ggml-org/ci, build 4164)."""
    from gpudesk.sizing.shapes import spec_from_hf_config

    spec = spec_from_hf_config(Path(__file__).parents[2] / "fixtures" / "engines" / "configs" / "pythia-2.8b.json")
    assert spec.fused_qkv
    tensors = gguf_tensors(spec, "q4_k_m")
    qkv = [t for t in tensors if ".attn_qkv." in t.name]
    assert len(qkv) == 32 and {t.ggml_type for t in qkv} == {"q5_K"}
    assert not any(".attn_v." in t.name for t in tensors)
    assert sum(t.bytes for t in tensors) / GIB == pytest.approx(1.66, rel=0.01)
    assert spec_from_catalog(open_catalog().model("phi-4")).fused_qkv
    assert not spec_from_catalog(open_catalog().model("llama-3-8b")).fused_qkv
