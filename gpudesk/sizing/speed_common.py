"""What the speed models (training and serving) share: the assumptions they state with their sources.

Every figure a speed estimate rests on (a matmul efficiency, a link efficiency, a framework factor, a pipeline
bubble, an engine's scheduler setting) is reported beside the answer as an :class:`Assumption`, so the CLI's
``--json``, the plan's trace and the sheet can show where a number came from.

An assumption has a stable machine ``name`` (English, kept in ``--json``), a translated human ``label`` (the table
below), its ``value`` as text for people (formatted once, where it is built, by :mod:`gpudesk.units`: durations in
ms / µs, fractions in %, tokens with thousands separators, bandwidth in decimal GB/s), the raw ``quantities`` behind
that text (seconds, fractions, tokens; units in the key names) for ``--json``, and its ``source``.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.i18n import N_, _, marked

#: Quantity -> raw number (or flag, or id) in base units; the unit is in the key (``step_s``, ``share``, ``tokens``).
Quantities = tuple[tuple[str, float | int | bool | str], ...]

#: The human label of every assumption name, translated where it is shown (``Assumption.label``).
ASSUMPTION_LABELS: dict[str, str] = {
    # serving: the engine's budget and scheduler
    "mixed_prefill": N_("Prompt chunks in decode steps"),
    "engine_memory_fraction": N_("Engine memory fraction"),
    "kv_capacity_tokens": N_("KV-cache capacity"),
    "token_budget_per_step": N_("Token budget per step"),
    "max_running_requests": N_("Most running requests"),
    "attention_dp": N_("Data-parallel attention"),
    "scheduler": N_("Scheduler"),
    "steady_state": N_("Steady state"),
    "front_end": N_("API front end"),
    "warmup_request": N_("Benchmark warm-up request"),
    "cached_prompts": N_("Prompts already in the prefix cache"),
    "length_distribution": N_("Request length distribution"),
    "latency_limits": N_("p99 latency limits"),
    "output_lag_steps": N_("Output lag"),
    "vllm_v0_fallback": N_("vLLM V0 fallback"),
    # serving: one step on the GPU
    "host_overhead_s": N_("Host overhead"),
    "hbm_efficiency": N_("Memory bandwidth efficiency"),
    "llamacpp_weights_read": N_("GGUF weights read per token"),
    "llamacpp_kernels": N_("llama.cpp kernels per layer"),
    "llamacpp_single_stream": N_("llama.cpp single sequence"),
    "llamacpp_backend": N_("llama.cpp GPU backend"),
    "fp8_small_m_gemm": N_("FP8 GEMMs at a few tokens"),
    "sglang_allreduce_fusion": N_("All-reduce fused with the norm"),
    "decode_loop": N_("Decode loop before a new prompt"),
    "matmul_efficiency": N_("Matmul efficiency"),
    "kernel_floor_s": N_("Kernel launch floor"),
    "prefill_launch_s": N_("Prefill kernel launches (CPU)"),
    "eager_decode_above": N_("Decode batches above the CUDA-graph cap (CPU)"),
    "eager_long_decode": N_("Decode steps above the CUDA-graph context cap (CPU)"),
    "piecewise_attention_launch_s": N_("Eager attention between piecewise graphs (CPU)"),
    "ascend_piecewise_sync_s": N_("NPU stop before each piecewise graph (vLLM-Ascend)"),
    "mla_attention_flops": N_("Latent-attention FLOPs by form"),
    "gemm_tile_tokens": N_("GEMM tile size"),
    "rocm_mla_weight_dequant": N_("MLA weight cast (ROCm)"),
    "block_fp8_weight_stream": N_("Block-FP8 weight stream"),
    "gemm_size_rate": N_("GEMM rate by size"),
    "library_gemm_s": N_("Vendor-library GEMM overhead"),
    "block_fp8_triton_gemm": N_("Block-FP8 Triton GEMMs"),
    "fused_moe_tile_rows": N_("Fused-MoE tile rows"),
    "fused_moe_k_loop_s": N_("Fused-MoE K loop"),
    "fused_moe_default_config": N_("Fused-MoE configuration"),
    "triton_moe_rate": N_("Triton fused-MoE matmul rate"),
    "marlin_moe_rate": N_("Marlin MoE matmul rate"),
    "marlin_linear_rate": N_("4-bit weight-only matmul rate"),
    "rocm_gptq_reconstruct": N_("GPTQ weights rebuilt to 16-bit"),
    "plain_awq_kernel": N_("Plain AWQ kernels (vLLM, not Marlin)"),
    "expert_quant_kernels": N_("FP8 quantization kernels in the fused MoE"),
    "admit_interval": N_("Admission every n-th step"),
    "hybrid_kv_cache": N_("Hybrid KV cache (sliding-window blocks freed)"),
    "marlin_moe_expert_s": N_("Marlin MoE expert time"),
    "rocm_int4_moe_layer_s": N_("Int4 MoE layer time (ROCm)"),
    "rocm_aiter_moe_layer_s": N_("AITER fused-MoE layer time (ROCm, measured table)"),
    "layer_qk_norm_allreduce": N_("All-reduce of the per-layer q/k norm (attention TP)"),
    "activation_quant_kernels": N_("Activation quantization kernels"),
    "dequant_weights_per_s": N_("Weight dequantization rate"),
    "dequant_overlap": N_("Dequantization overlap"),
    "replicated_mla_projections": N_("Replicated MLA projections"),
    "tp_allreduce": N_("Tensor-parallel all-reduce"),
    "expert_alltoall": N_("Expert-parallel all-to-all across data-parallel ranks"),
    "tp_allreduce_measured": N_("Measured all-reduce times"),
    "tp_allreduce_skew": N_("All-reduce wait for the slowest GPU"),
    "tp_allreduce_network": N_("All-reduce across nodes"),
    "rocm_decode_attention": N_("Decode attention kernel (ROCm)"),
    "pipeline_parallel": N_("Pipeline parallelism"),
    # training
    "in_situ_share_of_mamf": N_("Share of MAMF reached in training"),
    "attention_efficiency": N_("Attention efficiency"),
    "framework": N_("Framework"),
    "link_efficiency": N_("Link efficiency"),
    "links": N_("Links"),
    "mtp_layers": N_("Multi-token prediction layers"),
    "recompute_modules": N_("Recomputed modules"),
    "unfused_attention": N_("Attention without a fused kernel"),
    "alibi_bias_passes": N_("ALiBi bias passes over the attention scores"),
    "pipeline_bubble": N_("Pipeline bubble"),
    "pipeline_last_stage": N_("Pipeline last stage"),
    "pipeline_p2p": N_("Pipeline sends"),
    "ring_attention": N_("Ring attention"),
    "cp_kv_exchange": N_("Context-parallel K/V exchange"),
    "ep_comm_overlap": N_("Expert-parallel communication overlap"),
    "ep_node_dedup": N_("Expert-parallel token deduplication"),
    "moe_permute_fusion": N_("MoE token permutation kernels"),
    "hf_dense_routed_experts": N_("Every routed expert computed (transformers MoE)"),
    "expert_gemm_roofline": N_("Expert GEMM roofline"),
    "expert_gemm_waves": N_("Expert GEMM waves"),
    "expert_grouped_mm_rate": N_("Grouped expert GEMM rate (BF16)"),
    "fp8": N_("FP8 training"),
}


def raw(**values: float | int | bool | str) -> Quantities:
    """The raw quantities of an assumption, in the order given: ``raw(step_s=0.001, request_s=1.76e-05)``."""
    return tuple(values.items())


@dataclass(frozen=True)
class Assumption:
    """One input of a speed estimate: a machine-readable ``name``, its ``value`` as text for people (formatted with
    units), its ``source`` (paper, datasheet, source file or measured table, with a URL where there is one) and the
    raw ``quantities`` behind the value."""

    name: str
    value: str
    source: str
    quantities: Quantities = ()

    @property
    def label(self) -> str:
        """The translated human label of ``name`` (the name itself for one the table lacks)."""
        label = ASSUMPTION_LABELS.get(self.name)
        return marked(label) if label is not None else self.name

    def line(self) -> str:
        """``label: value``, the one way the CLI, the plan's trace and the sheet show an assumption."""
        return _("{label}: {value}").format(label=self.label, value=self.value)

    def to_dict(self) -> dict[str, object]:
        """Plain dict for JSON output: the stable ``name``, ``label``, ``value`` text and ``source``, and the raw
        ``quantities`` (numbers in base units, the unit in each key) where the value has any."""
        out: dict[str, object] = {"name": self.name, "label": self.label, "value": self.value, "source": self.source}
        if self.quantities:
            out["quantities"] = dict(self.quantities)
        return out
