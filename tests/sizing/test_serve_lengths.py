"""ShareGPT request lengths (gpudesk/sizing/serve_lengths.py): vLLM v0.8.5's client bounds (is_valid_sequence in
benchmarks/benchmark_dataset.py: 4 <= prompt <= 1024, output >= 4, prompt + output <= 2048), the row's means, and
the long tail that sets when a request-rate run ends."""

from __future__ import annotations

import statistics
import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_lengths import sharegpt_lengths
from gpudesk.sizing.shapes import spec_from_catalog
from gpudesk.sizing.speed_serve import ServeLoad, serve_speed

def test_sharegpt_lengths_keep_the_published_means_within_the_client_bounds():
    """IOG's DeepSeek-R1-Distill-Qwen-7B runs: 200 ShareGPT prompts, 41650 / 200 prompt and 43517 / 200 output
    tokens."""
    pairs = sharegpt_lengths(208, 218, 200, seed=7)
    prompts, outputs = [p for p, _o in pairs], [o for _p, o in pairs]
    assert statistics.fmean(prompts) == pytest.approx(208, abs=1)
    assert statistics.fmean(outputs) == pytest.approx(218, abs=1)
    assert all(4 <= p <= 1024 and o >= 4 and p + o <= 2048 for p, o in pairs)
    # Long-tailed: the longest outputs are several means, the median below the mean.
    assert max(outputs) > 3 * 218
    assert statistics.median(outputs) < 218


def test_unknown_distribution_is_refused():
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="vllm", input_tokens=200, output_tokens=200, request_rate_per_s=4.0,
                  length_distribution="lmsys").validated()
    assert err.value.field == "length_distribution"


def test_a_sharegpt_request_rate_run_lasts_until_its_longest_request_is_done():
    """IOG vLLM 0.8.5, DeepSeek-R1-Distill-Qwen-7B on one RTX 4090, 200 ShareGPT prompts at 16 req/s: the run
    lasted 26.97 s for 43517 output tokens (1613 tok/s), although its arrivals end after about 12.5 s. With every
    request at the mean length the simulated run ends one mean lifetime after the last arrival; with ShareGPT's
    lengths it waits for the longest outputs, so the output throughput is lower and closer to the measured one."""
    catalog = open_catalog()
    spec = spec_from_catalog(catalog.model("qwen2.5-7b"))  # the row's model: the Qwen2.5-7B shape
    gpu = catalog.gpu("rtx4090")

    def run(distribution: str):
        load = ServeLoad(engine="vllm", input_tokens=208, output_tokens=218, request_rate_per_s=16.0,
                         num_prompts=200, weight_format="fp16", kv_dtype="fp16", engine_version="0.8.5",
                         benchmark_warmup=True, length_distribution=distribution).validated()
        return serve_speed(spec, gpu, load)

    fixed, sharegpt = run("fixed"), run("sharegpt")
    assert sharegpt.output_tokens_per_s < 0.85 * fixed.output_tokens_per_s
    assert abs(sharegpt.output_tokens_per_s / 1613.38 - 1) < abs(fixed.output_tokens_per_s / 1613.38 - 1)
    assert any(a.name == "length_distribution" for a in sharegpt.assumptions)
    assert not any(a.name == "length_distribution" for a in fixed.assumptions)


def test_means_the_client_bounds_cannot_reach_are_refused_by_name():
    """A 3000-token mean prompt cannot come from ShareGPT through vLLM's client (prompts of at most 1024 tokens)."""
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="vllm", input_tokens=3000, output_tokens=200, request_rate_per_s=4.0,
                  length_distribution="sharegpt").validated()
    assert err.value.field == "length_distribution"
    assert "3000" in str(err.value)
    ServeLoad(engine="vllm", input_tokens=3000, output_tokens=200, request_rate_per_s=4.0).validated()


def test_a_refused_long_prompt_quotes_a_reachable_output_range():
    """AccelMark's 28,640-token prompts mapped to ShareGPT: the refusal quotes the output limit at the largest mean
    prompt (514 tokens: (4 + 2048 - 514) // 2 = 769), never a negative count."""
    with pytest.raises(SizingError) as err:
        ServeLoad(engine="vllm", input_tokens=28640, output_tokens=256, request_rate_per_s=4.0,
                  length_distribution="sharegpt").validated()
    message = str(err.value)
    assert "4 to 514 prompt and 4 to 769 output tokens" in message
    assert "-" not in message.split("give means")[1]
