"""``multi_gpu_imbalance`` read from PyTorch's process list: the same launch's ranks all working on one GPU.

Since PyTorch 2.1 the CUDA caching allocator's out-of-memory message lists every process that NVML sees on the
failing device ("GPU 0 has a total capacity of T of which F is free. Process P has M memory in use. ... Including
non-PyTorch memory, this process has N memory in use"; c10/cuda/CUDACachingAllocator.cpp, built from
``nvmlDeviceGetComputeRunningProcesses`` for the device). A launcher (torchrun/torch.distributed.elastic, accelerate,
deepspeed, mp.spawn) starts its ranks one right after the other, so their PIDs lie a few numbers apart; processes of
other users or other jobs, started at other times, do not.

Two readings of such a cluster of neighbouring PIDs on one device:

- each holds a CUDA context's worth (0.3-1.5 GiB): the other ranks touched this GPU before binding their own
  (``torch.cuda.set_device`` after the first CUDA call); ``other_process`` reads those (its ``_siblings``;
  rwth-i6/returnn#1466, NVIDIA/TensorRT-LLM#7818);
- two or more of them hold a workload (at least :data:`WORKLOAD_MIN_BYTES`, above any context): the ranks
  themselves run on this GPU, with their weights and activations, instead of one GPU each: the job's placement,
  not a foreign process (qibin0506/llm_trainer#2: three neighbouring PIDs with 9.89, 35.03 and 23.79 GiB on GPU 0
  beside this rank, the launch run without the distributed backend that sets each rank's device;
  NVIDIA/TensorRT-LLM#6281: rank 1's message naming GPU 0 where rank 0's 19.44 GiB and 3.63 GiB of another
  neighbour sit).

Inside a container NVML may report 0 bytes for every process (no access to host PIDs' accounting); then the memory
the message leaves to the others (total − free − this process's reserve) shared over the cluster says it: at least
:data:`WORKLOAD_MIN_BYTES` each (huggingface/trl#3172: seven neighbouring PIDs, 68 GiB of an 80 GB card beside this
rank's 10.5 GiB).

0.92: above other_process's ceiling (0.9), which stays second with the same PIDs.

Said in words, without a process list (0.7, as multi_gpu_imbalance's other readings in words):

- every rank (process, worker) putting its tensors on the first device: "every rank load checkpoint to `cuda:0`"
  (huggingface/lerobot#4009: safetensors' ``load_file(device="cuda")`` materialises on the current device, which is
  cuda:0 until the rank binds its own), or "all tensor be sent to the cuda:0" beside a launch of two or more
  processes (``torchrun --nproc_per_node=2``; huggingface/sentence-transformers#3245: the model is placed on the
  default device before DDP wraps it). A rank that has not called ``torch.cuda.set_device`` allocates on device 0
  (PyTorch "CUDA semantics": the current device defaults to 0), so every rank's copy lands there;
- the stages or nodes of one job holding unequal memory: "memory imbalance", "uneven across pipeline stages",
  "other nodes' GPU memory remains underutilized" (vllm-project/vllm#12895: the last pipeline stage also holds the
  LM head and final norm, vllm PR #13833; ``VLLM_PP_LAYER_PARTITION`` moves layers off it).
"""

from __future__ import annotations

import re

from gpudesk.i18n import _
from gpudesk.oom.cause import Cause
from gpudesk.oom.report import ProcessMemory
from gpudesk.oom.rules.base import Facts, evidence
from gpudesk.units import GIB as GiB

# PIDs at most this far apart count as started together by one launcher (a launcher forks its ranks in a row;
# a few other processes may start in between).
PID_NEIGHBOUR_GAP = 16
# The largest CUDA context other_process reads as a sibling rank's (its ``_siblings``: 0.3-1.5 GiB each).
CONTEXT_MAX_BYTES = int(1.5 * GiB)
# Memory that is a rank's work: more than that context (sixty-second pass; it was 2 GiB, which left neighbouring ranks
# of 1.5-2 GiB to neither reading, so they fell to a foreign process). A rank of the same launch holding more than a
# context on a GPU that is not its own holds tensors there: sgl-project/sglang#6082, four neighbouring TP ranks of
# 1.87-16.12 GiB on GPU 0, where SGLang's tokenizer-side fast image processor builds pixel_values on the first GPU and
# sends them on to every rank, so GPU 0 holds one copy per rank for a while (an SGLang contributor on sglang#5732;
# --disable-fast-image-processor "Adopt base image processor instead of fast image processor", SGLang's
# docs/advanced_features/server_arguments.md).
WORKLOAD_MIN_BYTES = CONTEXT_MAX_BYTES


# Every rank's (process's, worker's) tensors on the first device, said in words (module docstring).
_ALL_ON_FIRST = re.compile(
    r"\b(?:all|every|each)\b(?P<who>[^.\n]{0,60}?)\b(?:on|to|onto|into)\s+(?:the\s+)?(?:physical\s+)?`?"
    r"(?:cuda:0|gpu[ -]?0|device[ -]?0|gpu:0|first gpu)\b", re.IGNORECASE)
# GPU 0 holding memory for every process though each was given another GPU (fifty-fourth pass): "GPU 0 always
# occupy a lot of memory for each script even if they are assigned with other GPUs" (pytorch/pytorch#9871; soumith:
# call torch.cuda.set_device right after import, or every process creates its context on GPU 0 first).
_FIRST_HOLDS_OTHERS = re.compile(
    r"\b(?:gpu|cuda|device)[ :]?0\b[^.\n]{0,80}?\b(?:each|every|all)\s(?:of\s(?:the\s)?)?(?:scripts?|process(?:es)?|"
    r"workers?|ranks?|jobs?|models?)\b[^.\n]{0,40}?\beven\s(?:if|though|when)\b[^.\n]{0,40}?\b(?:assigned|set|placed|"
    r"put|bound)\b[^.\n]{0,20}?\b(?:other|different|another|their own)\s(?:gpus?|cards?|devices?)\b", re.IGNORECASE)
# Workers of a multi-GPU launch running out while the same work fits one GPU (fifty-fourth pass): "results in the last
# few workers processes crashing with CUDA out-of-memory (OOM) errors, although the same video finishes successfully on
# a single GPU" (numz/ComfyUI-SeedVR2_VideoUpscaler#30: spawned workers initialised CUDA before their
# CUDA_VISIBLE_DEVICES was set, so all of them ran on GPU 0). Spreading work over more GPUs lowers each GPU's share, so
# a per-GPU need above the single-GPU run's means workers share a GPU.
_WORKERS_OOM_ONE_FITS = re.compile(
    r"\b(?:last|later|other|some|several|remaining|extra)\s(?:few\s|of\sthe\s)?(?:workers?|processes|ranks)\b"
    r"(?:\s(?:processes|workers))?[^.\n]{0,80}?(?:out[- ]of[- ]memory|\boom\b)[^.\n]{0,80}?\b(?:although|though|"
    r"even though|while|whereas|but)\b[^.\n]{0,60}?\b(?:on|with)\s(?:a\s)?(?:single|one)\s(?:gpu|card|device)\b",
    re.IGNORECASE)
_RANK_WORDS = re.compile(r"\b(?:ranks?|processes|workers|replicas)\b", re.IGNORECASE)
# A launch line that starts two or more processes (torchrun / torch.distributed.launch, accelerate, deepspeed).
_LAUNCH_RANKS = re.compile(r"(?:--nproc[_-]per[_-]node|--num[_-]processes|--num[_-]gpus)[= ](\d{1,3})\b",
                           re.IGNORECASE)
# The stages or nodes of one job holding unequal memory (module docstring).
_STAGES_UNEVEN = re.compile(
    r"\bmemory imbalance\b"
    r"|\b(?:uneven(?:ly)?|imbalanced?|unbalanced)\b[^.\n]{0,40}?\b(?:pipeline stages|pp stages|stages|ranks|nodes)\b"
    r"|\bother (?:nodes|ranks|stages)\b[^.\n]{0,30}?(?:underutili[sz]ed|available|free|idle|room)",
    re.IGNORECASE)


def _said_all_on_first(text: str) -> str | None:
    held = _FIRST_HOLDS_OTHERS.search(text) or _WORKERS_OOM_ONE_FITS.search(text)
    if held is not None:
        return held.group(0)
    for m in _ALL_ON_FIRST.finditer(text):
        if _RANK_WORDS.search(m.group("who")) is not None:
            return m.group(0)
        if any(int(n.group(1)) >= 2 for n in _LAUNCH_RANKS.finditer(text)):
            return m.group(0)
    return None


def said(f: Facts) -> Cause | None:
    """The ranks on one device, or the stages' memory unequal, said in words (module docstring), or None."""
    text = f.report.text or ""
    words = _said_all_on_first(text)
    if words is not None:
        return Cause(
            id="multi_gpu_imbalance",
            title=_("The job's ranks all put their tensors on GPU 0"),
            confidence=0.7,
            evidence=evidence(described_as=words),
            explanation=_("The text says every rank places its tensors on the first GPU ('{words}'): a rank that has "
                          "not bound its own device allocates on device 0, so GPU 0 holds every rank's copy and runs "
                          "out while the others stay free.").format(words=words),
            fix=_("Bind every rank to its own GPU before any CUDA work (torch.cuda.set_device(local_rank)) and load "
                  "models and checkpoints onto cuda:<local_rank> (or map_location) instead of \"cuda\" or cuda:0"),
        )
    m = _STAGES_UNEVEN.search(text)
    if m is None:
        return None
    return Cause(
        id="multi_gpu_imbalance",
        title=_("The job's stages or nodes hold unequal memory"),
        confidence=0.7,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("The text says the memory is split unequally between the job's stages, ranks or nodes "
                      "('{words}'): the fullest one runs out while the others have room.").format(words=m.group(0)),
        fix=_("Balance the split: give the last pipeline stage fewer layers (vLLM VLLM_PP_LAYER_PARTITION), or "
              "lower gpu_memory_utilization so the fullest stage keeps room for its KV cache and outputs"),
    )


def launch_cluster(processes: list[ProcessMemory]) -> list[ProcessMemory]:
    """The largest group of listed processes whose PIDs follow each other within :data:`PID_NEIGHBOUR_GAP`."""
    procs = sorted((p for p in processes if not p.is_target and not p.given), key=lambda p: p.pid)
    best: list[ProcessMemory] = []
    group: list[ProcessMemory] = []
    for p in procs:
        if group and p.pid - group[-1].pid > PID_NEIGHBOUR_GAP:
            group = []
        group.append(p)
        if len(group) > len(best):
            best = list(group)
    return best if len(best) >= 2 else []


def _working_ranks(f: Facts, cluster: list[ProcessMemory]) -> tuple[int, int] | None:
    """(ranks holding a workload, bytes they hold) for ``cluster``, or None when fewer than two do."""
    sizes = [p.used_bytes for p in cluster if p.used_bytes is not None]
    if len(sizes) != len(cluster):
        return None
    if any(sizes):
        working = [s for s in sizes if s > WORKLOAD_MIN_BYTES]
        return (len(working), sum(working)) if len(working) >= 2 else None
    # Every entry 0 bytes: NVML without per-process accounting (container). Share what this process does not hold.
    dev = f.dev
    own = (dev.process_used_bytes if dev is not None else None) or f.reserved
    if f.total is None or f.free is None or not own:
        return None
    others = f.total - f.free - own
    if others < WORKLOAD_MIN_BYTES * len(cluster):
        return None
    return len(cluster), others


def check(f: Facts) -> Cause | None:
    dev = f.dev
    if dev is None or f.mps or len(dev.other_processes) < 2:
        return None
    cluster = launch_cluster(dev.other_processes)
    if not cluster:
        return None
    working = _working_ranks(f, cluster)
    if working is None:
        return None
    count, held = working
    index = dev.index if dev.index is not None else 0
    return Cause(
        id="multi_gpu_imbalance",
        title=_("The job's ranks all run on one GPU"),
        confidence=0.92,
        evidence=evidence(gpu_index=index, neighbouring_pids=[p.pid for p in cluster], working_ranks=count,
                          ranks_held_bytes=held),
        explanation=_("GPU {index} lists {n} processes with neighbouring PIDs, started together by one launcher, and "
                      "{count} of them hold a workload here ({gib:.1f} GiB in all) beside this process: the job's "
                      "ranks are working on this one GPU instead of one GPU each, so it runs out while the other GPUs "
                      "stay free.").format(index=index, n=len(cluster), count=count, gib=held / GiB),
        fix=_("Give every rank its own GPU: launch with the distributed backend (torchrun / accelerate / deepspeed), "
              "call torch.cuda.set_device(local_rank) before any CUDA work, and load weights and checkpoints onto "
              "cuda:<local_rank> instead of \"cuda\" or cuda:0"),
        more_fixes=[_("Check with nvidia-smi that each GPU shows one of the job's processes; CUDA_VISIBLE_DEVICES "
                      "must list every GPU the launcher should use."),
                    _("In a serving engine whose ranks each have their own GPU, a preprocessing step on the first GPU "
                      "can hold every rank's inputs there (SGLang's fast image processor: "
                      "--disable-fast-image-processor runs it on the CPU).")],
    )
