"""LMDeploy's serving defaults, by release and backend (TurboMind, the C++ engine, or the PyTorch engine).

Read in the InternLM/lmdeploy source at each tag (https://github.com/InternLM/lmdeploy):

- Backend: ``lmdeploy serve api_server --backend`` defaults to ``turbomind`` (``lmdeploy/cli/utils.py``
  ``ArgumentHelper.backend``, v0.2.0 to v0.16.0; from v0.6 ``lmdeploy/archs.py`` ``autoget_backend`` falls back to
  ``pytorch`` for an architecture TurboMind does not support, which is not modelled: type the backend).
- KV pool, ``cache_max_entry_count``: TurboMind v0.1.0 to v0.2.1 (``src/turbomind/models/llama/BlockManager.cc``
  ``GetBlockCount``: ``total * ratio / block_size`` from ``cudaMemGetInfo``'s TOTAL; default 0.5 in
  ``lmdeploy/turbomind/deploy/target_model/base.py`` v0.1.0 and ``messages.py`` TurbomindEngineConfig v0.2.0; a
  value of 1 or more is a block count, not modelled here) takes a fraction of the device's total memory; from
  v0.2.2 (``GetBlockCount(block_size, ratio, get_free_size)``: ``free * ratio``, the memory free after the weights)
  a fraction of the FREE memory, default 0.8 (``messages.py`` v0.2.2 to v0.16.0). The PyTorch engine's
  ``PytorchEngineConfig.cache_max_entry_count`` (0.8) is also a share of the memory free after the weights, less a
  runtime reserve of ``max_prefill_token_num x vocab_size x 7`` bytes ("lm_head output(2) + to float(4) + estimated
  misc(1) = 7", ``lmdeploy/pytorch/engine/model_agent.py`` ``__get_runtime_size``, v0.6.0). TurboMind measures the
  free memory before it allocates its own batch buffers (``LlamaBatch::LlamaBatch``: the ``SequenceManager`` gets
  ``get_free_size`` ahead of ``AllocateBuffer`` / ``AllocatePersistantBuffer``, v0.2.6 to v0.10.0), so its
  activations live in the share the fraction leaves.
- Prefill budget: TurboMind before v0.2.5 runs each prompt whole (``LlamaTritonModel.cc``: ``max_context_token_num``
  unset defaults to ``session_len``, v0.2.0); from v0.2.5 ``max_prefill_token_num`` 8192 tokens per iteration,
  longer prompts chunked over iterations (``messages.py`` TurbomindEngineConfig v0.2.5 to v0.16.0). The PyTorch
  engine's ``max_prefill_token_num``: 16384 (v0.2.0 to v0.2.3), 8192 (v0.2.4, v0.2.5), 4096 (v0.2.6 to v0.12.x),
  8192 (v0.13.0 on) (``messages.py`` PytorchEngineConfig).
- ``max_batch_size``: 64 in v0.1.x (``target_model/base.py``), 128 from v0.2.0 to v0.5.x (``messages.py``); from
  v0.6.0 None, resolved by ``lmdeploy/utils.py`` ``get_max_batch_size`` from the device name: A100/A800 256,
  H100/H800 512, else 128 (v0.6.0 to v0.9.x), then A100/A800 384, H100/H800/H200/L20Y 1024, else 128 (v0.10.0 on).
- Scheduling: TurboMind's persistent batch (``src/turbomind/models/llama/LlamaBatch.cc``) admits new requests at
  step boundaries and runs their prompt tokens in the same forward as the running requests' decode tokens (mixed
  steps). The PyTorch engine's ``lmdeploy/pytorch/paging/scheduler.py`` ``Scheduler.schedule(is_prefill)`` builds a
  prefill step or a decode step, never both: prompts run in steps of their own and pause decoding.
- Prompt admission in the PyTorch engine, v0.4.0 to v0.7.1: decode steps run in a loop of ``prefill_interval - 1``
  steps (``PytorchEngineConfig.prefill_interval`` 16, ``lmdeploy/messages.py``) launched as one task
  (``lmdeploy/pytorch/engine/engine.py`` ``_async_loop_background``: ``loop_count = 1 if is_prefill else
  (prefill_interval - 1)``); the engine schedules again, and so prefills waiting requests, only when the loop ends:
  after its last step, once every request in it stopped, or, while requests wait, after step ``idx`` once ``idx >=
  prefill_interval * len(scheduler.running) / max_batches`` (``_check_finish``, "dynamic prefill interval", v0.6.0 to
  v0.7.1; v0.4.0 to v0.5.x end the loop only after its last step or once every request stopped: ``_async_loop``
  runs ``__step(True)`` when requests wait, then ``__step(False)``; from v0.7.2 the loop runs ``prefill_interval``
  steps in ``model_agent.py``, not modelled). A request that
  arrives while the batch is full therefore waits for the rest of a 15-step loop before its prompt step, about 7
  decode steps on average; at a half-full batch the loop ends after about 9.
- CUDA graphs: TurboMind captures none at any tag read (no ``cudaStreamBeginCapture`` / ``cudaGraphLaunch`` under
  ``src/turbomind``, v0.2.0 to v0.16.0); its decode kernels launch one by one from C++. The PyTorch engine replays
  its decode steps as CUDA graphs from v0.6.0 (``PytorchEngineConfig.eager_mode=False``); none before.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.i18n import _
from gpudesk.sizing.engine_version import version_triple
from gpudesk.sizing.errors import SizingError

LMDEPLOY_BACKENDS = ("turbomind", "pytorch")
LMDEPLOY_REPO = "(https://github.com/InternLM/lmdeploy)"
#: The PyTorch engine's decode loop with its dynamic prefill interval (module docstring): releases and the interval.
PYTORCH_DECODE_LOOP_SINCE = (0, 4, 0)
PYTORCH_DYNAMIC_INTERVAL_SINCE = (0, 6, 0)
PYTORCH_DECODE_LOOP_UNTIL = (0, 7, 2)
PYTORCH_PREFILL_INTERVAL = 16
DECODE_LOOP_SOURCE = ("lmdeploy/pytorch/engine/engine.py _async_loop_background (loop_count = prefill_interval - 1) "
                      "(v0.4.0 to v0.7.1) and _check_finish (dynamic prefill interval, v0.6.0 to v0.7.1); "
                      "lmdeploy/messages.py "
                      "PytorchEngineConfig.prefill_interval = 16 " + LMDEPLOY_REPO)
#: First release whose ``cache_max_entry_count`` is a share of the free memory after the weights (module docstring).
FREE_MEMORY_FRACTION_SINCE = (0, 2, 2)
CACHE_FRACTION_OF_TOTAL = 0.5
CACHE_FRACTION_OF_FREE = 0.8
TURBOMIND_CHUNKED_PREFILL_SINCE = (0, 2, 5)
TURBOMIND_PREFILL_TOKENS = 8192
#: (first release, PyTorch engine max_prefill_token_num), newest last.
PYTORCH_PREFILL_TOKENS = (((0, 0, 0), 16384), ((0, 2, 4), 8192), ((0, 2, 6), 4096), ((0, 13, 0), 8192))
#: (first release, {device-name fragment: max_batch_size}, fallback), newest last (``get_max_batch_size``).
MAX_BATCH_SIZE: tuple[tuple[tuple[int, int, int], dict[str, int], int], ...] = (
    ((0, 0, 0), {}, 64),
    ((0, 2, 0), {}, 128),
    ((0, 6, 0), {"a100": 256, "a800": 256, "h100": 512, "h800": 512}, 128),
    ((0, 10, 0), {"a100": 384, "a800": 384, "h100": 1024, "h800": 1024, "l20y": 1024, "h200": 1024}, 128),
)
PYTORCH_CUDA_GRAPHS_SINCE = (0, 6, 0)
MEMORY_SOURCE = ("lmdeploy src/turbomind/models/llama/BlockManager.cc GetBlockCount (total x ratio to v0.2.1, free "
                 "x ratio from v0.2.2); lmdeploy/messages.py cache_max_entry_count (0.5 to v0.2.1, 0.8 from v0.2.2) "
                 + LMDEPLOY_REPO)
BUDGET_SOURCE = ("lmdeploy lmdeploy/messages.py max_prefill_token_num (TurboMind 8192 from v0.2.5, whole prompts "
                 "before: LlamaTritonModel.cc max_context_token_num = session_len; PyTorch engine 16384 / 8192 / "
                 "4096 / 8192 by release) " + LMDEPLOY_REPO)
RUNNING_SOURCE = ("lmdeploy lmdeploy/messages.py max_batch_size (64 in v0.1, 128 to v0.5); lmdeploy/utils.py "
                  "get_max_batch_size by device name from v0.6 " + LMDEPLOY_REPO)
MIXED_SOURCE = {
    "turbomind": "lmdeploy src/turbomind/models/llama/LlamaBatch.cc persistent batch (prompt and decode tokens in "
                 "one forward; new requests join at step boundaries) " + LMDEPLOY_REPO,
    "pytorch": "lmdeploy lmdeploy/pytorch/paging/scheduler.py Scheduler.schedule(is_prefill): a step is a prefill "
               "step or a decode step " + LMDEPLOY_REPO,
}


def _release(version: str | None) -> tuple[int, int, int] | None:
    return version_triple(version) if version else None


def lmdeploy_backend(backend: str | None) -> str:
    """The backend a run uses: ``backend`` when given, else ``turbomind`` (the ``--backend`` default of every
    release; module docstring).

    Raises:
        SizingError: a backend that is not one of :data:`LMDEPLOY_BACKENDS`.
    """
    if backend is None:
        return "turbomind"
    if backend.lower() not in LMDEPLOY_BACKENDS:
        raise SizingError("backend", _("{backend!r} is not an LMDeploy backend; use one of {names}.").format(
            backend=backend, names=", ".join(LMDEPLOY_BACKENDS)))
    return backend.lower()


def fraction_of_free_memory(version: str | None, backend: str | None) -> bool:
    """Whether ``cache_max_entry_count`` is a share of the memory free after the weights (True: the PyTorch engine,
    TurboMind from v0.2.2 and with no version) rather than of the device total (TurboMind to v0.2.1)."""
    release = _release(version)
    return lmdeploy_backend(backend) == "pytorch" or release is None or release >= FREE_MEMORY_FRACTION_SINCE


PYTORCH_RUNTIME_BYTES_PER_TOKEN_VOCAB = 7


def kv_pool_bytes(fraction: float, version: str | None, backend: str | None, total_bytes: float,
                  weights_bytes: float, runtime_bytes: float, prefill_tokens: int, vocab_size: int) -> float:
    """The KV pool of one GPU (module docstring): ``fraction`` (``cache_max_entry_count``) of the device total
    (TurboMind to v0.2.1), of the memory free after the weights and the runtime (TurboMind from v0.2.2), or of that
    less the PyTorch engine's logits reserve (``prefill_tokens`` x ``vocab_size`` x 7 bytes)."""
    if not fraction_of_free_memory(version, backend):
        return fraction * total_bytes
    free = total_bytes - weights_bytes - runtime_bytes
    if lmdeploy_backend(backend) == "pytorch":
        free -= prefill_tokens * vocab_size * PYTORCH_RUNTIME_BYTES_PER_TOKEN_VOCAB
    return fraction * free


def default_cache_max_entry_count(version: str | None, backend: str | None) -> float:
    """``cache_max_entry_count``'s default: 0.5 of the total to v0.2.1, 0.8 of the free memory after."""
    return CACHE_FRACTION_OF_FREE if fraction_of_free_memory(version, backend) else CACHE_FRACTION_OF_TOTAL


def default_prefill_tokens(version: str | None, backend: str | None, context_tokens: int) -> tuple[int, bool]:
    """(prompt tokens one step takes, whether a longer prompt is chunked over steps) by default; ``context_tokens``
    is the session length TurboMind before v0.2.5 takes as its budget (module docstring)."""
    release = _release(version)
    if lmdeploy_backend(backend) == "pytorch":
        tokens = PYTORCH_PREFILL_TOKENS[-1][1]
        if release is not None:
            tokens = [t for since, t in PYTORCH_PREFILL_TOKENS if release >= since][-1]
        return tokens, True
    if release is not None and release < TURBOMIND_CHUNKED_PREFILL_SINCE:
        return max(1, context_tokens), False
    return TURBOMIND_PREFILL_TOKENS, True


def default_max_batch_size(gpu: GPU, version: str | None) -> int:
    """``max_batch_size``'s default on ``gpu`` (module docstring); no version: the newest table."""
    release = _release(version)
    rows = [row for row in MAX_BATCH_SIZE if release is None or release >= row[0]]
    _since, by_name, fallback = rows[-1]
    name = gpu.name.lower()
    return next((size for fragment, size in by_name.items() if fragment in name), fallback)


def mixed_prefill(backend: str | None) -> bool:
    """Whether prompt tokens ride in the decode steps: TurboMind yes, the PyTorch engine no (module docstring)."""
    return lmdeploy_backend(backend) == "turbomind"


def uses_cuda_graphs(version: str | None, backend: str | None) -> bool:
    """Whether the decode steps replay as CUDA graphs: never in TurboMind; the PyTorch engine from v0.6.0."""
    if lmdeploy_backend(backend) == "turbomind":
        return False
    release = _release(version)
    return release is None or release >= PYTORCH_CUDA_GRAPHS_SINCE


def pytorch_prefill_interval(version: str | None, backend: str | None) -> tuple[int, bool]:
    """The admission cycle of LMDeploy's PyTorch engine in steps (one prompt step and a decode loop of
    ``prefill_interval - 1``) and whether the loop ends early by the running share (``_check_finish``), for releases
    v0.4.0 to v0.7.1 (module docstring); else (1, False): no cycle modelled (TurboMind, other releases, no version)."""
    triple = version_triple(version) if version else None
    if lmdeploy_backend(backend) != "pytorch" or triple is None:
        return 1, False
    if not PYTORCH_DECODE_LOOP_SINCE <= triple < PYTORCH_DECODE_LOOP_UNTIL:
        return 1, False
    return PYTORCH_PREFILL_INTERVAL, triple >= PYTORCH_DYNAMIC_INTERVAL_SINCE
