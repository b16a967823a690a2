"""``gpudesk estimate speed``: a GPU count or parallel degree below 1 is a usage error naming the flag (argparse,
exit 2), never a silent default (``--count 0`` used to be read as "not given")."""

from __future__ import annotations

import pytest

from gpudesk.cli import main

TRAIN = ["estimate", "speed", "--model", "llama-3.1-8b", "--gpu", "h100-sxm5"]
SERVE = TRAIN + ["--engine", "vllm", "--input-tokens", "100", "--output-tokens", "10", "--concurrency", "1"]


@pytest.mark.parametrize("args", [TRAIN + ["--count", "0"], TRAIN + ["--pp", "-1"], TRAIN + ["--micro-batch", "0"],
                                  TRAIN + ["--count", "two"], SERVE + ["--tp", "0"], SERVE + ["--replicas", "0"]])
def test_counts_below_one_are_usage_errors(args, capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    flag = next(a for a in reversed(args) if a.startswith("--"))
    assert f"argument {flag}:" in err and "Traceback" not in err


def test_a_valid_count_still_answers(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(TRAIN + ["--count", "8", "--tp", "8"]) == 0
    assert "on 8 x NVIDIA H100" in capsys.readouterr().out
