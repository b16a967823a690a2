"""The CPU time to launch a prompt step's kernels where the engine runs that step without CUDA graphs.

Several engines replay CUDA graphs only for decode-only steps, so a step that carries prompt tokens is launched op
by op from Python (eager):

- SGLang: ``CudaGraphRunner.can_run`` takes decode batches up to ``cuda_graph_max_bs`` only; extend (prefill)
  batches run eagerly unless ``--enable-piecewise-cuda-graph`` (``python/sglang/srt/model_executor/
  cuda_graph_runner.py``; sgl-project/sglang PR 10062, Sep 2025, the piecewise graphs: "SGLang's current native
  prefilling can incur kernel launch overhead");
- vLLM V0 (before v0.8): ``vllm/worker/model_runner.py`` captures graphs for decode batches only;
- TensorRT-LLM's PyTorch flow: ``ScheduledRequests.can_run_cuda_graph`` is ``not self.context_requests``
  (``tensorrt_llm/_torch/pyexecutor/scheduler.py``), so any step with a context (prompt) request runs eagerly. Its
  TensorRT-engine flow enqueues a built engine from C++ and is not counted.

An eager launch is asynchronous: the CPU issues the kernels while the GPU runs those already issued, so the step
lasts the longer of the GPU's work and the CPU's time to issue every kernel (Python model code, PyTorch dispatch,
the launch itself), not their sum. Where the GPU's work is short (a short prompt on fast GPUs, a large MoE on a TP
slice) the CPU sets the step, whatever the prompt's length: the time to first token of such an engine is flat in the
prompt length until the prefill's math outgrows it. The published sweep of SGLang serving DeepSeek-R1 on 16 H100
shows that shape (tenstorrent/tt-inference-server issue 356: mean TTFT 179.7 ms at 128 prompt tokens, 190.5 at
2048, 199.7 at 4096, 263.9 at 8192, one request at a time).

The CPU time per kernel is measured: SGLang's log of a one-token prefill of DeepSeek-V3 (TP 8) gives
``forward cost`` 82.6 ms run eagerly and 23.1 ms replayed from a graph (sgl-project/sglang PR 12160, Oct 2025): the
GPU's work is at most the replayed 23.1 ms, so the eager forward's 82.6 ms is the CPU issuing its kernels. The step
model counts :data:`DEEPSEEK_V3_SGLANG_FP8_KERNELS` kernels for that forward (:func:`gpudesk.sizing.serve_rates.
kernels_per_step` with the two quantization kernels of each FP8 routed-expert layer,
:func:`gpudesk.sizing.serve_rates.expert_quant_kernels`): 82.6 ms over them is the CPU time of one counted kernel,
which covers the Python ops around it (views, splits, casts, the router's top-k) that the count leaves out. vLLM's
own model code has a figure of its own: Llama 2 7B at batch 1 ran 100 output tokens in 1.05 s with CUDA graphs and
1.2 s eagerly (vllm-project/vllm PR 1440, the change that brought CUDA graphs to vLLM): an eager step of 12 ms
against at most 10.5 ms of GPU work, i.e. the CPU's launches, over the 320 kernels the model counts for a Llama 2 7B
step: 37.5 us each. The figures apply by the kernels each model's layers launch; the host's CPU speed, which no row
states, moves them. TensorRT-LLM's PyTorch flow has no measured figure: its model code fuses more of a layer into
its own kernels than SGLang's, so SGLang's figure would overstate it, and with it every in-flight step that carries
a context chunk (the MLPerf DeepSeek-R1 Offline and Server throughputs, within 5 % without it, fell 7-13 % with it).
Its prompt steps are counted eager but get no launch bound until a figure is found.

SGLang's decode batches are eager too when they hold more requests than its largest captured graph:
``CudaGraphRunner.can_run`` requires ``cuda_graph_bs <= self.max_bs`` (``python/sglang/srt/model_executor/
cuda_graph_runner.py``), and ``cuda_graph_max_bs`` defaults by the GPU's memory and the TP degree since v0.5.3
(``server_args.py``: 8 below 20 GB; 24 / 80 below 35 GB; 32 / 160 below 60 GB; 256 / 512 below 160 GB; 512 above,
at TP < 4 / TP >= 4; :func:`gpudesk.sizing.serve_engine.sglang_cuda_graph_max_bs`). A decode step of a larger batch
lasts at least the CPU launch time of an eager prompt step. On a 48 GB L40S at TP 1 that cap is 32 (the server_info
of lukaLLM/vLLM_vs_SGLang_benchmarks ``sglang_0128_1000_sharegpt.jsonl`` at commit 4bc6bd5 prints
``cuda_graph_max_bs`` 32 and ``chunked_prefill_size`` 4096), against a running batch of hundreds in that run.

vLLM V0's decode steps are eager too in two cases. ``ModelInputForGPUBuilder._use_captured_graph``
(``vllm/worker/model_runner.py``; read at v0.4.3 1197e02, v0.5.5 09c7792, v0.6.3 2a3f461 and v0.7.3 ba6f019 of the
ROCm/vllm mirror, which carries the upstream tags) replays a graph only when ``max_decode_seq_len <=
max_seq_len_to_capture``, whose default is 8192 (``EngineArgs.max_seq_len_to_capture``, ``max_context_len_to_capture``
before v0.4.3; ``ModelConfig`` cuts it to ``max_model_len``; its docstring: "When a sequence has context length larger
than this, we fall back to eager mode"); and before v0.6.0 only when ``batch_size <= _BATCH_SIZES_TO_CAPTURE[-1]``,
256 (``[1, 2, 4] + [8 * i for i in range(1, 33)]``; the list reaches 8192 at v0.6.0, 32e7db2, which captures up to
``max_num_seqs``). A decode step past either cap lasts at least the CPU launch time of an
eager prompt step. The V1 engine (v0.8 on) keys its graphs on the batch's token count only and is not counted here.
The step model sees the batch's summed context, so it compares the mean context of the decoding requests with the
cap: the longest is at least the mean, so a batch counted eager is eager (fixed-length benchmark runs: mean =
longest).
"""

from __future__ import annotations

from gpudesk.sizing.serve_host import trtllm_backend

PR12160_EAGER_FORWARD_S = 82.6e-3  # SGLang DeepSeek-V3 one-token prefill, eager (PR 12160 log "forward cost")
PR12160_GRAPH_FORWARD_S = 23.1e-3  # the same forward replayed from a CUDA graph
# Kernels the step model counts for that forward: DeepSeek-V3 (61 layers, 58 routed-MoE layers with shared experts,
# MLA) 61 x 11 + 58 x (8 + 3) + 3 x 4 = 1321 (serve_rates.kernels_per_step), plus 2 x 58 FP8 expert-input
# quantizations (serve_rates.expert_quant_kernels).
DEEPSEEK_V3_SGLANG_FP8_KERNELS = 1437
EAGER_LAUNCH_S_PER_KERNEL = PR12160_EAGER_FORWARD_S / DEEPSEEK_V3_SGLANG_FP8_KERNELS
# vLLM: Llama 2 7B at batch 1, 5 prompt and 100 output tokens, 1.05 s with CUDA graphs and 1.2 s eager (vllm-project/
# vllm PR 1440): 12 ms per eager step against at most 10.5 ms of GPU work, so the CPU's launches set it; the model
# counts 32 x (6 + 4) = 320 kernels per Llama step.
PR1440_EAGER_STEP_S = 1.2 / 100
LLAMA_2_7B_KERNELS = 320
VLLM_EAGER_LAUNCH_S_PER_KERNEL = PR1440_EAGER_STEP_S / LLAMA_2_7B_KERNELS
VLLM_V1_SINCE = (0, 8)
SOURCE = ("eager prompt steps: sglang cuda_graph_runner.py CudaGraphRunner.can_run (decode only; PR 10062), "
          "vllm/worker/model_runner.py (V0: decode only), tensorrt_llm/_torch/pyexecutor/scheduler.py "
          "can_run_cuda_graph (no context requests); CPU time per kernel: sgl-project/sglang PR 12160 (DeepSeek-V3 "
          "one-token prefill, 82.6 ms eager vs 23.1 ms graphed), vllm-project/vllm PR 1440 (Llama 2 7B, 1.2 s vs "
          "1.05 s for 100 tokens eager vs graphed); flat TTFT in the prompt length: "
          "tenstorrent/tt-inference-server issue 356")


EAGER_DECODE_SOURCE = ("SGLang decode batches above cuda_graph_max_bs run eagerly: sglang python/sglang/srt/"
                       "model_executor/cuda_graph_runner.py CudaGraphRunner.can_run (cuda_graph_bs <= max_bs); "
                       "server_args.py cuda_graph_max_bs defaults by GPU memory and TP (v0.5.3+, PR 10975); CPU "
                       "time per kernel: sgl-project/sglang PR 12160")


VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE = 8192  # EngineArgs.max_seq_len_to_capture default (V0)
VLLM_V0_OLD_GRAPH_MAX_BATCH = 256  # _BATCH_SIZES_TO_CAPTURE[-1] before v0.6.0
VLLM_V0_WIDE_GRAPHS_SINCE = (0, 6)  # v0.6.0 (32e7db2): capture sizes up to max_num_seqs (<= 8192)
EAGER_LONG_DECODE_SOURCE = ("vLLM V0 decode steps with a sequence longer than max_seq_len_to_capture (default 8192) "
                            "run eagerly: vllm/worker/model_runner.py ModelInputForGPUBuilder._use_captured_graph "
                            "(max_decode_seq_len <= max_seq_len_to_capture), vllm/engine/arg_utils.py EngineArgs "
                            "(max_seq_len_to_capture = 8192), V0 engine; CPU time per kernel: vllm-project/vllm "
                            "PR 1440")


def vllm_v0_graph_max_context(engine: str, version: tuple[int, int] | None, max_model_len: int | None,
                              v0: bool = False) -> int:
    """The longest decoding context vLLM V0 still replays from a CUDA graph (module docstring): the default
    ``max_seq_len_to_capture`` cut to ``max_model_len``; 0 where the cap does not apply (another engine, V1, no
    version) or cannot be reached (a model no longer than the cap). ``v0``: a V0 fallback of a V1-default release
    (:func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`)."""
    if engine.lower() != "vllm" or version is None or (version >= VLLM_V1_SINCE and not v0):
        return 0
    if max_model_len is not None and max_model_len <= VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE:
        return 0
    return VLLM_V0_MAX_SEQ_LEN_TO_CAPTURE


EAGER_V0_BATCH_SOURCE = ("vLLM V0 before v0.6.0 replays decode graphs up to 256 requests: vllm/worker/"
                         "model_runner.py _BATCH_SIZES_TO_CAPTURE and _use_captured_graph (v0.4.3, v0.5.5); up to "
                         "max_num_seqs from v0.6.0; CPU time per kernel: vllm-project/vllm PR 1440")


def vllm_v0_graph_max_batch(engine: str, version: tuple[int, int] | None) -> int:
    """The largest decode batch vLLM V0 before v0.6.0 replays from a CUDA graph, 256 (module docstring); 0 where no
    such cap applies (another engine, v0.6.0 on, no version)."""
    if engine.lower() != "vllm" or version is None or version >= VLLM_V0_WIDE_GRAPHS_SINCE:
        return 0
    return VLLM_V0_OLD_GRAPH_MAX_BATCH


# vLLM replays CUDA graphs for decode steps only since v0.2.6: the v0.2.5 wheel on PyPI has no graph code at all, the
# v0.2.6 wheel brings ``CUDAGraphRunner`` and ``_BATCH_SIZES_TO_CAPTURE`` (``vllm/worker/model_runner.py``) and
# ``enforce_eager`` (``vllm/config.py``), i.e. vllm-project/vllm PR 1440 (Dec 2023). Before it every step of vLLM is
# launched op by op from Python, as with ``--enforce-eager`` later.
VLLM_GRAPHS_SINCE = (0, 2, 6)
VLLM_NO_GRAPHS_SOURCE = ("vLLM before v0.2.6 has no CUDA graphs (vllm-0.2.5 and vllm-0.2.6 wheels on PyPI: "
                         "CUDAGraphRunner first in v0.2.6 vllm/worker/model_runner.py; vllm-project/vllm PR 1440)")


def engine_has_graphs(engine: str, version: tuple[int, int, int] | None) -> bool:
    """Whether ``engine`` at release ``version`` (major, minor, patch; None: current) can replay decode steps from
    CUDA graphs at all: False for vLLM before v0.2.6 (:data:`VLLM_GRAPHS_SINCE`), else True."""
    return not (engine.lower() == "vllm" and version is not None and version < VLLM_GRAPHS_SINCE)


def prompt_steps_run_eager(engine: str, version: tuple[int, int] | None, version_text: str | None = None,
                           backend: str | None = None, v0: bool = False) -> bool:
    """Whether a step with prompt tokens launches its kernels one by one (module docstring): SGLang, vLLM V0
    (``version`` below 0.8) and TensorRT-LLM's PyTorch flow (:func:`gpudesk.sizing.serve_host.trtllm_backend` of
    ``version_text`` and ``backend``). ``v0``: vLLM's V0 fallback of a V1-default release
    (:func:`gpudesk.sizing.serve_vllm_v0.vllm_v0_fallback`)."""
    engine = engine.lower()
    if engine == "sglang":
        return True
    if engine == "vllm":
        return v0 or (version is not None and version < VLLM_V1_SINCE)
    if engine == "trtllm":
        return trtllm_backend(version_text, backend) == "pytorch"
    return False


# Measured CPU seconds per counted kernel of an eager step, by engine (module docstring); an engine not listed has
# no figure and no launch bound.
LAUNCH_S_PER_KERNEL = {"sglang": EAGER_LAUNCH_S_PER_KERNEL, "vllm": VLLM_EAGER_LAUNCH_S_PER_KERNEL}


def launch_s_per_kernel(engine: str) -> float:
    """CPU seconds to issue one counted kernel of an eager step of ``engine`` (:data:`LAUNCH_S_PER_KERNEL`; 0 where
    no figure was measured)."""
    return LAUNCH_S_PER_KERNEL.get(engine.lower(), 0.0)


def eager_launch_s(kernels: int, engine: str) -> float:
    """CPU seconds for ``engine`` to issue ``kernels`` kernels of an eager prompt step (module docstring)."""
    return max(0, kernels) * launch_s_per_kernel(engine)
