"""``estimate speed --engine llamacpp --llamacpp-backend``: the backend reaches the result as an assumption, leaves
the figure as CUDA's, and is refused with another engine rather than dropped unseen."""

from __future__ import annotations

import json

from gpudesk.cli import main

SERVE = ["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "rtx4080", "--engine", "llamacpp",
         "--weight-format", "q4_0", "--input-tokens", "1", "--output-tokens", "256", "--batch", "1", "--json"]


def _answer(capsys, extra: list[str]) -> dict:
    assert main(SERVE + extra) == 0
    return json.loads(capsys.readouterr().out)


def test_the_backend_is_stated_and_priced_as_cuda(capsys):
    vulkan = _answer(capsys, ["--llamacpp-backend", "vulkan"])
    cuda = _answer(capsys, [])
    assert vulkan["serve"] == cuda["serve"]
    stated = {a["name"]: a["value"] for a in vulkan["assumptions"]}
    assert stated["llamacpp_backend"].startswith("llama.cpp's vulkan backend is priced as its CUDA backend")
    rocm = {a["name"]: a["value"] for a in _answer(capsys, ["--llamacpp-backend", "rocm"])["assumptions"]}
    assert rocm["llamacpp_backend"].startswith("llama.cpp's hip backend")


def test_the_flag_is_refused_elsewhere_and_unknown_names_too(capsys):
    vllm = ["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "a100-80-sxm4", "--engine", "vllm",
            "--input-tokens", "128", "--output-tokens", "128", "--concurrency", "1"]
    assert main(vllm + ["--llamacpp-backend", "vulkan"]) != 0
    assert "--llamacpp-backend is a llama.cpp setting" in capsys.readouterr().err
    try:
        code = main(SERVE + ["--llamacpp-backend", "opencl"])
    except SystemExit as stop:  # argparse's choices
        code = stop.code
    assert code != 0
