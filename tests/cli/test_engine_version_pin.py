"""`--engine-version vllm==0.8.5.post1` (a `pip freeze` line) names the release, in `estimate serve` and
`estimate speed` alike; a pin of another package is refused (QA report, helper qa6 item 2)."""

from __future__ import annotations

import json

import pytest

from gpudesk.cli import main
from gpudesk.sizing.engines.fit import release_version
from gpudesk.sizing.errors import SizingError

_SERVE = ["estimate", "serve", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5", "--json"]
_SPEED = ["estimate", "speed", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5", "--input-tokens",
          "1000", "--output-tokens", "200", "--concurrency", "8", "--json"]


def _json(capsys, args: list[str]) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("command", [_SERVE, _SPEED])
def test_a_pip_freeze_pin_reads_as_its_release(capsys, command):
    pinned = _json(capsys, [*command, "--engine-version", "vllm==0.8.5.post1"])
    plain = _json(capsys, [*command, "--engine-version", "0.8.5.post1"])
    current = _json(capsys, command)
    assert pinned == plain
    assert pinned != current  # the release is read, not dropped: 0.8.5 is sized unlike the default V1 release


@pytest.mark.parametrize("command", [_SERVE, _SPEED])
@pytest.mark.parametrize("pin", ["sglang==0.4.6", "vllm==", "vllm==latest-ish"])
def test_a_pin_of_another_package_or_of_no_release_is_refused(capsys, command, pin):
    assert main([a for a in command if a != "--json"] + ["--engine-version", pin]) == 2
    err = capsys.readouterr().err
    assert "--engine-version" in err and repr(pin) in err and "Traceback" not in err


def test_each_engine_takes_its_own_distribution_name():
    assert release_version("vllm", "vLLM == 0.8.5") == "0.8.5"
    assert release_version("sglang", "sglang==0.4.6.post1") == "0.4.6.post1"
    assert release_version("trtllm", "tensorrt_llm==0.19.0") == "0.19.0"
    assert release_version("trtllm", "TensorRT-LLM==1.0.0rc4") == "1.0.0rc4"
    assert release_version("vllm", "0.6.3") == "0.6.3"
    assert release_version("vllm", None) is None
    with pytest.raises(SizingError, match="not the trtllm engine"):
        release_version("trtllm", "vllm==0.8.5")
    with pytest.raises(SizingError):
        release_version("llamacpp", "llama-cpp-python==0.3.2")  # the Python binding, not the server's build

