"""`estimate serve --engine vllm`: the CUDA-graph memory row and the assumption about it say the same thing
(inside gpu_memory_utilization from vLLM 0.21, outside before) (QA report, helper qa6 item 3, labels)."""

from __future__ import annotations

import pytest

from gpudesk.cli import main


@pytest.mark.parametrize("version, where", [([], "inside"), (["--engine-version", "0.21.0"], "inside"),
                                            (["--engine-version", "0.10.0"], "outside")])
def test_the_cuda_graph_row_agrees_with_the_assumption(capsys, version, where):
    assert main(["estimate", "serve", "--engine", "vllm", "--model", "gpt-oss-120b", "--gpu", "h100-sxm5",
                 *version]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "gpu_memory_utilization" in line
             and "CUDA graph" in line]
    assert len(lines) == 2  # the memory row and the assumption
    assert all(f"{where} gpu_memory_utilization" in line for line in lines)
