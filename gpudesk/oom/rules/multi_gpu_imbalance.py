"""``multi_gpu_imbalance``: one GPU of a multi-GPU job holds much more than the others (fairseq#2442).

Needs figures of two or more GPUs (probe, NVML evidence, or a log with several ranks' messages): fires when
the busiest GPU's allocated (else NVML process) memory is >= 1.3 × the least busy one's and >= 1 GiB more;
0.45 + 0.2 × (ratio − 1), max 0.85. A single-GPU text cannot show it, except through PyTorch's own warning:
``nn.DataParallel`` compares the devices it is given (``torch/nn/parallel/data_parallel.py``, ``_check_balance``)
and warns "There is an imbalance between your GPUs. You may want to exclude GPU A which has less than 75% of the
memory or cores of GPU B"; DataParallel splits the batch evenly, so the smaller GPU runs out first. With that warning
in the same paste as an out-of-memory failure → 0.75, the fix: leave the smaller GPU out.
"""

from __future__ import annotations

import re

from gpudesk.oom.cause import Cause
from gpudesk.oom.report import DeviceMemory
from gpudesk.oom.rules import ranks_on_one_gpu
from gpudesk.oom.rules.base import Facts, clamp, evidence
from gpudesk.units import GIB as GiB
from gpudesk.i18n import _


# The probe's test of an uneven placement (module docstring): the busiest GPU holds at least this many times the least
# busy one's memory, and at least this many bytes more.
IMBALANCE_RATIO = 1.3
IMBALANCE_MIN_BYTES = GiB


def uneven(busiest_bytes: float, least_bytes: float) -> bool:
    """The busiest GPU's memory against the least busy one's passes the probe's test (``IMBALANCE_RATIO`` and
    ``IMBALANCE_MIN_BYTES``); read by ``check``, ``_used_of_total`` and :mod:`gpudesk.oom.rules.placement_figures`."""
    return (least_bytes > 0 and busiest_bytes >= IMBALANCE_RATIO * least_bytes
            and busiest_bytes - least_bytes >= IMBALANCE_MIN_BYTES)


def _load(dev: DeviceMemory) -> int | None:
    return dev.allocated_bytes if dev.allocated_bytes is not None else dev.process_used_bytes


_DP_WARNING = re.compile(r"imbalance between your GPUs\.?\s+You may want to exclude GPU\s+(\d{1,3})\s+which\s+has less "
                         r"than 75%\s+of the\s+memory or cores of GPU\s+(\d{1,3})", re.IGNORECASE)


def _dataparallel_warning(f: Facts) -> Cause | None:
    m = _DP_WARNING.search(f.report.text or "")
    if m is None:
        return None
    weak, strong = int(m.group(1)), int(m.group(2))
    return Cause(
        id="multi_gpu_imbalance",
        title=_("DataParallel splits the batch evenly over unequal GPUs"),
        confidence=0.75,
        evidence=evidence(smaller_gpu_index=weak, larger_gpu_index=strong),
        explanation=_("PyTorch warned that GPU {weak} has less than 75 % of the memory or cores of GPU {strong}. "
                      "DataParallel gives every GPU the same share of the batch, so the smaller one runs out "
                      "first.").format(weak=weak, strong=strong),
        fix=_("Leave GPU {weak} out: CUDA_VISIBLE_DEVICES or DataParallel(device_ids=[...]) without it").format(
            weak=weak),
        more_fixes=[_("Use DistributedDataParallel with a per-GPU batch sized for each card.")],
    )


# The imbalance said in words: memory "uneven/imbalanced" across GPUs, or the first card(s) full while the others
# are almost empty. In Chinese: 显存配比不均衡 (the memory split is unbalanced), 前两张卡跑满，后两张卡几乎无占用 (the
# first two cards run full, the last two almost unused; modelscope/ms-swift#1376), 0卡总是显存溢出，其余卡显存占用极少
# (card 0 always overflows, the other cards hold very little; InternLM/lmdeploy#2145), 显存不太均匀，0号卡特别高 (memory
# not quite even, card 0 especially high; InternLM/lmdeploy#1651). An automatic device map
# (accelerate's infer_auto_device_map, device_map="auto") fills the cards in order, leaving the first one no room
# for the activations and outputs that run on it (accelerate docs, "Big Model Inference": max_memory,
# "balanced_low_0").
_SAID_UNEVEN = re.compile(
    r"\b(?:uneven(?:ly)?|imbalanced?|unbalanced)\b[^.\n]{0,40}?\b(?:gpus|cards|devices|across (?:the )?gpus)\b"
    r"|\bother (?:gpus?|cards?|devices?)\b[^.\n]{0,30}?\b(?:almost |nearly |mostly |are |stay |remain )*"
    r"(?:empty|idle|unused|free)\b"
    r"|(?:显存|负载|分配|配比)[^，,。\n]{0,6}?(?:不太|不够|很不|不)(?:均衡|均匀|平衡)"
    # Card 0 named as the one far above the rest: "0号卡特别高" (card 0 especially high, InternLM/lmdeploy#1651).
    r"|(?<![\d.])0\s?号\s?(?:卡|gpu|显卡)[^，,。\n]{0,6}?(?:特别|非常|格外|明显|很|更)(?:高|多|大)"
    r"|(?:其余|其他|别的|后(?:面)?[两二三四五六七]?张|另外)[^，,。\n]{0,4}?(?:卡|gpu|显卡)[^，,。\n]{0,6}?"
    r"(?:几乎|基本)?(?:无占用|没(?:有)?占用|占用(?:极少|很少|很低)|空闲|没用上|不占|不动)"
    # The second card left unused: "第二张卡并没使用" (the second card was not used, THUDM/CogVLM#109).
    r"|第二(?:张|个|块)\s?(?:卡|gpu|显卡)[^，,。\n]{0,6}?(?:并)?(?:没|未)(?:有)?(?:被)?(?:使用|用上|用到|占用)"
    # The first card compared with the rest: "the code seems to use much more memory in the first gpu than others"
    # (openai/train-procgen#5: every MPI rank's context landed on the first visible GPU).
    r"|\bmore (?:gpu |video )?(?:memory|vram)\b[^.\n]{0,12}?\b(?:on|in) (?:the )?(?:first|1st|0th) (?:gpu|card|device)s?\b"
    r"[^.\n]{0,12}?\bthan (?:the )?(?:others?|rest|remaining)\b"
    r"|\b(?:first|1st|0th) (?:gpu|card|device)\b[^.\n]{0,30}?\b(?:much |far )?(?:more|higher|larger)\b[^.\n]{0,20}?"
    r"\bthan (?:the )?(?:others?|rest|remaining)\b"
    # The memory used on the first card only, with several given (fifty-fourth pass): "I changed the gpus = '0,1,2,3',
    # but the memory can only used in the first gpu" (microsoft/singleshotpose#52; the maintainer: DataParallel gathers
    # every output on one GPU, which therefore holds more than the others).
    r"|\b(?:memory|vram)\b[^.\n]{0,20}?\bonly\s(?:be\s|being\s|is\s|gets?\s)?(?:used|allocated|occupied|filled)\s"
    r"(?:in|on)\s(?:the\s)?(?:first|1st|0th)\s(?:gpu|card|device)\b",
    re.IGNORECASE)

# Each GPU's use against its size, written "used/total" in one sentence that names several GPUs ("it took 43G/46G and
# 32G/46G for the same two A40 GPUs", InternLM/lmdeploy#1563): the figures of two or more GPUs of one size, read like
# a probe's (the thresholds of ``check``). Units are the users' GB/G (binary or not, the ratio is the same).
_USED_OF_TOTAL = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,2})?)\s?(?:G|GB|GiB)?\s?/\s?(\d{1,3}(?:\.\d{1,2})?)\s?(?:G|GB|GiB)\b",
                            re.IGNORECASE)
_SEVERAL_GPUS = re.compile(r"\b(?:two|three|four|eight|both|multiple|several|\d{1,2})\s(?:\w{1,12}\s)?(?:gpus|cards|devices)\b"
                           r"|[两二三四五六七八多]\s?(?:张|块|个)\s?(?:\w{1,12}\s?)?(?:卡|gpu|显卡)", re.IGNORECASE)
_SENTENCE = re.compile(r"(?:[^.。\n!?！？]|(?<=\d)\.(?=\d)){1,600}")  # (a decimal point ends no sentence)

# Placement said in words: the whole model on one card though several are there. "never uses the second one" /
# "not splitting model to multiple GPUs" (ollama#1341), "will only load onto a single GPU" (SciSharp/LLamaSharp#617),
# an automatic device map that "fill[s] up GPUs" (huggingface/accelerate#608), 所有的模型文件依然被加载进了第一个显卡中
# (every model file still loaded onto the first card, THUDM/CogVLM2#179), and the opposite mistake, a full copy of the
# model on every card (每一张卡都加载了一次模型, every card loaded the model once: hiyouga/LLaMA-Factory#5589), which is
# data parallelism where the model needed to be split (accelerate docs, "Big Model Inference"; PyTorch DDP keeps one
# full replica per rank, torch/nn/parallel/distributed.py).
_SAID_ONE_CARD = re.compile(
    r"\b(?:not|never|n't|unable to|fails? to|won't)\s+(?:be\s+)?(?:split(?:ting|s)?|spread(?:ing|s)?|distribut\w*|"
    r"load(?:ing|s)?|shard(?:ing|s)?)\b[^.\n]{0,40}?\b(?:onto |to |on |over |across )?(?:multiple|several|two|2|both|all "
    r"(?:the )?|the other) (?:gpus|cards|devices)\b"
    # Loaded onto one card (what the user chose to use, "I only use one GPU", is not placement).
    r"|\bonly (?:loads?|goes|(?:gets? |is |was )?loaded) (?:onto|on|to|into) (?:a single|one|the first|gpu ?0|cuda:0)"
    r"(?: gpu| card| device)?"
    r"|\bnever uses? the (?:second|other) (?:one|gpu|card|device)"
    r"|\bfill(?:s|ed|ing)? up (?:the )?(?:first )?gpus?\b"
    r"|(?:加载|放|分配)(?:进|到|在)了?(?:第一|0号?)(?:张|个|块)?\s?(?:卡|gpu|显卡)"
    r"|\b(?:each|every) (?:gpu|card|rank|device|process)\b[^.\n]{0,20}?\b(?:loads?|holds?|gets?|has)\b[^.\n]{0,15}?"
    r"\b(?:full|whole|entire|complete) (?:copy|model|replica)"
    r"|每一?(?:张|个|块)\s?(?:卡|gpu|显卡)都(?:加载|载入|放)了?(?:一(?:次|份|遍))?(?:完整的?)?模型",
    re.IGNORECASE)


def _said_one_card(f: Facts) -> Cause | None:
    m = _SAID_ONE_CARD.search(f.report.text or "")
    if m is None:
        return None
    return Cause(
        id="multi_gpu_imbalance",
        title=_("The model is not split over the GPUs"),
        confidence=0.7,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("The text says the model is placed on the GPUs the wrong way ('{words}'): the whole model on "
                      "one card, or a full copy on every card, while the GPUs together would hold one copy of it "
                      "and its activations.").format(words=m.group(0)),
        fix=_("Split the model over the GPUs: device_map=\"auto\" (or \"balanced_low_0\") with a max_memory per GPU "
              "that leaves room for activations, tensor parallelism in a serving engine (vLLM "
              "--tensor-parallel-size, llama.cpp --split-mode layer), and CUDA_VISIBLE_DEVICES listing every card"),
        more_fixes=[_("For inference of a model that does not fit one card, do not start one full copy per GPU "
                      "(data parallelism): load it once, sharded."),
                    _("Use DistributedDataParallel instead of DataParallel, which gathers outputs on GPU 0.")],
    )


# Single-process data parallelism named in a figureless out-of-memory text ("CUDA out of memory related to data
# parallel", ethnhe/FFB6D#35), not its distributed form. nn.DataParallel (torch/nn/parallel/data_parallel.py) replicates
# the module from device_ids[0] at every forward, scatters the batch from it and gathers every replica's outputs back
# onto output_device (device_ids[0] by default), where the loss, the gradients' reduction and the optimizer state live
# too, so GPU 0 carries more than the others and runs out first (PyTorch's DataParallel documentation recommends
# DistributedDataParallel instead; FFB6D#35 was fixed by one process per GPU with DDP).
# (Not DistributedDataParallel, FullyShardedDataParallel, nor a data-parallel degree, rank or group of a sharded
# trainer's log: "data_parallel_size", "data parallel rank".)
_DATAPARALLEL = re.compile(r"(?<!distributed)(?<!distributed )(?<!distributed_)(?<!sharded)(?<!sharded )"
                           r"\bdata[ _-]?parallel\b(?![ _-]?(?:size|rank|group|world|degree|shard))",
                           re.IGNORECASE)
_FIGURELESS_KINDS = ("pytorch_oom", "cuda_error_oom", "generic_oom")


def _dataparallel_named(f: Facts) -> Cause | None:
    """A figureless out-of-memory under nn.DataParallel (``_DATAPARALLEL``). 0.55: above a figureless shortage (0.45),
    below the imbalance said in words (0.7)."""
    r = f.report
    if (r.kind not in _FIGURELESS_KINDS or r.signature is not None or _DATAPARALLEL.search(r.text or "") is None
            or any(v is not None for v in (f.requested, f.total, f.free, f.allocated, f.reserved))):
        return None
    return Cause(
        id="multi_gpu_imbalance",
        title=_("DataParallel keeps more on GPU 0 than on the others"),
        confidence=0.55,
        evidence=evidence(described_as="data parallel"),
        explanation=_("nn.DataParallel runs in one process: at every step it copies the model from GPU 0, splits the "
                      "batch from it and gathers every GPU's outputs back onto it, where the loss and the optimizer "
                      "state live too. GPU 0 therefore holds more than the others and runs out first, while they "
                      "still have room."),
        fix=_("Use DistributedDataParallel with one process per GPU (torchrun; torch.cuda.set_device(local_rank), "
              "DDP(model, device_ids=[local_rank])), so every GPU holds the same"),
        more_fixes=[_("With DataParallel, compute the loss inside the module so only the loss is gathered, or set "
                      "output_device to a GPU with room.")],
    )


def _said_uneven(f: Facts) -> Cause | None:
    m = _SAID_UNEVEN.search(f.report.text or "")
    if m is None:
        return None
    return Cause(
        id="multi_gpu_imbalance",
        title=_("Uneven memory across GPUs"),
        confidence=0.7,
        evidence=evidence(described_as=m.group(0)),
        explanation=_("The text says the memory is spread unevenly ('{words}'): one card runs out while the others "
                      "have room, so the job's total need fits the GPUs together.").format(words=m.group(0)),
        fix=_("Spread the load: with an automatic device map give every GPU a max_memory that leaves room for "
              "activations on the first one (or device_map=\"balanced_low_0\"), or use tensor parallelism; in "
              "data-parallel training keep rank 0's extras (gathering, logging, evaluation) small"),
        more_fixes=[_("Check that no process puts a context or tensors on GPU 0 by default "
                      "(torch.cuda.set_device(local_rank) first).")],
    )


def _used_of_total(f: Facts) -> Cause | None:
    """Two or more "used/total" figures of one GPU size in one sentence that names several GPUs
    (``_USED_OF_TOTAL``), the busiest >= 1.3 × the least busy and >= 1 GiB more: the probe's test on the user's
    figures. 0.6: above a figureless shortage (0.45), below the imbalance said in words (0.7)."""
    text = f.report.text or ""
    if "/" not in text:
        return None
    for sentence in _SENTENCE.finditer(text):
        part = sentence.group(0)
        pairs = [(float(m.group(1)), float(m.group(2))) for m in _USED_OF_TOTAL.finditer(part)]
        if len(pairs) < 2 or len({t for _u, t in pairs}) != 1 or not _SEVERAL_GPUS.search(part):
            continue
        used = [u for u, _t in pairs]
        hi, lo, total = max(used), min(used), pairs[0][1]
        if hi > total or not uneven(hi * GiB, lo * GiB):
            continue
        return Cause(
            id="multi_gpu_imbalance",
            title=_("Uneven memory across GPUs"),
            confidence=0.6,
            evidence=evidence(described_as=part.strip(), busiest_gpu_bytes=round(hi * GiB),
                              least_gpu_bytes=round(lo * GiB), imbalance_ratio=round(hi / lo, 2)),
            explanation=_("The text gives the GPUs' memory side by side ('{words}'): one holds {ratio:.1f}× what "
                          "another holds, so the fullest card runs out while the others have room.").format(
                              words=part.strip(), ratio=hi / lo),
            fix=_("Spread the load: with an automatic device map give every GPU a max_memory that leaves room for "
                  "activations on the first one (or device_map=\"balanced_low_0\"), or use tensor parallelism; in "
                  "data-parallel training keep rank 0's extras (gathering, logging, evaluation) small"),
            more_fixes=[_("Check that no process puts a context or tensors on GPU 0 by default "
                          "(torch.cuda.set_device(local_rank) first).")],
        )
    return None


def rank_free_check(f: Facts) -> Cause:
    """SGLang's start-up comparison of its tensor-parallel ranks' free memory (signature ``rank_free_imbalance``).

    Each rank measures its GPU's free memory and the group takes the minimum; when that minimum is below 90 % of a
    rank's own, SGLang refuses to start: "The memory capacity is unbalanced. Some GPUs may be occupied by other
    processes." (python/sglang/srt/model_executor/model_runner.py, ``init_torch_distributed``,
    https://github.com/sgl-project/sglang). Its KV pool is sized once for all ranks from the least free GPU, so an
    uneven start would waste the others. What makes one GPU less free: another process on it (sglang#1533, the
    maintainer: kill the processes that hold GPU memory), cards of different sizes in one group (commenters there:
    T10 16 GB beside a 3060 12 GB), or ranks that load at different times in a co-located trainer (sglang#4233 under
    veRL, answered by sglang#5426, which made the check a warning). The imbalance is the reading; 0.65 leaves room for
    the other process that the message names (ranked second by the signature rule)."""
    return Cause(
        id="multi_gpu_imbalance",
        title=_("The GPUs of one tensor-parallel group had unequal free memory at start"),
        confidence=0.65,
        evidence=evidence(described_as="memory capacity is unbalanced"),
        explanation=_("The engine compares the free memory of every rank's GPU at start and refuses when the least "
                      "free one has under nine tenths of another's, since its KV cache is sized once from the least free GPU. "
                      "Something made one GPU less free: another process on it, cards of different sizes in one "
                      "group, or ranks that load their models at different times."),
        fix=_("Run nvidia-smi and compare the GPUs' used memory: stop what holds one of them, group GPUs of the same "
              "size (CUDA_VISIBLE_DEVICES), or start the engine before the co-located trainer loads its model"),
        more_fixes=[_("Newer SGLang releases turn the check into a warning; lower --mem-fraction-static if it then "
                      "runs out on the least free GPU.")],
    )


def check(f: Facts) -> Cause | None:
    warned = (ranks_on_one_gpu.check(f) or _dataparallel_warning(f) or ranks_on_one_gpu.said(f) or _said_uneven(f) or _said_one_card(f) or _used_of_total(f)
              or _dataparallel_named(f))
    if warned is not None:
        return warned
    loads = [(d.index, load) for d in f.report.devices if (load := _load(d)) is not None]
    if len(loads) < 2:
        return None
    hi = max(loads, key=lambda x: x[1])
    lo = min(loads, key=lambda x: x[1])
    if not uneven(hi[1], lo[1]):
        return None
    ratio = hi[1] / lo[1]
    return Cause(
        id="multi_gpu_imbalance",
        title=_("Uneven memory across GPUs"),
        confidence=clamp(0.45 + 0.2 * (ratio - 1), hi=0.85),
        evidence=evidence(busiest_gpu_index=hi[0], busiest_gpu_bytes=hi[1], least_gpu_index=lo[0],
                          least_gpu_bytes=lo[1], imbalance_ratio=round(ratio, 2)),
        explanation=_("GPU {busiest} holds {ratio:.1f}× the memory of GPU {least}: the job does not spread its "
                      "load evenly (rank 0 extras, uneven dynamic batches, DataParallel gathering on GPU "
                      "0).").format(busiest=hi[0], ratio=ratio, least=lo[0]),
        fix=_("Balance the per-rank load: cap tokens per batch (e.g. fairseq --max-tokens), move metric/loss "
            "gathering off rank 0, and use DistributedDataParallel instead of DataParallel"),
        more_fixes=[_("Check that no rank creates a context on GPU 0 (torch.cuda.set_device(local_rank) first).")],
    )
