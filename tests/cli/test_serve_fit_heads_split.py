"""``gpudesk estimate serve`` with a tensor-parallel degree the user chose that does not divide the model's attention
heads: vLLM refuses to start ("Total number of attention heads (32) must be divisible by tensor parallel size (3)",
vllm/config/model.py ModelConfig.verify_with_parallel_config), so the fit is a refusal naming the flag that set the
degree, never "fits: yes". Llama 3 8B has 32 attention heads."""

from __future__ import annotations

import pytest

from gpudesk.cli import main

SERVE = ["estimate", "serve", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm"]


@pytest.mark.parametrize(("extra", "flag"), [(["--gpus", "3"], "--gpus"), (["--tp", "3"], "--tp"),
                                             (["--engine-arg", "tensor_parallel_size=6"],
                                              "--engine-arg tensor_parallel_size")])
def test_degree_that_does_not_divide_the_heads_is_refused(extra, flag, capsys):
    status = main(SERVE + extra)
    captured = capsys.readouterr()
    assert status in (1, 2) and "fits: yes" not in captured.out
    assert captured.err.startswith(f"gpudesk: {flag}: ") and "32 attention heads" in captured.err, captured.err
    assert "vLLM refuses to start" in captured.err


def test_a_dividing_degree_still_fits(capsys):
    assert main(SERVE + ["--gpus", "4"]) == 0
    assert "fits: yes" in capsys.readouterr().out
