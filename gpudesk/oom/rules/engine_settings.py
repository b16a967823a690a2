"""A serving engine's own setting named beside a figureless out-of-memory (issue 28, twenty-third pass).

* LMDeploy's PyTorch engine captures CUDA graphs by default (``PytorchEngineConfig.eager_mode=False``): the CUDA graph
  runner captures one graph per batch size up to the engine's ``max_batch_size`` (``lmdeploy/pytorch/backends/cuda/
  graph_runner.py``, https://github.com/InternLM/lmdeploy), and each keeps its static input/output buffers in the
  graphs' private pool. Raising ``max_batch_size`` raises what capture holds before any request arrives, which a
  dynamic batch of real traffic never frees (InternLM/lmdeploy#2603: 30 runs and 256 runs out of memory on an A100;
  the maintainer: the captured sizes follow max_batch_size, try ``eager_mode=True``). Read when the text names
  LMDeploy, its ``max_batch_size`` and an out-of-memory with no figure: 0.55, above a figureless shortage (0.45).
* TGI sizes its KV-cache token budget at warm-up from the memory free after a forward pass
  (``server/text_generation_server/models/flash_causal_lm.py``, ``warmup``: the blocks take
  ``free_memory * cuda_memory_fraction``; the router logs "Setting max batch total tokens to N"). bitsandbytes'
  4-bit and 8-bit layers allocate their dequantisation buffers per call, outside what warm-up measured, so under load
  they find the budget took the memory (huggingface/text-generation-inference#890: a 70B nf4 model on one 80 GB A100,
  max batch total about 130k; the maintainer: torch takes pretty much everything during warm-up and leaves no room for
  bnb internals, use ``--cuda-memory-fraction 0.9``). Read when the text names TGI's budget (the engine) and
  bitsandbytes quantisation with no figure: 0.6.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.oom.rules.budget_words import OOM_SAID
from gpudesk.i18n import _

# (Bounded by Latin letters and digits only: CJK text around them is a word character to \b.)
_LMDEPLOY = re.compile(r"(?<![A-Za-z0-9])lmdeploy(?![A-Za-z0-9])", re.IGNORECASE)
_MAX_BATCH = re.compile(r"(?<![A-Za-z0-9_])max[_-]batch[_-]size(?![A-Za-z0-9_])", re.IGNORECASE)
# bitsandbytes quantisation in TGI's and transformers' words (--quantize bitsandbytes / bitsandbytes-nf4 /
# bitsandbytes-fp4, load_in_4bit / load_in_8bit, "nf4-quantized").
_BNB = re.compile(r"\bbitsandbytes\b|\bbnb\b|(?<![a-z0-9])nf4(?![a-z0-9])|\bload_in_(?:4|8)bit\b", re.IGNORECASE)


def check(f: Facts) -> Cause | None:
    r = f.report
    text = r.text or ""
    if f.requested is not None or f.total is not None or r.signature is not None:
        return None
    if _LMDEPLOY.search(text) and _MAX_BATCH.search(text) and OOM_SAID.search(text):
        return _lmdeploy_capture()
    if r.engine == "tgi" and _BNB.search(text) and (OOM_SAID.search(text) or r.kind != "unknown"):
        return _tgi_bnb_headroom()
    return None


def _lmdeploy_capture() -> Cause:
    return Cause(
        id="cuda_graph_pools",
        title=_("LMDeploy's captured CUDA graphs grow with max_batch_size"),
        confidence=0.55,
        evidence=evidence(engine="lmdeploy", setting="max_batch_size"),
        explanation=_("LMDeploy's PyTorch engine captures a CUDA graph for each batch size up to max_batch_size, and "
                      "each keeps its own static buffers: a larger max_batch_size holds more memory before any "
                      "request arrives, whatever the traffic."),
        fix=_("Set eager_mode=True (PytorchEngineConfig) to capture no graphs, or keep max_batch_size near the "
              "batches you serve"),
        more_fixes=[_("With the TurboMind engine max_batch_size sizes its per-batch buffers instead: lower it there "
                      "too.")],
    )


def _tgi_bnb_headroom() -> Cause:
    return Cause(
        id="kv_cache_budget",
        title=_("TGI's token budget took the memory bitsandbytes needs while serving"),
        confidence=0.6,
        evidence=evidence(engine="tgi", check_command="--cuda-memory-fraction 0.9"),
        explanation=_("TGI sizes its KV-cache token budget (max batch total tokens) at warm-up from the memory free "
                      "then; bitsandbytes' quantised layers allocate their buffers per call, outside that "
                      "measurement, so under load they find the budget took the memory."),
        fix=_("Leave headroom: --cuda-memory-fraction 0.9 (or lower), or a smaller --max-batch-total-tokens"),
        more_fixes=[_("A pre-quantised format that TGI's kernels read directly (AWQ, GPTQ) needs no such buffers.")],
    )
