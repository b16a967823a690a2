"""vLLM-Ascend's ACL graphs: the releases that replay only piecewise graphs, and those that stop the NPU before each
piece.

Piecewise graphs. vLLM-Ascend captures the model with ACL graphs (``torch.npu.NPUGraph``) from v0.9.0rc1
(``docs/source/user_guide/feature_guide/graph_mode.md``). Up to vLLM 0.10 upstream's default was piecewise graphs
anyway (:mod:`gpudesk.sizing.serve_vllm_piecewise`); from v0.11.0rc0 to v0.20.x the plugin keeps it so whatever
vLLM's default: ``NPUPlatform.check_and_update_config`` (``vllm_ascend/platform.py``) turns vLLM 0.11's
``FULL_AND_PIECEWISE`` into ``PIECEWISE`` ("TODO: Full graph is fully supported later, and the default value will be
set to full graph.", read at the tags v0.11.0rc0, v0.12.0rc1, v0.13.0, v0.15.0rc1 .. v0.20.2rc1 of
https://github.com/vllm-project/vllm-ascend; gone at v0.21.0rc1, where ``FULL_AND_PIECEWISE`` is the default,
PR 9572). A user who passes ``--compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY"}'`` gets full decode
graphs; the serving load does not carry that switch, so these releases are taken at their default. Each step then
issues every layer's attention eagerly between the pieces, at the NPU's eager cost per operator
(:data:`gpudesk.sizing.serve_vllm_ascend.ASCEND_EAGER_KERNEL_S`, measured from the plugin's own eager benchmark).

A stop before each piece. vllm-project/vllm-ascend PR 4233 ("fix hang in async scheduling", main 2025-11-19, first
released in v0.12.0rc1) put ``torch.npu.synchronize()`` before every graph replay in ``ACLGraphWrapper.__call__``
(``vllm_ascend/compilation/acl_graph.py``): the host waits until the NPU has finished all it was given before it
replays the next piece. Under piecewise graphs that is once per layer, so the host can no longer run ahead of the
NPU: the NPU waits, on every layer, for the round trip of the stop and for the host to issue the layer's eager
attention operators. PR 5809 (v0.13.0 branch, 2026-01-12) measured the stop: "when graph mode is piecewise, replay by
synchronize will effect performance, sync almost cost 250us" (:data:`PIECEWISE_SYNC_S`). PR 9025 ("Remove sync for
PIECEWISE", 2026-05-12: "this caused severe performance regressions in PIECEWISE, as reported in #8877 and #8854")
keeps it for ``FULL`` replays only; read at the tags, v0.12.0rc1 to v0.19.1rc1 stop before every piecewise replay
and v0.20.2rc1 does not (:data:`SYNC_RELEASES`). The stop and the eager attention issue add to the step's NPU time on
every layer, prompt steps included.

The eager attention's operator count (speedfix94). Under piecewise graphs a GQA / MHA layer's attention on the NPU
runs ``AscendAttentionBackendImpl.forward`` (``vllm_ascend/attention/attention_v1.py``): ``reshape_and_cache``
(``torch_npu._npu_reshape_and_cache``), then, from v0.13.0, ``forward_fused_infer_attention`` for decode steps too
(``using_paged_attention`` in ``vllm_ascend/attention/utils.py`` returns False unless ``cudagraph_mode`` is
``FULL_DECODE_ONLY``), which calls ``torch_npu.npu_fused_infer_attention_score`` into a fresh tensor and then copies
it into the layer's output buffer (``output[:num_tokens] = attn_output[:num_tokens]``): three operators per layer,
where vLLM's CUDA backend issues two (cache write, attention into ``out``). Read at the tags v0.13.0 (6281c12),
v0.14.0rc1 (52d4acf) and v0.20.2rc1 (367b8e6); v0.12.0rc1 still decodes through ``_npu_paged_attention`` into the
output (``_forward_decode_only``). So on v0.13.0 .. v0.20.x (the forced-piecewise releases that have the FIA decode
path, :data:`FIA_COPY_RELEASES`) each non-MLA layer issues :data:`FIA_OUTPUT_COPY_KERNELS` more eager operator.
"""

from __future__ import annotations

from gpudesk.catalog.records import GPU
from gpudesk.sizing.serve_vllm_ascend import ASCEND_EAGER_KERNEL_S, ASCEND_VENDOR, plugin_release

# plugin releases (major, minor, patch) that turn vLLM's FULL_AND_PIECEWISE into PIECEWISE: [start, end)
FORCED_PIECEWISE_RELEASES = ((0, 11, 0), (0, 21, 0))
# plugin releases that synchronize the NPU stream before every piecewise graph replay: [start, end)
SYNC_RELEASES = ((0, 12, 0), (0, 20, 0))
# plugin releases whose piecewise GQA / MHA attention decodes through npu_fused_infer_attention_score and copies its
# result into the output buffer (module docstring): [start, end), within FORCED_PIECEWISE_RELEASES
FIA_COPY_RELEASES = ((0, 13, 0), (0, 21, 0))
FIA_OUTPUT_COPY_KERNELS = 1  # output[:num_tokens] = attn_output[:num_tokens], one copy operator per layer
PIECEWISE_SYNC_S = 250e-6  # one stop before a piece's replay (vllm-project/vllm-ascend PR 5809)
PIECEWISE_SOURCE = ("vllm-ascend vllm_ascend/platform.py check_and_update_config: FULL_AND_PIECEWISE -> PIECEWISE "
                    "(v0.11.0rc0 to v0.20.2rc1, removed in v0.21.0rc1); eager per-operator cost on the NPU from the "
                    "plugin's v0.7.3 benchmark (issue 776); v0.13.0-v0.20.x decode GQA/MHA through "
                    "npu_fused_infer_attention_score and copy it into the output, a third eager operator per layer "
                    "(vllm_ascend/attention/attention_v1.py) (https://github.com/vllm-project/vllm-ascend)")
SYNC_SOURCE = ("vllm-ascend vllm_ascend/compilation/acl_graph.py ACLGraphWrapper: torch.npu.synchronize() before "
               "every replay (PR 4233, v0.12.0rc1 to v0.19.1rc1; FULL only from PR 9025, v0.20.2rc1); 'sync almost "
               "cost 250us' (PR 5809) (https://github.com/vllm-project/vllm-ascend)")


def _on_ascend_graphs(gpu: GPU, engine: str, version: str | None, cuda_graphs: bool) -> tuple[int, int, int] | None:
    release = plugin_release(version)
    if gpu.vendor != ASCEND_VENDOR or engine.lower() != "vllm" or not cuda_graphs or release is None:
        return None
    return release[:3]


def forces_piecewise(gpu: GPU, engine: str, version: str | None, cuda_graphs: bool) -> bool:
    """Whether vLLM-Ascend ``version`` replays only piecewise ACL graphs on ``gpu`` where vLLM itself would replay
    full decode graphs (module docstring): plugin v0.11.0rc0 to v0.20.x with graphs on."""
    release = _on_ascend_graphs(gpu, engine, version, cuda_graphs)
    return release is not None and FORCED_PIECEWISE_RELEASES[0] <= release < FORCED_PIECEWISE_RELEASES[1]


def syncs_before_pieces(gpu: GPU, engine: str, version: str | None, cuda_graphs: bool) -> bool:
    """Whether vLLM-Ascend ``version`` stops the NPU before every piecewise graph replay on ``gpu`` (module
    docstring): plugin v0.12.0rc1 to v0.19.x with graphs on."""
    release = _on_ascend_graphs(gpu, engine, version, cuda_graphs)
    return release is not None and SYNC_RELEASES[0] <= release < SYNC_RELEASES[1]


def fia_output_copy_kernels(gpu: GPU, engine: str, version: str | None, cuda_graphs: bool, mla: bool) -> int:
    """Extra eager operators per layer of vLLM-Ascend ``version``'s piecewise GQA / MHA attention on ``gpu`` beyond
    vLLM's two (module docstring): :data:`FIA_OUTPUT_COPY_KERNELS` on v0.13.0 .. v0.20.x with graphs on, else 0."""
    release = _on_ascend_graphs(gpu, engine, version, cuda_graphs)
    if mla or release is None or not FIA_COPY_RELEASES[0] <= release < FIA_COPY_RELEASES[1]:
        return 0
    return FIA_OUTPUT_COPY_KERNELS


def npu_attention_launch_s(kernels: int) -> float:
    """Seconds to issue ``kernels`` eager attention operators on an Ascend NPU (:data:`ASCEND_EAGER_KERNEL_S` each)."""
    return max(0, kernels) * ASCEND_EAGER_KERNEL_S


def serial_layer_s(attention_kernels_per_layer: float) -> float:
    """Seconds per layer the NPU waits on the host under the per-piece stop (module docstring): the stop itself and
    the host's issue of the layer's eager attention operators."""
    return PIECEWISE_SYNC_S + attention_kernels_per_layer * ASCEND_EAGER_KERNEL_S
