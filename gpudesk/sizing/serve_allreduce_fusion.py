"""SGLang's fused all-reduce + residual add + RMSNorm kernel (FlashInfer / TensorRT-LLM ``allreduce_fusion``).

SGLang's ``ServerArgs._handle_model_specific_adjustments`` (python/sglang/srt/server_args.py) turns on
``enable_flashinfer_allreduce_fusion`` by default for a list of MoE architectures (the model config's
``architectures[0]``) on single-node tensor-parallel runs without DP attention or an all-to-all MoE backend, on
compute capability 9.x / 10.x (``is_sm90_supported() or is_sm100_supported()``; FlashInfer's ``trtllm_comm``
module builds for majors 9 and 10 only, sgl-project/sglang issue 15650, 2025-12-22, where commit 1ab9b8e0a "Enable
TRT AllReduce Fusion by default" is the version then current). The list, as of that commit and in the stored
server_args.py: ``DeepseekV3ForCausalLM``, ``GptOssForCausalLM``, ``Glm4MoeForCausalLM``, ``Qwen3MoeForCausalLM``
(later ``Glm4MoeLiteForCausalLM``, ``KimiK25ForConditionalGeneration``, ``Qwen3NextForCausalLM`` (PR 22664,
2026-04), ``Qwen3VLMoeForConditionalGeneration`` (PR 28786, 2026-06)). H20 is excluded (flashinfer issue 2204).

With it, each of a layer's two TP all-reduces and the fused add + RMSNorm that follows it run as one kernel
(``allreduce_fusion_kernel_oneshot_lamport``) for steps of up to ``max_token_num`` tokens. sgl-project/sglang PR 7621
(https://github.com/sgl-project/sglang/pull/7621, B200 TP 8 DeepSeek-R1 FP4, torch-profiler trace of a serving
step): 13.5 us -> 8.7 us per all-reduce + norm, with ``max_token_num`` 1024. The in-model trace includes the wait for
the slowest rank, so the fused call costs 8.7 us in all (no separate rank skew), and the RMSNorm kernel it absorbs
leaves the kernel floor.

Version: the SM90 + SM100 list with ``Qwen3MoeForCausalLM`` is taken from v0.5.7 on (the commit issue 15650 cites
was on the Dec 2025 release line); earlier releases enabled it for DeepSeek V3 and GPT-OSS on SM100 only
(PR 12724, 2025-11: "Currently enable_flashinfer_allreduce_fusion is enabled by default for DeepseekV3ForCausalLM
and GptOssForCausalLM"), which is modelled from v0.5.5 on. An unknown version is not charged (no fusion).
"""

from __future__ import annotations

#: Seconds of one fused all-reduce + residual add + RMSNorm in a B200 TP 8 step (PR 7621 trace).
FUSED_ALLREDUCE_S = 8.7e-6
#: Tokens up to which the fused kernel runs (PR 7621: ``max_token_num`` 1024).
FUSED_MAX_TOKENS = 1024
#: RMSNorm kernels per layer the fusion absorbs (one after each of the two all-reduces).
FUSED_NORM_KERNELS_PER_LAYER = 2
FUSION_SOURCE = ("SGLang auto-enabled FlashInfer all-reduce + residual + RMSNorm fusion: server_args.py model-arch list "
                 "(https://github.com/sgl-project/sglang/issues/15650, https://github.com/sgl-project/sglang/pull/12724); "
                 "13.5 -> 8.7 us per call on 8 x B200 (https://github.com/sgl-project/sglang/pull/7621)")

#: Config ``architectures[0]`` values on the auto-enable list, by first SGLang release modelled.
ARCHITECTURES_SINCE: dict[str, tuple[int, int, int]] = {
    "DeepseekV3ForCausalLM": (0, 5, 5),
    "GptOssForCausalLM": (0, 5, 5),
    "Glm4MoeForCausalLM": (0, 5, 7),
    "Qwen3MoeForCausalLM": (0, 5, 7),
}
#: Releases before v0.5.7 enable it on SM100 only.
SM90_SINCE = (0, 5, 7)
#: Hugging Face ``model_type`` -> ``architectures[0]`` for the listed architectures.
MODEL_TYPE_ARCHITECTURE = {"deepseek_v3": "DeepseekV3ForCausalLM", "gpt_oss": "GptOssForCausalLM",
                           "glm4_moe": "Glm4MoeForCausalLM", "qwen3_moe": "Qwen3MoeForCausalLM"}


def fusion_enabled(engine: str, version: tuple[int, int, int] | None, architecture: str | None,
                   compute_capability: str | None, gpu_id: str, tp: int, single_node: bool, dp_attention: int,
                   all_to_all: bool) -> bool:
    """Whether SGLang ``version`` runs the fused all-reduce + RMSNorm by default for ``architecture`` (a config's
    ``architectures[0]``) at ``tp`` on a GPU of ``compute_capability`` (module docstring)."""
    if engine.lower() != "sglang" or version is None or not architecture or tp <= 1 or not single_node:
        return False
    if dp_attention > 1 or all_to_all or gpu_id == "h20":
        return False
    since = ARCHITECTURES_SINCE.get(architecture)
    if since is None or version < since:
        return False
    major = (compute_capability or "").split(".")[0]
    if major == "10":
        return True
    return major == "9" and version >= SM90_SINCE
