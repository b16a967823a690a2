"""Static-batch generation: Hugging Face Optimum Habana's text-generation example on Intel Gaudi.

Intel's Gaudi LLM throughput tables (``Model Performance Data for Intel Gaudi`` pages) are measured with Optimum
Habana's ``examples/text-generation/run_generation.py`` (https://github.com/huggingface/optimum-habana/tree/main/
examples/text-generation): one static batch of ``--batch_size`` prompts of ``--max_input_tokens`` tokens is
prefilled in one forward pass, then the whole batch decodes ``--max_new_tokens`` steps together (HPU graphs with
``--use_hpu_graphs``, a KV cache preallocated for the batch with ``--reuse_cache``, lengths bucketed with
``--bucket_size``); the printed throughput is batch x new tokens / generation time. There is no scheduler: no
request joins or leaves the batch, so the engine runs exactly the published batch (its requests and its prompt
tokens in one step) and the prompts never share a step with decoding. The host side is the ``generate`` loop of
``transformers`` / ``optimum.habana.transformers.generation``: one Python iteration per token, between the
device's graph launches, with no overlap scheduler; it does no per-request output processing (the tokens stay in
one tensor and are decoded after generation), so it costs the per-step host figure of
:mod:`gpudesk.sizing.serve_host` and nothing per request. It serves no online load (rate or concurrency).
Memory: the cache is sized to the batch, so the engine's KV pool is only checked to hold it, under the default
fraction of :mod:`gpudesk.sizing.serve_engine` (0.9 of the device less the weights, the prefill's activations
and the runtime). The HPU graphs replay like CUDA graphs: the step's kernels cost the graph floor of
:mod:`gpudesk.sizing.serve_rates`.
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_host import STATIC_HOST_ENGINES
from gpudesk.sizing.serve_load import ServeLoad

STATIC_BATCH_ENGINES = STATIC_HOST_ENGINES
STATIC_SOURCE = ("Optimum Habana examples/text-generation/run_generation.py: one static batch (--batch_size, "
                 "--max_input_tokens, --max_new_tokens, --use_hpu_graphs, --reuse_cache) "
                 "(https://github.com/huggingface/optimum-habana/tree/main/examples/text-generation)")


def is_static_batch(engine: str) -> bool:
    """Whether ``engine`` runs one static batch instead of a continuous-batching scheduler."""
    return engine.lower() in STATIC_BATCH_ENGINES


def static_batch_limits(load: ServeLoad) -> tuple[int, int]:
    """(prompt tokens of the one prefill step, requests run at once) of a static batch: the whole published batch.

    Raises:
        SizingError (field ``batch``): the load is not an offline batch (a rate or a concurrency).
    """
    if load.batch is None:
        raise SizingError("batch", _(
            "{engine} runs one static batch and serves no online load; give the batch size instead of a request "
            "rate or a concurrency.").format(engine=load.engine))
    return load.batch * load.input_tokens, load.batch
