"""`estimate speed --count 2` without `--tp` on a model too big for one GPU names `--tp`, not a flag the user did not
pass (QA report, helper qa6 item 4)."""

from __future__ import annotations

from gpudesk.cli import main


def test_weights_too_big_for_one_gpu_name_tp_not_a_flag_the_user_did_not_pass(capsys):
    """QA: `--count 2` without `--tp` blamed `--gpu-memory-utilization`, which the user never gave."""
    args = ["estimate", "speed", "--engine", "vllm", "--model", "qwen2.5-72b", "--gpu", "h100-sxm5", "--count", "2",
            "--input-tokens", "1000", "--output-tokens", "200", "--concurrency", "8"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpudesk: --tp: ") and "at TP 1" in err and "--gpu-memory-utilization" not in err
    assert main([*args, "--gpu-memory-utilization", "0.95"]) == 2
    assert capsys.readouterr().err.startswith("gpudesk: --gpu-memory-utilization: ")
    assert main([*args, "--tp", "2"]) == 0
