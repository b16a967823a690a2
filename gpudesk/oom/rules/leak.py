"""``leak``: allocated memory grows across steps (oom.md §3.5 rule 6; needs two or more samples in time).

From MemorySample curves (launch, agent sampling): per GPU, allocated memory at the end is >= 256 MiB and
>= 10 % above the start, with >= 70 % of steps not decreasing. Confidence 0.5 + relative growth (max 0.9).
Without samples, a leak the text describes in words ("memory leak", "memory keeps growing", "out of memory after
2 epochs") → 0.65 / 0.55 (``_from_words``), in English or Chinese. Covers the article's rows: tensors kept across steps (loss without .item(), outputs stored with their graph),
closures captured by checkpointed functions, AMP GradScaler misuse (scaling a loss kept in a list), and
extensions leaking memory after OOM recovery (MinkowskiEngine#359).
"""

from __future__ import annotations

import re
from collections import defaultdict

from gpudesk.oom.cause import Cause
from gpudesk.oom.parsers import generic
from gpudesk.oom.parsers.units import parse_size
from gpudesk.oom.rules import gc_reclaim, genuine_shortage, graph_growth, item_loop, run_words
from gpudesk.oom.rules.base import Facts, clamp, evidence, join_sentences
from gpudesk.units import MIB as MiB, format_bytes
from gpudesk.i18n import _


# What users write when memory grows over time (lower-cased text): the word itself, memory that keeps growing, or an
# out-of-memory that came only after whole epochs / many iterations had run (the steady state fit; something kept
# growing). SpareNet#12: "GPU memory leakage (CUDA out of memory after 2 epochs)", losses kept with their graphs.
# The same in Chinese, as Chinese-speaking users describe it: "显存/内存泄漏" or "泄露" (a video-memory / memory leak),
# memory that keeps rising ("显存不断增加", "占用持续增长", "随迭代逐渐变大"), or that rises with every epoch or step
# ("每个epoch后增加").
_LEAK_WORDS = generic.MEMORY_GROWTH
# The same timing in other words: a failure only once the job had run "for too long" (behavioral-data/Homekit2020#13),
# one that comes "in the second epoch" (the first one fit: ajhamdi/MVTN#2), and, in Chinese, one that comes only after
# hundreds of pages or images in one run, or after a few generations of an image or video app that keeps running
# between them ("After 1 or 2 generations i always get this error", lllyasviel/stable-diffusion-webui-forge#1984: each
# generation fit while the app was fresh, so what fills the card is kept from one generation to the next)
# ("一次跑500页 ... 在350页到400页之间出现爆显存", dmMaze/BallonsTranslator#198).
# And one that depends on how much data an inference pass has gone through: "CUDA Out of Memory When Running Inference
# on a Large Test Set" (muellerzr/fastinference#7). One inference batch needs the same memory whatever the size of the
# set it comes from, so a pass that fails only on a large set keeps something per batch on the GPU (fastinference kept
# every input batch until the loop ended; the fix moved them to the CPU).
_AFTER_RUNNING = re.compile(
    r"\bafter (?:\d{1,6}|several|some|many|a few|a couple(?: of)?|\d{1,2} or \d{1,2}|one or two|two or three|hundreds of|"
    r"thousands of) (?:successful |consecutive )?(?:epochs?|iterations?|steps?|batches|hours?|days?|"
    r"pages|images|files|requests|generations?|gens|renders|prompts|inferences|videos|runs)\b"
    r"|\b(?:train(?:ing|ed)?|run(?:ning)?|ran)\b[^\n.;]{0,30}?\bfor (?:too|very|so) long\b"
    r"|\b(?:in|at|during|on) (?:the )?(?:second|third|fourth|fifth|2nd|3rd|[4-9]th|\d{2,4}(?:st|nd|rd|th)) "
    r"(?:epoch|iteration|pass)\b"
    r"|\b(?:inference|predict\w{0,4}|evaluat\w{0,5}|testing)\b[^\n.;]{0,30}?\bon (?:a |the )?(?:very )?"
    r"(?:large|big|huge|whole|entire|full) (?:test |validation |eval |evaluation )?(?:set|dataset|data set)\b"
    r"|(?<!\d)\d{2,6}\s{0,2}(?:页|张|帧|轮|步)\s{0,2}(?:到|至|-|~)\s{0,2}\d{2,6}\s{0,2}(?:页|张|帧|轮|步)?\s{0,2}之间",
    re.IGNORECASE)

# The user compares the start of the run with its failure: the memory had room when the job started and ran out later
# ("训练开始的时候，显存应该是有空余的，但是不到1个epoch溢出", jingyaogong/minimind#522: "at the start of training the GPU
# memory had room, but it overflowed within one epoch"; "at the beginning there was plenty of free memory"). Two
# observations of the same job at two times, the later one fuller: growth seen, not a peak guessed. A negation
# between the two (没有空余, "no free memory", "not enough") says the opposite and is not read so.
_ROOM_AT_START = re.compile(
    r"(?:刚开始|一开始|开始(?:的时候|时)?|起初|最初)(?:(?![不没未无])[^。；;\n]){0,16}?(?:显存|内存|memory)?"
    r"(?:(?![不没未无])[^。；;\n]){0,8}?"
    r"(?<![不没未])(?:有空余|有剩余|有富余|还有空|空余|剩余很多|很充足|充足|够用|没满|没有满|未满)"
    r"|\b(?:at (?:the )?(?:start|beginning)|at first|initially)\b(?:(?!\bno\b|\bnot\b|n't\b|\bnever\b)[^\n.;]){0,40}?"
    r"\b(?:plenty of |enough |much |lots of )?"
    r"(?:free|spare|unused) (?:gpu |video )?(?:memory|vram)\b",
    re.IGNORECASE)


# A Python frame of the validation/evaluation pass in the traceback ("File "train.py", line 282, in validate"): the
# function names training loops give that pass (PyTorch Lightning's validation_step, Keras' evaluate, the tutorials'
# validate / evaluate / eval_epoch). Test functions are left out (pytest names every test test_*).
_VALIDATION_FRAME = re.compile(
    r'File "[^"\n]{1,300}", line \d{1,7}, in _?((?:validate|validation|valid|evaluate|evaluation|eval|val)'
    r'(?:_[a-z0-9_]{1,40})?|[a-z0-9_]{1,40}_(?:validate|validation|evaluate|evaluation|eval|val))\s{0,3}$',
    re.IGNORECASE | re.MULTILINE)

# The same pass named in the user's words: an out-of-memory "during test", "in the validation phase", 测试时 / 验证的时候
# (jiyanggao/Video-Person-ReID#5: "out of memory problem during test", a test loop written for PyTorch 0.3's
# volatile=True, which 0.4 ignores, so every test batch built a graph). Not a test harness's words ("thrown in the test
# body", gtest) nor a data set's name ("in the test set": a size, read by _AFTER_RUNNING).
_VALIDATION_WORDS = re.compile(
    r"\b(?:during|in)\s{1,3}(?:the\s{1,3})?(?:test(?:ing)?|validation|validating|evaluation|evaluating|eval)"
    r"(?:\s{1,3}(?:phase|stage|step|pass|loop|time|mode))?\b"
    r"(?!\s{0,3}(?:set|data|dataset|script|file|suite|case|body|bench|harness)s?\b)"
    r"|(?:测试|验证|评估)(?:的)?(?:时候|时|阶段)",
    re.IGNORECASE)
# Frameworks whose evaluation keeps no autograd graph unless asked (TensorFlow's Keras evaluate, JAX, ONNX Runtime,
# TensorRT): the words are read only where no framework is named or it is PyTorch.
_GRAPH_KEEPING = (None, "unknown", "pytorch")

# The live-tensor clause of each PyTorch (or torch_npu / XPU) out-of-memory message in a pasted log: "A already
# allocated" (before 2.1) or "Of the allocated memory A is allocated by PyTorch" (2.1+), in the order they were logged.
_LIVE_CLAUSE = re.compile(r"(\d{1,6}(?:\.\d{1,4})?\s{0,2}(?:[KMGT]i?B|bytes))\s{1,3}already allocated|"
                          r"of the allocated memory\s{1,3}(\d{1,6}(?:\.\d{1,4})?\s{0,2}(?:[KMGT]i?B|bytes))\s{1,3}"
                          r"is allocated by", re.IGNORECASE)
# The rank prefix of a multi-process log ("[rank3]:") and the GPU a PyTorch message names ("(GPU 0;", "GPU 0 has a
# total capacity"): messages of several ranks or GPUs are not one run's history.
_RANK = re.compile(r"\[rank(\d{1,5})\]", re.IGNORECASE)
_GPU_INDEX = re.compile(r"\((?:GPU|NPU|XPU)\s{0,2}(\d{1,3});|\b(?:GPU|NPU|XPU)\s{0,2}(\d{1,3}) has a total capacity")
# Growth of the live tensors between the first and the last message that reads as memory kept (the thresholds of the
# sampled curves below: 256 MiB and a tenth of the first figure).
GROWTH_MIN_BYTES = 256 * MiB
GROWTH_MIN_SHARE = 0.10
MAX_MESSAGES = 200


def _rising_sizes(pattern: re.Pattern[str], text: str) -> list[int] | None:
    """The sizes ``pattern`` finds in ``text`` (its first or second group, in any unit; at most MAX_MESSAGES + 1) when
    there are two or more, they never fall, and the last exceeds the first by GROWTH_MIN_BYTES and GROWTH_MIN_SHARE of
    it or more; else None."""
    values: list[int] = []
    for m in pattern.finditer(text):
        size = parse_size(m.group(1) or m.group(2))
        if size is not None:
            values.append(size)
        if len(values) > MAX_MESSAGES:
            break
    if len(values) < 2:
        return None
    first, last = values[0], values[-1]
    if any(b < a for a, b in zip(values, values[1:])) or last - first < max(GROWTH_MIN_BYTES, GROWTH_MIN_SHARE * first):
        return None
    return values


def check(f: Facts) -> Cause | None:
    from_samples = _from_samples(f)
    if from_samples is not None:
        return from_samples
    return (gc_reclaim.check(f) or _from_repeated_messages(f) or _kept_after_release(f) or _from_words(f) or _in_validation(f) or _loop_accumulation(f)
            or graph_growth.check(f)
            or _undisposed_tensors(f) or _volatile_removed(f) or _texture_objects(f)
            or item_loop.check(f, _every_step(f.report.text or ""), _progress(f.report.text or ""),
                                  _last_counter_line(f.report.text or "")) or _figureless(f))


# A texture object refused for memory: cudaCreateTextureObject only describes memory that is already allocated (the
# resource descriptor points at it), so the call allocates nothing the job's data needs; when it fails with
# cudaErrorMemoryAllocation the driver's resources for texture objects are spent, the mark of objects created again and
# again and never destroyed (cudaDestroyTextureObject). lammps/lammps#1473: Kokkos "RandomRead" views created a texture
# object on every reallocation and never destroyed it (fixed in kokkos/kokkos#2156 and lammps#1474), crashing after 14
# million steps with 600 MiB of the GPU in use.
_TEXTURE_OBJECT_OOM = re.compile(r"cudaCreateTextureObject\b[^\n]{0,200}?(?:out of memory|cudaErrorMemoryAllocation|"
                                 r"returned \(0x2\))", re.IGNORECASE)


def _texture_objects(f: Facts) -> Cause | None:
    """``cudaCreateTextureObject`` failing for memory (``_TEXTURE_OBJECT_OOM``): texture objects kept, 0.65 (above the
    bare CUDA error's 0.5 shortage)."""
    if _TEXTURE_OBJECT_OOM.search(f.report.text or "") is None:
        return None
    return Cause(
        id="leak",
        title=_("Texture objects created and never destroyed"),
        confidence=0.65,
        evidence=evidence(requested_bytes=f.requested),
        explanation=_("Creating a texture object allocates no memory for data: it describes memory already allocated. "
                      "When it fails for memory, the driver's resources for texture objects are used up, which happens "
                      "when the code creates them repeatedly (on each reallocation or step) and never destroys them."),
        fix=_("Destroy each texture object (cudaDestroyTextureObject) when its memory is freed or reallocated, or "
              "update the library that creates them (Kokkos RandomRead views: fixed by kokkos#2156 and lammps#1474)"),
        checks=[_("Run with a shorter run or fewer reallocations: if it fails later, the objects are accumulating.")],
    )


# PyTorch 0.4 removed Variable(volatile=True), the pre-0.4 way to run evaluation without building a graph; from 0.4 on
# the flag is ignored with "UserWarning: volatile was removed and now has no effect. Use `with torch.no_grad():`
# instead." (torch/autograd/variable.py of 0.4; the 0.4.0 release notes, "volatile flag is now deprecated"). Code that
# ran under 0.3 then keeps every evaluation batch's graph. Read from that warning, or from a text that names 0.4
# beside 0.3 or volatile (AlexHex7/Non-local_pytorch#9: "can run in pytorch0.3.0, but out of memory in pytorch 0.4.0";
# pytorch#4932).
_VOLATILE_WARNING = re.compile(r"volatile was removed", re.IGNORECASE)
_TORCH_04 = re.compile(r"\b(?:py)?torch\s{0,2}(?:==\s{0,2}|v)?0\.4(?:\.\d)?\b", re.IGNORECASE)
_OLDER_OR_VOLATILE = re.compile(r"\b(?:py)?torch\s{0,2}(?:==\s{0,2}|v)?0\.3(?:\.\d)?\b|\bvolatile\b", re.IGNORECASE)


def _volatile_removed(f: Facts) -> Cause | None:
    """An out-of-memory under PyTorch 0.4 in code written for 0.3 (``_VOLATILE_WARNING`` / ``_TORCH_04``): evaluation
    that relied on ``volatile=True`` builds and keeps graphs. 0.55: above a figureless shortage (0.45), below any
    cause the allocator's figures back."""
    text = f.report.text or ""
    if not (_VOLATILE_WARNING.search(text) or (_TORCH_04.search(text) and _OLDER_OR_VOLATILE.search(text))):
        return None
    return Cause(
        id="leak",
        title=_("Evaluation keeps its graphs: volatile=True has no effect since PyTorch 0.4"),
        confidence=0.55,
        evidence=evidence(requested_bytes=f.requested),
        explanation=_("PyTorch 0.4 removed the volatile flag: Variable(x, volatile=True), which kept evaluation from "
                      "building an autograd graph in 0.3, is now ignored, so code written for 0.3 keeps every "
                      "evaluation batch's graph and its activations until the GPU is full."),
        fix=_("Wrap evaluation and inference in with torch.no_grad(): (and call model.eval()), and drop volatile=True"),
        checks=[_("Log torch.cuda.memory_allocated() after each evaluation batch: a steady rise is the graphs being "
                  "kept.")],
    )


# A .NET process in the text: the CLR's report of an exception it did not catch ("Unhandled exception.
# System.Runtime.InteropServices.ExternalException (0x80004005): ..."), a .NET exception type, or a TorchSharp frame.
_DOTNET = re.compile(r"unhandled exception\.\s{0,3}system\.|\bsystem\.runtime\.interopservices\.\w{0,40}exception\b|"
                     r"\bat torchsharp\.|\btorchsharp\.", re.IGNORECASE)
# Live tensors at least this share of the device: they, not one request, fill it.
DOTNET_LIVE_SHARE = 0.9


def _undisposed_tensors(f: Facts) -> Cause | None:
    """PyTorch's allocator message from a .NET process (``_DOTNET``: TorchSharp binds libtorch for C# and F#) whose
    live tensors fill the device. A .NET tensor frees its native memory only when it is disposed or when the garbage
    collector finalises it, and that collector sees only the small managed handle, never the GPU memory behind it
    (TorchSharp's docs, "Memory management": automatic disposal "may fail for large models because the .NET GC is
    unaware of the memory pressure on CPU or GPU resources"). Temporaries a loop does not dispose therefore pile up
    step after step until the GPU is full (dotnet/TorchSharp#1057: a loop of small tensors, the memory climbing in
    nvtop, fixed by disposing them in a scope). 0.8: above "the job needs nearly all of the GPU" (0.75), below a
    request that does not fit even a packed cache (0.85)."""
    text = f.report.text or ""
    if (_DOTNET.search(text) is None or f.allocated is None or f.total is None
            or f.allocated < DOTNET_LIVE_SHARE * f.total):
        return None
    return Cause(
        id="leak",
        title=_("Tensors not disposed pile up on the GPU (.NET)"),
        confidence=0.8,
        evidence=evidence(allocated_bytes=f.allocated, total_capacity_bytes=f.total, requested_bytes=f.requested),
        explanation=_("The error comes from a .NET process, and live tensors hold {allocated} of {total}. A .NET "
                      "tensor releases its GPU memory only when it is disposed or finalised, and the garbage collector "
                      "does not see that memory: temporaries a loop leaves undisposed accumulate until the GPU is "
                      "full.").format(allocated=format_bytes(f.allocated), total=format_bytes(f.total)),
        fix=_("Dispose every tensor a step creates: wrap the step in using (var scope = torch.NewDisposeScope()) { ... } "
              "and MoveToOuterScope() only what must outlive it, or dispose tensors explicitly (using var)"),
        more_fixes=[_("Call GC.Collect() after each mini-batch to finalise handles that were missed.")],
        checks=[_("Log torch.cuda.memory_allocated() (or the GPU's used memory) every step: a steady rise with a "
                  "constant batch is tensors left undisposed.")],
    )


# The one-line texts a training or inference script prints when it runs out (PyTorch's message cut to its first
# sentence or its request, a bare CUDA error, TensorFlow's op-level line, a runtime's own wording with no figure).
_FIGURELESS_KINDS = ("pytorch_oom", "cuda_error_oom", "generic_oom", "tf_resource_exhausted", "tf_bfc_dump")
# Frameworks whose steps run in a loop the user wrote (a training or inference script); a serving engine's or a
# llama.cpp runner's failure is read by its own budget rules. A text with none of their words qualifies by the
# wording of Torch's THC allocator ("cuda runtime error (2) : out of memory", PyTorch <= 0.4).
_LOOP_FRAMEWORKS = ("pytorch", "tensorflow", "mxnet", "paddle")
_THC_WORDING = re.compile(r"cuda runtime error \(2\)", re.IGNORECASE)
# A serving engine's start-up or warm-up, whose memory is its budget, not a loop's.
_SERVING = re.compile(r"warm(?:ing)?[- ]?up|\bserv(?:e|er|ing|ice)\b|inference (?:engine|server|service)", re.IGNORECASE)
# Progress a log shows before the failure. A progress bar at its first step ("  0/3000 [00:05<?", "0%|") is a failure
# at the first step. An epoch counter at 2 or more ("Epoch 3/10", "epoch: 5") means whole epochs ran; an iteration
# or step counter above 1 ("iter 3200", "step 1200/5000", "15/100 [") means steps ran ("batch 8" is a batch size; a
# command-line flag or a setting, "--epoch 100", "max_steps=1000", "epoch=10", is no progress).
_FIRST_STEP = re.compile(r"(?<![\d/])0\s{0,2}/\s{0,2}\d{1,9}\s{0,3}\[|(?<![\d.])0%\s{0,2}\|", re.IGNORECASE)
_EPOCH = re.compile(r"(?<![-_.])\bepoch\s{0,2}[:#\[(]?\s{0,2}(\d{1,6})\b", re.IGNORECASE)
_STEP = re.compile(r"(?<![-_.])\b(?:iter(?:ation)?s?|steps?)\s{0,2}[:#\[(]?\s{0,2}(\d{1,9})\b|"
                   r"(?<![\d/.])(\d{1,9})\s{0,2}/\s{0,2}\d{1,9}\s{0,3}\[|"
                   # A bracketed counter at the start of a log line ("[  997/1000000] time: 582.6 d_loss: ...").
                   r"^\s{0,8}\[\s{0,8}(\d{1,9})\s{0,2}/\s{0,2}\d{1,9}\s{0,2}\]", re.IGNORECASE | re.MULTILINE)
# A Jupyter/IPython kernel's marks in a traceback (IPython 7's "<ipython-input-N-...>", IPython 8's "Cell In[N]", the
# kernel's package and its temporary cell files).
_NOTEBOOK = re.compile(r"<ipython-input-\d|\bCell In\s?\[\d|\bipykernel\b|/tmp/ipykernel_\d", re.IGNORECASE)
# Confidences of the figureless reading: below a bare line's shortage (0.45-0.55) with nothing said, level with the
# lowest of it when steps ran (the same line fails at step 1 of a job too large), above it when whole epochs ran (every
# batch of the data set had fit once, so a later failure is memory kept growing, not one batch's size), still below
# any cause the allocator's figures back (0.7 and up).
FIGURELESS_CONFIDENCE = 0.3
AFTER_STEPS_CONFIDENCE = 0.45
AFTER_EPOCHS_CONFIDENCE = 0.6
# A failure at a round step (a multiple of PERIODIC_STEP, after that many steps fitted, in a log that prints every step:
# a log printed every N steps shows round counters whenever it fails) comes where training loops run
# their periodic pass (print_freq / save_freq / val_check_interval of 100, 500, 1000 steps: znxlwm/UGATIT-pytorch#23
# failed at step 1000 of its sampling pass, fixed by no_grad there): above a figureless shortage (0.45).
PERIODIC_STEP = 100
PERIODIC_STEP_CONFIDENCE = 0.5


# A traceback through the placing of the model on the device (torch.nn.Module.to / .cuda, which run _apply and its
# convert closure; from_pretrained, load_state_dict, torch.load): the failure came before any step ran.
_LOADING = re.compile(r'line \d{1,7}, in (?:_apply|convert|cuda|from_pretrained|load_state_dict|_load_from_state_dict)\b|'
                      r"\bmodel\.(?:to|cuda)\(|\btorch\.load\(", re.IGNORECASE)


# The step counters of the last text read (text, matches): one rule reads them up to three times per diagnosis, and
# a long log holds many.
_LAST_STEPS: tuple[str, list[re.Match[str]]] = ("", [])


def _step_matches(text: str) -> list[re.Match[str]]:
    """Every match of ``_STEP`` in the text, in order."""
    global _LAST_STEPS
    last = _LAST_STEPS
    if last[0] is text:
        return last[1]
    matches = list(_STEP.finditer(text))
    _LAST_STEPS = (text, matches)
    return matches


def _steps(text: str) -> list[int]:
    """Every step counter of the text, in order (``_STEP``)."""
    return [int(m.group(1) or m.group(2) or m.group(3)) for m in _step_matches(text)]


def _every_step(text: str) -> int | None:
    """The last counter of a log that prints every step (its last two counters consecutive), whatever came before
    them: a bar's first redraw at 0 ("0/1744 [") at the top of a whole log does not make step 1733 a first step."""
    steps = _steps(text)
    return steps[-1] if len(steps) >= 2 and steps[-2] == steps[-1] - 1 else None


def _last_counter_line(text: str) -> str:
    """The line of the text's last step counter (``_STEP``), "" when it has none."""
    matches = _step_matches(text)
    if not matches:
        return ""
    start = text.rfind("\n", 0, matches[-1].start()) + 1
    end = text.find("\n", matches[-1].end())
    return text[start:] if end < 0 else text[start:end]


def _progress(text: str) -> tuple[str, int] | None:
    """("epoch", N) or ("step", N) for the last counter the log shows, ("first", 0) for a first step or a failure
    while the model is placed on the device; None when the text shows none."""
    if _FIRST_STEP.search(text) or _LOADING.search(text):
        return ("first", 0)
    epochs = [int(m.group(1)) for m in _EPOCH.finditer(text)]
    if epochs and epochs[-1] >= 2:
        return ("epoch", epochs[-1])
    steps = _steps(text)
    if len(steps) >= 2 and steps[-2] == steps[-1] - 1:
        # A log that prints every step: its last counter is where the loop was when it failed.
        return ("every_step", steps[-1])
    if steps:
        return ("step", steps[-1])  # within the first epoch, the step counter says how far it went
    return ("epoch", epochs[-1]) if epochs else None


def _figureless(f: Facts) -> Cause | None:
    """A one-line out-of-memory with no figure of the device (no capacity, free, allocated or reserved memory, no
    process list): a job whose memory grows from step to step (a loss summed with its graph, outputs collected on the
    GPU, a checkpoint dict kept referenced after loading, per-image results kept across a loop) fails with exactly the
    same line as a job too large for the GPU and as one beside another process. The leak is ranked with the check that
    separates it (pytorch#4420, #5210, SDL-Skeleton#6 and FaceDetection-DSFD#11 all paste one line, and their threads
    found memory kept across iterations): 0.3 with nothing else said; 0.45 when the log shows steps ran before it, or
    when the error comes from a notebook kernel (cells run again keep what earlier runs assigned); 0.6 when whole
    epochs ran; none when the log shows the first step failing or the model being placed on the device (nothing was
    kept yet)."""
    r = f.report
    dev = f.dev
    text = r.text or ""
    loop = (r.framework in _LOOP_FRAMEWORKS or r.runtime in _LOOP_FRAMEWORKS
            or _THC_WORDING.search(text) is not None) and r.runtime in (None, *_LOOP_FRAMEWORKS)
    # Any training loop whose log shows whole epochs done (thirty-ninth pass): every batch of the data set fitted
    # once, whatever library runs it (lhnguyen102/cuTAGI#71, a C++/CUDA library: "Epoch 4/10" then cudaMalloc out of
    # memory, device memory 3.1, 8.8, 10.2, 13.7 GiB after epochs 1-4, a leak its maintainer fixed).
    epochs_done = _progress(text)
    if not loop and r.framework in (None, "unknown") and r.runtime is None and epochs_done is not None \
            and epochs_done[0] == "epoch" and epochs_done[1] >= 2:
        loop = True
    if (r.source != "text" or r.kind not in _FIGURELESS_KINDS or r.signature not in (None, "bare_cuda_error")
            or r.platform not in (None, "cuda") or not loop or _SERVING.search(text)
            or any(v is not None for v in (f.total, f.free, f.allocated, f.reserved))
            or (dev is not None and dev.other_processes) or r.parsed.get("in_use_bytes")
            # a garbled message keeps the "not enough of the message" answer, which names the missing clauses
            or not (r.signature == "bare_cuda_error" or genuine_shortage.reads_without_capacity(f))):
        return None
    progress = _progress(text)
    if progress is not None and progress[0] == "first":
        return None
    if progress is None and _NOTEBOOK.search(text):
        conf = AFTER_STEPS_CONFIDENCE
        said = _("The error comes from a notebook: every cell run keeps what it assigned (a model or optimizer created "
                 "again, outputs in Out[]) for as long as the kernel lives, so cells run again add to the memory of the "
                 "earlier runs; restarting the kernel tells it apart.")
    elif progress is not None and progress[0] == "epoch" and progress[1] >= 2:
        conf = AFTER_EPOCHS_CONFIDENCE
        said = _("The log shows epoch {n}: every batch of the data set fitted once before, so memory that keeps "
                 "growing is likelier than one batch that is too large.").format(n=progress[1])
    elif (progress is not None and progress[0] == "every_step" and progress[1] >= PERIODIC_STEP
          and progress[1] % PERIODIC_STEP == 0):
        conf = PERIODIC_STEP_CONFIDENCE
        said = _("The log stops at step {n}, a round number after {n} steps fitted: training loops run their periodic "
                 "work there (sampling or validation images, a checkpoint, logging), and that pass, run without "
                 "torch.no_grad(), keeps its autograd graph on top of the training step's memory.").format(n=progress[1])
    elif progress is not None and progress[1] >= 2:
        conf = AFTER_STEPS_CONFIDENCE
        said = _("The log shows {n} steps ran before the failure: the first steps fitted.").format(n=progress[1])
    else:
        conf = FIGURELESS_CONFIDENCE
        said = _("The text does not show how long the job ran before it failed.")
    fix = _("Store scalars, not tensors: total_loss += loss.item() (or loss.detach()); do not keep outputs that carry "
            "the autograd graph")
    if conf == PERIODIC_STEP_CONFIDENCE:
        fix = _("Run the periodic pass (sample images, validation, logging) under torch.no_grad() with model.eval(), "
                "and free its outputs before training goes on")
    return Cause(
        id="leak",
        title=_("Possibly memory kept from step to step (a leak)"),
        confidence=conf,
        evidence=evidence(progress=f"{progress[0]} {progress[1]}" if progress else None, requested_bytes=f.requested),
        explanation=join_sentences([_("The message gives no figure of the GPU's memory. A job that keeps memory from step to "
                                "step (a loss summed with its autograd graph, outputs or per-image results collected "
                                "on the GPU, a loaded checkpoint kept referenced) fails with the same line, some "
                                "steps after the first ones fitted."), said]),
        fix=fix,
        more_fixes=[_("Run evaluation and inference loops under torch.no_grad(), move collected results to the CPU "
                      "(.cpu(), .item()), and drop a loaded checkpoint (checkpoint = None) once its state is loaded.")],
        checks=[_("Log torch.cuda.memory_allocated() at the start of every step: a steady rise is a leak; a failure at "
                  "the first step is the step's own need (lower the batch); nvidia-smi before the run shows another "
                  "process.")],
    )


# TensorFlow names the op that failed ("[[node sample_sequence/while/concat (defined at ...) ]]", "[[{{node
# while/TensorArrayV2Write}}]]"): an op inside a while loop's body (the loop's frame, "while/" in its name, tf.while_loop
# and AutoGraph) that concatenates or writes a TensorArray makes a tensor that grows with every iteration.
_LOOP_ACCUMULATION = re.compile(r"\[\[\s{0,3}(?:\{\{)?node\s{1,3}([\w/]{0,200}?\bwhile(?:_\d{1,4})?/[\w/]{0,200}?"
                                r"(?:concat|TensorArray\w{0,30}|stack)\w{0,30})", re.IGNORECASE)


def _loop_accumulation(f: Facts) -> Cause | None:
    """TensorFlow's failing op is a concatenation (or a TensorArray write) inside a while loop (see
    ``_LOOP_ACCUMULATION``): the tensor it makes holds every iteration so far, so the memory grows with the loop's
    length, and the failure comes at whatever iteration the device fills (microsoft/DirectML#37: GPT-2's sampling loop
    concatenating its past keys and values, shape[1,48,2,25,455,64] at 455 tokens). 0.6: above TensorFlow's op-level
    shortage reading (0.55), which names the batch."""
    m = _LOOP_ACCUMULATION.search(f.report.text or "")
    if m is None:
        return None
    return Cause(
        id="leak",
        title=_("Memory grows with every iteration of a loop"),
        confidence=0.6,
        evidence=evidence(described_as=m.group(1), tensor_shape=f.report.tensor_shape, requested_bytes=f.requested),
        explanation=_("The op that failed ('{node}') concatenates inside a while loop: the tensor it makes holds every "
                      "iteration so far, so the memory grows with the loop's length until the device is full.").format(
                          node=m.group(1)),
        fix=_("Bound the loop: fewer iterations (a shorter generated length), or a fixed-size buffer written in place "
              "(a preallocated cache, or a window that drops the oldest entries) instead of concatenating each "
              "iteration"),
        checks=[_("Run the loop with half the iterations: if it then fits, the accumulated tensor is what fills the "
                  "device.")],
    )


def _from_repeated_messages(f: Facts) -> Cause | None:
    """Two or more out-of-memory messages of one run in the text (a loop that catches the error and goes on), whose
    live tensors ("already allocated" / "allocated by PyTorch") never fall and grow by 256 MiB and a tenth or more
    from the first to the last. After a caught out-of-memory the failed step's tensors are freed, so live memory that
    is higher at each failure is memory the job keeps: tensors referenced across steps, or an extension's memory not
    released after the error (MinkowskiEngine#359). 0.88: the text measures the growth, above a shortage read from
    the last message alone (0.85)."""
    text = f.report.text or ""
    if len(set(_RANK.findall(text))) > 1 or len(set(_GPU_INDEX.findall(text))) > 1:
        return None  # messages of several ranks or GPUs: different processes, not one run's growth
    values = _rising_sizes(_LIVE_CLAUSE, text)
    if values is None:
        return None
    first, last = values[0], values[-1]
    growth = last - first
    return Cause(
        id="leak",
        title=_("Live memory grows from one out-of-memory error to the next"),
        confidence=0.88,
        evidence=evidence(messages=len(values), allocated_first_bytes=first, allocated_last_bytes=last,
                          allocated_growth_bytes=growth),
        explanation=_("The text holds {n} out-of-memory messages of one run, and the memory held by live tensors rose "
                      "from {first} to {last} between the first and the last. The failed steps' tensors are freed "
                      "after each error, so memory that is higher at every failure is kept by the job from step to "
                      "step.").format(n=len(values), first=format_bytes(first), last=format_bytes(last)),
        fix=_("Store scalars, not tensors: total_loss += loss.item() (or loss.detach()); do not keep outputs that carry "
              "the autograd graph"),
        checks=[_("After catching an out-of-memory error, delete the references to the failed step's tensors (and the "
                  "exception itself) before going on; log torch.cuda.memory_allocated() at the start of every step: a "
                  "steady rise is a leak.")],
    )


# (Sixty-third pass) Memory a process still holds after it has released what it meant to, printed once per step: vLLM's
# sleep mode offloads or discards the weights and the KV cache between generation phases and logs what it left on the
# device, "Sleep mode freed 43.82 GiB memory, 4.11 GiB memory is still in use." (vllm/v1/worker/gpu_worker.py,
# Worker.sleep, https://github.com/vllm-project/vllm). Each release should leave the same residue; a residue that rises
# from one release to the next is memory kept between runs of the same process (NVIDIA-NeMo/RL#2619: 4.11, 11.57, then
# about 25 GiB still in use after successive steps, until the training phase ran out). The figure before "memory is
# still in use" (or after "still in use:"), in any unit.
_STILL_IN_USE = re.compile(r"(\d{1,7}(?:\.\d{1,4})?\s{0,2}[KMGT]i?B)\s{1,3}(?:of\s{1,3})?(?:gpu\s{1,3}|device\s{1,3})?"
                           r"memory\s{1,3}(?:is|was|are|were)\s{1,3}still\s{1,3}(?:in\s{1,3}use|held|allocated)\b"
                           r"|\bstill\s{1,3}(?:in\s{1,3}use|held|allocated)\s{0,2}[:=]\s{0,3}(\d{1,7}(?:\.\d{1,4})?\s{0,2}[KMGT]i?B)",
                           re.IGNORECASE)


def _kept_after_release(f: Facts) -> Cause | None:
    """The memory left in use after each release rising from the first reading to the last, never falling and by
    GROWTH_MIN_BYTES and GROWTH_MIN_SHARE or more (``_STILL_IN_USE``): 0.7, above an engine budget read from the same
    figures (0.6)."""
    text = f.report.text or ""
    if "still" not in text.lower():
        return None
    values = _rising_sizes(_STILL_IN_USE, text)
    if values is None:
        return None
    first, last = values[0], values[-1]
    growth = last - first
    return Cause(
        id="leak",
        title=_("Memory left in use after each release grows from step to step"),
        confidence=0.7,
        evidence=evidence(readings=len(values), still_in_use_first_bytes=first, still_in_use_last_bytes=last,
                          still_in_use_growth_bytes=growth),
        explanation=_("The text shows what stayed in use after each release ({n} readings), rising from {first} to "
                      "{last}. A release between steps should leave the same residue each time; a residue that grows "
                      "is memory kept from one step to the next, which fills the GPU after enough steps.").format(
                          n=len(values), first=format_bytes(first), last=format_bytes(last)),
        fix=_("Find what survives the release: the version of the library that manages it (compare with the last "
              "version whose residue stayed flat) and the objects kept between steps"),
        checks=[_("Log the memory still in use after each release over several steps (torch.cuda.memory_allocated() "
                  "and nvidia-smi): a flat residue is the job's need, a rising one is a leak.")],
    )


def _in_validation(f: Facts) -> Cause | None:
    """An out-of-memory raised inside the validation pass (a frame of it in the traceback), with nothing in the text
    that measures the job's need: the training steps before it fit, so what validation keeps on top of them is the
    first suspect: a graph kept because the pass runs without ``torch.no_grad()`` (every batch's activations stay while
    its outputs are referenced), or outputs collected across batches on the GPU for a metric
    (sgrvinod/a-PyTorch-Tutorial-to-Image-Captioning#57: "in validate ... scores_copy = scores.clone()", the scores of
    every batch kept for BLEU). The pass may be named in the user's words instead (``_VALIDATION_WORDS``), read only
    where the framework is PyTorch or unnamed. 0.5: above a bare message's guesses (0.45), below any cause the figures
    back."""
    text = f.report.text or ""
    frame = _VALIDATION_FRAME.search(text)
    where = frame.group(1) if frame is not None else None
    if where is None and f.report.framework in _GRAPH_KEEPING and f.report.runtime in _GRAPH_KEEPING:
        said = _VALIDATION_WORDS.search(text)
        where = said.group(0) if said is not None else None
    if where is None or f.total is not None:
        return None
    return Cause(
        id="leak",
        title=_("Memory kept across the validation pass"),
        confidence=0.5,
        evidence=evidence(frame=where, requested_bytes=f.requested),
        explanation=_("The error was raised in the validation pass ('{frame}'), after training steps that fit: what "
                      "validation keeps from batch to batch (the autograd graph when it runs without torch.no_grad(), "
                      "outputs collected on the GPU for a metric) grows until the GPU is full.").format(
                          frame=where),
        fix=_("Run validation under torch.no_grad() (or torch.inference_mode()) with model.eval(), and move what you "
              "collect for metrics to the CPU (.cpu(), .item()) batch by batch"),
        checks=[_("Log torch.cuda.memory_allocated() after each validation batch: a steady rise is memory kept across "
                  "batches; a flat line means the validation batch itself is too large.")],
    )


def _from_words(f: Facts) -> Cause | None:
    """A leak the user describes in words (no samples): 0.65 for the word "leak" or memory that keeps growing,
    0.55 for an out-of-memory that came after epochs or iterations had run. Below a figure-backed cause (a
    shortage read from the allocator's own clauses scores 0.7 or more), above a bare message's guesses and a near-full
    allocator's 0.6 shortage: memory the user saw growing step after step is not the first step's need (a job whose
    steady need exceeds the GPU fails at its first step and does not grow)."""
    text = f.report.text or ""
    # (A pool's running total climbing line after line is the same growth in figures: generic.growing_total.)
    words = (_LEAK_WORDS.search(text) or generic.growing_total(text) or _ROOM_AT_START.search(text)
             or run_words.NOT_RELEASED_AFTER.search(text))
    after = _AFTER_RUNNING.search(text) or run_words.AFTER_RUNS.search(text)
    if words is None and after is None:
        return None
    said = (words or after)
    assert said is not None
    if f.report.signature == "sigkill":
        return _killed_after_running(f, said.group(0), growth_seen=words is not None)
    # Only the timing, and the text ties the failure to the batch size (gpudesk.oom.rules.run_words): a peak of the
    # job's own working set, not memory kept; the leak reading drops below the figureless shortage (0.45).
    batch_bound = words is None and run_words.batch_sets_it(text)
    return Cause(
        id="leak",
        title=_("Memory grows over the run (a leak)"),
        confidence=0.65 if words is not None else 0.4 if batch_bound else 0.55,
        evidence=evidence(described_as=said.group(0), requested_bytes=f.requested, total_capacity_bytes=f.total),
        explanation=_("The text says the memory grew while the job ran ('{words}'): the first steps fit, so the job's "
                      "steady need fits the GPU and something keeps memory from earlier steps.").format(
                          words=said.group(0)),
        fix=_("Store scalars, not tensors: total_loss += loss.item() (or loss.detach()); do not keep outputs that carry "
              "the autograd graph"),
        more_fixes=[_("In an inference or evaluation loop, move what you keep of each batch (predictions, inputs, "
                      "targets) to the CPU (.cpu()) before storing it, and run the loop under torch.no_grad().")],
        checks=[_("Log torch.cuda.memory_allocated() every N steps: a steady rise is a leak, a flat line with one "
                  "spike is one larger batch (variable-length inputs, the validation pass without torch.no_grad())."),
                _("Evaluation without torch.no_grad() keeps graphs; call model.eval() for dropout/batch-norm mode.")],
    )


def _killed_after_running(f: Facts, said: str, *, growth_seen: bool = False) -> Cause:
    """A process killed by SIGKILL (the Linux OOM killer's mark, signatures ``sigkill``) only once whole epochs had
    run, or after the user watched its memory grow ("内存占用一直增加，直到最后进程会被kill掉", VISION-SJTU/
    DiffusionTrack#2: memory use kept rising until the process was killed; loss tensors stored without .item()): the
    first steps' memory fit, so it grew over the run (mm/oom_kill.c kills the process whose memory grew past what RAM
    and swap hold; the kill is where the growth ended, not its cause). 0.72: above the bare kill's host-RAM reading
    (0.7), whose check is the same."""
    explanation = (_("The text says the memory kept growing ('{words}') until the process was killed: the first steps "
                     "fit, so something kept memory from step to step until the kernel's OOM killer ended the "
                     "process.") if growth_seen else
                   _("The process was killed ('{words}') only after the run had gone on: the first epoch fit in RAM, "
                     "so the process's host memory grew until the kernel's OOM killer ended it."))
    return Cause(
        id="leak",
        title=_("Memory grows over the run (a leak)"),
        confidence=0.72,
        evidence=evidence(described_as=said, deciding_check="host_ram"),
        explanation=explanation.format(words=said),
        fix=_("Keep nothing per step on the host: store loss.item() rather than tensors, do not append outputs or "
              "samples to Python lists across epochs, and let DataLoader workers hold numpy arrays rather than Python "
              "lists"),
        checks=[_("Watch the process's resident memory (top, or psutil's memory_info().rss) epoch by epoch: a steady "
                  "rise is the leak; dmesg -T | grep -i 'killed process' confirms the OOM killer.")],
    )


def _from_samples(f: Facts) -> Cause | None:
    series: defaultdict[tuple[int | None, int | None], list[tuple[float, int]]] = defaultdict(list)
    for s in f.report.samples:
        if s.allocated_bytes is not None:
            series[(s.pid, s.device_index)].append((s.t_s, s.allocated_bytes))
    best = None
    for key, pts in series.items():
        if len(pts) < 3:
            continue
        pts.sort()
        first, last = pts[0][1], pts[-1][1]
        growth = last - first
        ups = sum(1 for a, b in zip(pts, pts[1:]) if b[1] >= a[1])
        if growth < 256 * MiB or growth < 0.1 * max(first, 1) or ups < 0.7 * (len(pts) - 1):
            continue
        rel = growth / max(first, 256 * MiB)
        if best is None or rel > best[0]:
            best = (rel, key, pts, growth)
    if best is None:
        return None
    rel, (pid, index), pts, growth = best
    window = pts[-1][0] - pts[0][0]
    return Cause(
        id="leak",
        title=_("Allocated memory grows step after step"),
        confidence=clamp(0.5 + min(0.4, rel / 2)),
        evidence=evidence(device_index=index, pid=pid, allocated_first_bytes=pts[0][1], allocated_last_bytes=pts[-1][1],
                          allocated_growth_bytes=growth, window_s=round(window, 2), samples=len(pts),
                          allocated_growth_bytes_per_s=round(growth / window) if window > 0 else None),
        explanation=_("Live tensor memory rises steadily between samples taken at comparable points: something keeps "
                    "references to tensors from earlier steps."),
        fix=_("Store scalars, not tensors: total_loss += loss.item() (or loss.detach()); do not keep outputs that carry "
            "the autograd graph"),
        checks=[
            _("Closures or lists captured by torch.utils.checkpoint functions keep their inputs alive."),
            _("AMP: call scaler.scale(loss).backward() once per step and never keep the scaled loss."),
            _("Evaluation without torch.no_grad() keeps graphs; call model.eval() for dropout/batch-norm mode."),
            _("Custom CUDA extensions that leak after a caught OOM: compare NVML process memory with reserved memory."),
        ],
    )
