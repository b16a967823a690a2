"""ggml's scheduler and allocator, simulated: llama.cpp's compute buffers from the graph of each family."""

from __future__ import annotations

import pytest

from gpudesk.sizing.engines.ggml_alloc import CPU, GPU, DynAllocator, Graph, Tensor, allocate, assign_backends
from gpudesk.sizing.engines.ggml_graph import GraphShape, build_graph

MIB = 2**20
MISTRAL_7B = GraphShape(32, 4096, 32, 8, 128, 14336, 32000)
PYTHIA_2_8B = GraphShape(32, 2560, 32, 32, 80, 10240, 50304, fused_qkv=True, gated=False, layer_norm=True,
                         parallel_residual=True)


def _buffers(shape: GraphShape, n_ctx: int, flash_attn: bool = False, ngl: int = 99, build: int = 4400,
             weights: dict[str, int] | None = None) -> dict[str, int]:
    layers = set(range(max(0, shape.n_layer - ngl), shape.n_layer))
    g = build_graph(shape, 512, n_ctx, flash_attn, {i: GPU for i in layers}, GPU if ngl > shape.n_layer else CPU,
                    True, build, weights or {})
    assign_backends(g, True)
    return allocate(g, {GPU: 128, CPU: 32})


def test_dyn_allocator_takes_the_best_fitting_hole_and_merges_freed_neighbours() -> None:
    a = DynAllocator(128)
    x, y, z = a.alloc(100 * MIB), a.alloc(10 * MIB), a.alloc(50 * MIB)
    a.release(x, 100 * MIB)
    a.release(z, 50 * MIB)  # merges with the top block
    assert a.alloc(8 * MIB) == x  # the hole below the top
    a.release(y, 10 * MIB)
    assert a.free == [[x + 8 * MIB, a.free[0][1]]]  # x's rest, y and the top merged into one block
    assert a.max_size == 160 * MIB


def test_in_place_op_reuses_its_only_parent_but_not_through_a_view() -> None:
    """ggml-alloc reuses a parent it allocated (``is_own``); views are never allocated, so an op on a reshape
    gets memory of its own (why llama.cpp's RoPE on ``reshape(Qcur)`` costs a tensor)."""
    g = Graph()
    a = Tensor("a", "mul_mat", 8 * MIB, (4, (1024, 2048)))
    b = Tensor("b", "add", 8 * MIB, (4, (1024, 2048)), srcs=(a,))
    r = Tensor("r", "reshape", 8 * MIB, (4, (64, 16, 2048)), srcs=(b,), view_src=b)
    c = Tensor("c", "rope", 8 * MIB, (4, (64, 16, 2048)), srcs=(r,))
    g.expand(c)
    assign_backends(g, True)
    assert allocate(g, {GPU: 128, CPU: 32})[GPU] == 16 * MIB


def test_llama_without_flash_attention_peaks_at_the_scores() -> None:
    """fedora-copr/logdetective#106 (Mistral 7B, b4400): CUDA0 compute buffer 164 MiB at n_ctx 2048 and 2144 MiB at
    32768: KQ (n_kv x 512 x 32 x 4 bytes), the mask, and the tensors live around them."""
    assert _buffers(MISTRAL_7B, 2048)[GPU] / MIB == pytest.approx(164.00, abs=0.005)
    assert _buffers(MISTRAL_7B, 32768)[GPU] / MIB == pytest.approx(2144.00, abs=0.005)
    fa = _buffers(MISTRAL_7B, 2048, flash_attn=True)[GPU]
    assert 62.5 + 8 <= fa / MIB < 164  # no scores: the logits of 512 tokens and their input, above what is live


def test_gpt_neox_fused_qkv_and_parallel_residual() -> None:
    """ggml-org/ci 9ca2e677 (Pythia 2.8B on a V100): CUDA0 compute buffer 162.00 MiB, host 9.01 MiB."""
    sizes = _buffers(PYTHIA_2_8B, 2048, build=4164)
    assert sizes[GPU] / MIB == pytest.approx(162.00, abs=0.005)
    assert sizes[CPU] / MIB == pytest.approx(9.01, abs=0.01)


def test_partial_offload_copies_the_host_output_matrix_next_to_the_logits() -> None:
    """ggml-org/ci 0006f5a7 (Pythia 2.8B Q4_0, -ngl 10): 203.99 MiB with and without flash attention: the q6_K
    output matrix (100.74 MiB) copied to the GPU for the logits matmul, the logits (98.25) and their input (5)."""
    output_q6k = 50304 * 2560 // 256 * 210
    for fa in (False, True):
        sizes = _buffers(PYTHIA_2_8B, 2048, flash_attn=fa, ngl=10, build=4343, weights={"output.weight": output_q6k})
        assert sizes[GPU] / MIB == pytest.approx(203.99, abs=0.01)


def test_two_gpu_pipeline_keeps_four_copies_of_each_split_input() -> None:
    """llama.cpp PR 6122 (Command-R v01 Q4_K_M, b2450, 12 + 28 layers on two GPUs, n_ctx 4096, "pipeline
    parallelism enabled (n_copies=4)"): CUDA0 compute buffer 672.01 MiB."""
    from gpudesk.sizing.engines.device import DeviceMemory
    from gpudesk.sizing.engines.fit import engine_fit
    from gpudesk.sizing.engines.validation import fixtures_dir
    from gpudesk.sizing.shapes import spec_from_hf_config

    spec = spec_from_hf_config(fixtures_dir() / "configs" / "command-r-v01.json")
    r = engine_fit("llamacpp", spec, DeviceMemory("RTX 3090 Ti", 24 * 2**30, "CUDA"),
                   ["n_ctx=4096", "n_gpu_layers=99", "tensor_split=12,28"], version="b2450",
                   weight_format="q4_k_m", gpus=2)
    cuda0 = r.extra["buffers"][0]
    assert cuda0["layers"] == 12
    assert cuda0["compute_bytes"] / MIB == pytest.approx(672.01, abs=0.01)
