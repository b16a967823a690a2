"""Marks of a process that ended without an error of its own, read as host memory (issue 28, twenty-second pass).

A Python error prints a traceback and a device allocation failure has its own message; SIGKILL cannot be caught, so a
process the Linux OOM killer ends (``mm/oom_kill.c``, when RAM and swap run out) vanishes with only the shell's
"Killed" line. These are the shapes that line and its relatives take in pasted logs, each read by
:func:`gpudesk.oom.signatures.classify`:

* ``Killed`` glued to a progress bar: tqdm redraws its bar with a carriage return and leaves the cursor at the end of
  the line (tqdm/std.py, ``status_printer``), so the shell's "Killed" lands on the bar's own line
  ("Loading checkpoint shards: 0%| | 0/2 [00:00<?, ?it/s]Killed"); a user quoting it as code writes ```killed```.
* Ollama's "llama runner exited, you may not have enough available memory to run this model": Ollama (0.1.x,
  ``llm/llama.go`` and ``llm/server.go``, https://github.com/ollama/ollama) prints it when the runner subprocess's
  output ends with an unexpected EOF and the runner wrote no error line of its own (a CUDA failure of ggml prints
  one, which Ollama then shows as "llama runner exited: <its message>"): the runner vanished, the OOM killer's mark.
* A Windows console's pause prompt (cmd's ``pause``: "Press any key to continue . . .", localised: "続行するには何か
  キーを押してください", "请按任意键继续") right after a checkpoint-loading bar that stopped before its last shard,
  with no traceback: the launcher's batch file went on after python.exe ended with no error while the checkpoint
  shards were being read into RAM. On Windows a process whose allocation exceeds the commit limit (RAM plus the page
  file, "System Error Codes (1300-1699)", error 1455) dies in native code this way (lllyasviel/FramePack#75: the
  load went on once the page file was enlarged).
* PyTorch's "DataLoader worker (pid(s) N) exited unexpectedly" (``torch/utils/data/dataloader.py``,
  ``_MultiProcessingDataLoaderIter._try_get_data``: a worker found dead while the main process waited for its batch)
  inside a container: each batch reaches the main process through POSIX shared memory (``/dev/shm``), 64 MiB in a
  Docker container unless ``--shm-size`` or ``--ipc=host`` says otherwise (docs.docker.com, "docker run"), and a
  worker that cannot back a page there dies (SIGBUS). Outside a container the same line has other causes (a crash in
  a worker's native code); since the fifty-ninth pass it reads there as the OOM killer, more weakly
  (:func:`worker_found_dead`).
"""

from __future__ import annotations

import re

# "Killed" right after a tqdm bar's closing bracket ("?it/s]Killed", "43.56s/it]Killed"), at the end of the line. The
# rate is "<unit>/s" or "s/<unit>" for whatever ``unit=`` the caller passed (tqdm/std.py, ``format_meter``:
# ``rate_fmt``), not only tqdm's default "it": HF datasets' ``map`` counts "examples" ("20891.13 examples/s]Killed",
# Shark-NLP/DiffuSeq#64, its tokenising pass killed two thirds through), a download counts "B" or "MB".
_KILLED_AFTER_BAR = re.compile(r"(?:[A-Za-z]{1,16}/s|s/[A-Za-z]{1,16})\]\s{0,3}Killed[!.]{0,3}[^\S\n]*$", re.MULTILINE)
# The job line of zsh ("[1]    26478 killed     python test.py", signatures._SIGKILL) glued to a progress bar the same
# way (baichuan-inc/Baichuan2#138, at 0/3 checkpoint shards).
_JOB_KILLED_AFTER_BAR = re.compile(r"(?:[A-Za-z]{1,16}/s|s/[A-Za-z]{1,16})\]\s{0,3}\[\d{1,4}\][+-]?\s{1,8}\d{1,10}\s{1,8}"
                                   r"killed\s", re.IGNORECASE)
# The shell's "Killed" quoted as code in prose ("with message `killed`").
_KILLED_AS_CODE = re.compile(r"`\s{0,2}killed\s{0,2}`", re.IGNORECASE)
# Ollama's report of a runner that vanished without an error line of its own (module docstring).
_RUNNER_VANISHED = re.compile(r"runner exited,\s{0,3}you may not have enough available memory", re.IGNORECASE)
# cmd's pause prompt, in the languages of the threads read (English, Japanese, Simplified and Traditional Chinese) and
# in German, French and Spanish Windows.
_PAUSE_PROMPT = re.compile(r"press any key to continue|続行するには何かキーを押してください|请按任意键继续|請按任意鍵繼續|"
                           r"drücken sie eine beliebige taste|appuyez sur une touche pour continuer|"
                           r"presione una tecla para continuar", re.IGNORECASE)
# A checkpoint-loading bar (transformers' "Loading checkpoint shards", diffusers' "Loading pipeline components") and
# its count "n/m".
_LOAD_BAR = re.compile(r"\bloading (?:checkpoint shards|pipeline components|checkpoint|weights|model)[^\n|]{0,40}?:"
                       r"[^\n]{0,400}?\|\s{0,3}(\d{1,5})/(\d{1,5})\b", re.IGNORECASE)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\bError\b|\bException\b")
# PyTorch's report of a DataLoader worker found dead (module docstring), and words that place the job in a container.
_WORKER_EXITED = re.compile(r"DataLoader worker \(pid(?:\(s\))?\s{0,3}[\d, ]{1,80}\)\s{0,3}exited unexpectedly",
                            re.IGNORECASE)
_CONTAINER = re.compile(r"\bdocker\b|\bcontainers?\b|\bkubernetes\b|\bk8s\b|\bpods?\b|\bpodman\b|\bsingularity\b",
                        re.IGNORECASE)


# DeepSpeed's launcher ending the job's other ranks once one rank process died ("[launch.py:N:sigkill_handler] Killing
# subprocess PID", deepspeed/launcher/launch.py, sigkill_handler), beside DeepSpeed's own host-memory line
# ("CPU Virtual Memory: used = 26.4 GB, percent = 84.6%", deepspeed/runtime/utils.py, see_memory_usage, from psutil).
# With host RAM at 80 % or more just before and no error of the rank's own, the rank was killed by the kernel's OOM
# killer (deepspeedai/DeepSpeed#4571: ZeRO-3 offload of a 6.7B model on a 31 GB machine). Below 80 % it is not read so.
_LAUNCHER_KILL = re.compile(r"sigkill_handler\]?\s{0,3}Killing subprocess\b", re.IGNORECASE)
_HOST_MEMORY_PERCENT = re.compile(r"CPU Virtual Memory:\s{0,3}used\s{0,2}=\s{0,2}[\d.]{1,8}\s{0,2}GB,\s{0,3}"
                                  r"percent\s{0,2}=\s{0,2}(\d{1,3}(?:\.\d{1,3})?)\s{0,2}%", re.IGNORECASE)
HOST_MEMORY_FULL_PERCENT = 80.0


def launcher_kill_with_full_host(text: str) -> bool:
    """DeepSpeed's launcher killing its ranks after its own host-memory line showed RAM at 80 % or more."""
    if _LAUNCHER_KILL.search(text) is None:
        return False
    return any(float(m.group(1)) >= HOST_MEMORY_FULL_PERCENT for m in _HOST_MEMORY_PERCENT.finditer(text))


# The same launcher line right after the job read its checkpoint back, with no error of the rank's own between them
# (thirty-ninth pass). Resuming, every rank ``torch.load``s the saved model and optimizer states into host memory first
# (DeepSpeed's engine logs "successfully read N ZeRO state_dicts for rank R", deepspeed/runtime/engine.py,
# ``_get_all_zero_checkpoint_state_dicts``; transformers' Trainer "Loading model from <dir>" / "resume from
# checkpoint"); the optimizer states of a ZeRO checkpoint are several times the model's size, and a rank whose
# ``torch.load`` outgrows RAM dies by SIGKILL with no traceback (huggingface/transformers#17258: GPT-J-6B resumed under
# ZeRO, "error -9. No error message", the extra CPU memory of torch.load at resume). A rank that failed with an error of
# its own prints it before the launcher's line, and is not read so.
_CHECKPOINT_READ = re.compile(r"\bZeRO state_dicts?\b|\bresum(?:e|ing) (?:training )?from (?:the )?checkpoint|"
                              r"\bloading (?:model )?(?:from )?checkpoint\b|\bload_checkpoint\b|"
                              r"\bloading model from\b", re.IGNORECASE)
_RANK_ERROR = re.compile(r"Traceback \(most recent call last\)|\w(?:Error|Exception)\b|\bERROR\b|out of memory|"
                         r"exits with return code\s{0,2}=\s{0,2}[1-9]")


# The same launcher line right after DeepSpeed announced the optimizer states it is about to build ("Before
# initializing optimizer states", see_memory_usage in deepspeed/runtime/zero/stage_1_and_2.py and stage3.py), with no
# error of the rank's own before the kill (fifty-first pass). ZeRO creates the fp32 master weights and Adam's two
# moments there, 12 bytes per parameter, and with offload (the usual reason to run ZeRO on one GPU) in host memory: the
# largest host allocation of the run. A rank that dies there without a traceback was ended by SIGKILL, the OOM killer's
# mark (deepspeedai/DeepSpeed#3160: GPT-J-6B, ~72 GB of states, killed 38 s after that line; DeepSpeed's own answer in
# #4239/#4380: -9 is host memory). An allocation on the GPU fails there with a CUDA error instead, which is a rank error.
_OPTIMIZER_STATES_BUILD = re.compile(r"\bBefore initializing optimizer states\b", re.IGNORECASE)


def launcher_kill_building_optimizer_states(text: str) -> bool:
    """DeepSpeed's launcher killing its ranks while ZeRO built its optimizer states, with no rank error between."""
    kill = _LAUNCHER_KILL.search(text)
    if kill is None:
        return False
    starts = list(_OPTIMIZER_STATES_BUILD.finditer(text, 0, kill.start()))
    return bool(starts) and _RANK_ERROR.search(text, starts[-1].end(), kill.start()) is None


def launcher_kill_after_checkpoint_read(text: str) -> bool:
    """DeepSpeed's launcher killing its ranks right after the job read its checkpoint back, with no error between."""
    kill = _LAUNCHER_KILL.search(text)
    if kill is None:
        return False
    reads = list(_CHECKPOINT_READ.finditer(text, 0, kill.start()))
    return bool(reads) and _RANK_ERROR.search(text, reads[-1].end()) is None


def killed_without_error(text: str) -> bool:
    """The text shows a process ended by SIGKILL in one of the shapes of the module docstring (a "Killed" glued to a
    progress bar or quoted as code, Ollama's vanished runner, DeepSpeed's launcher after its host-memory line showed RAM
    nearly full or right after the checkpoint was read back)."""
    return bool(_KILLED_AFTER_BAR.search(text) or _JOB_KILLED_AFTER_BAR.search(text) or _KILLED_AS_CODE.search(text) or _RUNNER_VANISHED.search(text)
                or launcher_kill_with_full_host(text) or launcher_kill_after_checkpoint_read(text)
                or launcher_kill_building_optimizer_states(text))


def paused_after_unfinished_load(text: str) -> bool:
    """A Windows console's pause prompt after a checkpoint-loading bar that stopped before its last part, with no
    error between them (module docstring)."""
    pause = _PAUSE_PROMPT.search(text)
    if pause is None:
        return False
    bars = [m for m in _LOAD_BAR.finditer(text, 0, pause.start())]
    if not bars:
        return False
    last = bars[-1]
    done, parts = int(last.group(1)), int(last.group(2))
    return done < parts and _TRACEBACK.search(text, last.end(), pause.start()) is None


def worker_exit_in_container(text: str) -> bool:
    """A DataLoader worker found dead inside a container (module docstring)."""
    return _WORKER_EXITED.search(text) is not None and _CONTAINER.search(text) is not None


# (Fifty-ninth pass) The same worker found dead with no container named, or PyTorch's "is killed by signal" with the
# signal left out. ``_try_get_data`` raises "DataLoader worker (pid(s) N) exited unexpectedly" when the queue read
# fails or times out and a worker is no longer alive (pytorch/pytorch at fad60484572c490384c107cf625d484e34dc9bcf,
# torch/utils/data/dataloader.py, ``_MultiProcessingDataLoaderIter._try_get_data``: "this is the only mechanism for
# Windows to detect worker failures"); on Linux the SIGCHLD handler may name the signal first ("is killed by signal:
# Killed." / "Bus error." / "Segmentation fault.", torch/csrc/DataLoader.cpp, ``_error_if_any_worker_fails``, from
# strsignal). A worker that ends without a Python error of its own was ended by a signal, and with no signal named the
# commonest is the OOM killer's SIGKILL: every worker is a copy of the main process (fork) holding its own batches, so
# num_workers multiplies the host memory (open-mmlab/mmdetection#2406: 16 workers, 60 GB; pytorch/xla#2359 and
# FoNDUE-HTR/Documentation#21, both host OOM by the threads). A likelier reading, not a certain one: a native crash in
# a worker reads the same unless its signal is printed, so a named crash (segmentation fault, abort, illegal
# instruction, core dumped) is not read so, and the kernel log decides.
_WORKER_GONE = re.compile(r"DataLoader worker \(pids?(?:\(s\))?\s{0,3}[\w, ]{1,80}\)\s{0,3}"
                          r"(?:exited unexpectedly|is killed by signal(?!:?\s{0,3}[A-Za-z]))", re.IGNORECASE)
_NATIVE_CRASH = re.compile(r"segmentation fault|\bSIGSEGV\b|core dumped|\bSIGABRT\b|\bAborted\b|illegal instruction|"
                           r"killed by signal:?\s{0,3}(?!killed\b)[A-Za-z]", re.IGNORECASE)


def worker_found_dead(text: str) -> bool:
    """A DataLoader worker found dead with no signal or crash named (``_WORKER_GONE``)."""
    return _WORKER_GONE.search(text) is not None and _NATIVE_CRASH.search(text) is None
