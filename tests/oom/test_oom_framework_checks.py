"""qa19: the "Also check" list of a non-PyTorch report speaks its framework's terms (gpudesk.oom.framework_checks)
and is translated; PyTorch's report keeps PyTorch's checks."""

from __future__ import annotations

import re


from gpudesk.oom import diagnose_text

# tensorflow/models#5527: TF1's op-level OOM, no Stats block.
TF_OP_OOM = ("ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[64,2016,9,9] "
             "and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc")
# colabtools#3439: PyTorch's own message.
TORCH_OOM = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 50.00 MiB (GPU 0; 14.75 GiB total capacity; "
             "13.39 GiB already allocated; 46.81 MiB free; 13.44 GiB reserved in total by PyTorch)")
PYTORCH_WORDS = re.compile(r"torch|PYTORCH_|empty_cache|autocast|\.half\(\)|\.item\(\)", re.IGNORECASE)
HAN = re.compile(r"[\u4e00-\u9fff]")


def _checks(text: str) -> list[str]:
    return [check for cause in diagnose_text(text).causes for check in cause.checks]


def test_tensorflow_checks_name_no_pytorch_call() -> None:
    diagnosis = diagnose_text(TF_OP_OOM)
    assert diagnosis.report.framework == "tensorflow"
    checks = _checks(TF_OP_OOM)
    assert checks and not [c for c in checks if PYTORCH_WORDS.search(c)]
    assert any("tf.config.experimental.get_memory_info('GPU:0')['current']" in c for c in checks)


def test_pytorch_keeps_its_own_checks() -> None:
    assert any("torch.no_grad()" in c for c in _checks(TORCH_OOM))


def test_tensorflow_checks_are_translated(zh_cn) -> None:
    checks = _checks(TF_OP_OOM)
    assert checks and all(HAN.search(c) for c in checks), checks


def test_library_check_command_is_the_frameworks_own() -> None:
    from gpudesk.oom.framework_checks import in_framework_terms

    check = ("ldconfig -p | grep -E 'libcudnn|libcublas'; nvidia-smi; python -c \"import torch; print(torch.version.cuda)\""
             "; python -c \"import torch; print(torch.backends.cudnn.version())\": If no libcudnn is listed ...")
    tf = in_framework_terms(check, "tensorflow")
    assert tf is not None and "torch" not in tf and "tf.sysconfig.get_build_info()['cudnn_version']" in tf
    # A framework without such a call keeps the commands that apply to any program.
    assert in_framework_terms(check, "llamacpp") == ("ldconfig -p | grep -E 'libcudnn|libcublas'; nvidia-smi: If no "
                                                     "libcudnn is listed ...")
    assert in_framework_terms("Evaluation inside torch.no_grad() ...", "jax") is None


def test_snapshot_shortage_advice_is_translated(zh_cn) -> None:
    import snapshot_builder as sb

    from gpudesk.oom.snapshot.account import _shortage_cause
    from gpudesk.oom.snapshot.analysis import analyse
    from gpudesk.oom.snapshot.convert import to_snapshot

    device = analyse(to_snapshot(sb.shortage_oom())).device()
    assert device is not None and device.verdict == "genuine_shortage"
    cause = _shortage_cause(device)
    shown = [cause.fix, *cause.more_fixes, *cause.checks]
    assert cause.checks and all(HAN.search(text) for text in shown), shown


def test_tensorflow_library_check_and_its_command_row_name_tensorflow() -> None:
    # tony-framework/TonY#486: TensorFlow could not create its cuDNN handle.
    text = ("2020-11-25 09:06:12.391615: E tensorflow/stream_executor/cuda/cuda_dnn.cc:328] Could not create cudnn "
            "handle: CUDNN_STATUS_INTERNAL_ERROR")
    cause = next(c for c in diagnose_text(text).causes if c.id == "not_capacity")
    command = str(cause.evidence["check_command"])
    assert "torch" not in command and "tf.sysconfig.get_build_info()" in command
    assert any(check.startswith(command) for check in cause.checks)


def test_a_pytorch_only_deciding_command_is_dropped_not_kept_on_a_tensorflow_report() -> None:
    # qa22: a deciding command with no TensorFlow counterpart fell back to itself, so "unset PYTORCH_CUDA_ALLOC_CONF"
    # stayed on a TensorFlow report. No fixture reaches this: keras-team/keras#9643's real message (cases.jsonl) with
    # the expandable-segments line (platform_cases.jsonl, unslothai/unsloth-zoo#1235) after it.
    text = ("ResourceExhaustedError: OOM when allocating tensor with shape[128,128,109,109] and type float on "
            "/job:localhost/replica:0/task:0/device:GPU:1 by allocator GPU_1_bfc\n"
            "RuntimeError: CUDA driver error: out of memory")
    diagnosis = diagnose_text(text)
    assert diagnosis.report.framework == "tensorflow"
    assert any(c.evidence.get("deciding_check") == "expandable_segments" for c in diagnosis.causes)
    commands = [c.evidence.get("check_command") for c in diagnosis.causes]
    assert not [c for c in commands if isinstance(c, str) and PYTORCH_WORDS.search(c)], commands
