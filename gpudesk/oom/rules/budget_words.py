"""A serving engine's memory budget named in the user's own words, with no figure for the other rules to weigh
(``kv_cache_budget``):

* vLLM's ``gpu_memory_utilization`` set to 0.96 or more ("OOM occurs after setting gpu_memory_utilization to 1.0",
  vllm#1298). vLLM sizes its KV cache as total × gpu_memory_utilization − weights − the peak activation memory of one
  profiling run (``vllm/worker/worker.py`` ``determine_num_available_blocks``; V1 ``gpu_worker.py``
  ``determine_available_memory``; https://github.com/vllm-project/vllm), and that profile is approximate: CUDA graphs,
  NCCL buffers, the sampler and fragmentation come after it. A budget of the whole GPU leaves nothing for them, so
  the preallocated KV cache takes memory the run needs (the maintainer on vllm#1298: 0.9 to 0.95 is safe). 0.7.
* Ollama with its context setting (``num_ctx`` / ``OLLAMA_CONTEXT_LENGTH``) named as what brings the failure on.
  Ollama decides how many layers to offload (``num_gpu``) from an estimate of what fits; the KV cache and compute
  buffers grow with the context, and an estimate that leaves them out (or undercounts them) offloads layers the GPU
  cannot hold beside the cache of a large context (ollama#1952: fixed in 0.1.21/0.1.22, which offload fewer layers
  for a large ``num_ctx``; https://github.com/ollama/ollama, ``llm/memory.go`` EstimateGPULayers). 0.6: the figures
  are not in the text.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.i18n import _

# The setting and its value as users and logs write it: "gpu_memory_utilization=1.0", "--gpu-memory-utilization 0.98",
# "setting gpu_memory_utilization to 1.0".
_UTILIZATION = re.compile(r"gpu[_-]memory[_-]utili[sz]ation\W{0,3}(?:(?:to|of|at|=|:)\s{0,3})?(0?\.\d{1,4}|1(?:\.0{1,4})?)"
                          r"(?![\d.])", re.IGNORECASE)
# A share this close to the whole GPU leaves no margin for what the profiling run does not see (module docstring).
_WHOLE_GPU_SHARE = 0.96
_OLLAMA_CONTEXT = re.compile(r"\bnum_ctx\b|\bollama_context_length\b", re.IGNORECASE)
_OLLAMA = re.compile(r"(?<![a-z])ollama(?![a-z])", re.IGNORECASE)
_CONTEXT_WORDS = re.compile(r"\bnum_ctx\b|\bollama_context_length\b|\bcontext (?:window|size|length)s?\b",
                            re.IGNORECASE)


def _whole_gpu_budget(f: Facts) -> Cause | None:
    m = _UTILIZATION.search(f.report.text or "")
    if m is None or float(m.group(1)) < _WHOLE_GPU_SHARE:
        return None
    share = float(m.group(1))
    return Cause(
        id="kv_cache_budget",
        title=_("gpu_memory_utilization leaves no margin beside the KV cache"),
        confidence=0.7,
        evidence=evidence(gpu_memory_utilization_ratio=share),
        explanation=_("vLLM fills gpu_memory_utilization ({share}) of the GPU with the weights, one profiling run's "
                      "activations and a preallocated KV cache. The profile is approximate (CUDA graphs, NCCL buffers "
                      "and the sampler come after it), so a budget of the whole GPU leaves nothing for them.").format(
                          share=share),
        fix=_("Set gpu_memory_utilization to 0.9 (at most 0.95), and lower max_model_len or max_num_seqs if the "
              "KV cache is then too small"),
    )


def _ollama_context(f: Facts) -> Cause | None:
    text = f.report.text or ""
    if f.requested is not None or f.total is not None or _CONTEXT_WORDS.search(text) is None \
            or (_OLLAMA.search(text) is None and _OLLAMA_CONTEXT.search(text) is None):
        return None
    return Cause(
        id="kv_cache_budget",
        title=_("Ollama offloaded more layers than fit beside the KV cache of this context"),
        confidence=0.6,
        evidence=evidence(engine="ollama"),
        explanation=_("Ollama chooses how many layers to put on the GPU from an estimate of what fits; the KV cache "
                      "and compute buffers grow with the context (num_ctx), and an estimate that undercounts them "
                      "offloads layers the GPU cannot hold beside a large context's cache."),
        fix=_("Lower the context (num_ctx or OLLAMA_CONTEXT_LENGTH), or put fewer layers on the GPU (num_gpu); "
              "update Ollama, whose newer estimates count the context's cache"),
        more_fixes=[_("Store the KV cache quantised (OLLAMA_KV_CACHE_TYPE=q8_0 with OLLAMA_FLASH_ATTENTION=1).")],
    )


def check(f: Facts) -> Cause | None:
    return _whole_gpu_budget(f) or _ollama_context(f)
