"""``gpudesk estimate serve`` and ``estimate memory --weight-format q4_k_m`` end to end through main()."""

from __future__ import annotations

import contextlib
import io
import json

import pytest
from helpers.gguf_files import write_gguf

from gpudesk.cli import main


def _json(capsys, args: list[str]) -> dict:
    assert main(args) == 0
    return json.loads(capsys.readouterr().out)


def _run(args: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    return out.getvalue()


@pytest.fixture(scope="module")
def accuracy_report() -> tuple[dict, str]:
    """``estimate accuracy --json`` and its text, run once for this module: each run predicts every bundled case
    (about a minute on a 2-core machine), and the tests below read different parts of the same report."""
    return json.loads(_run(["estimate", "accuracy", "--json"])), _run(["estimate", "accuracy"])


def test_serve_json_has_the_documented_keys(capsys) -> None:
    out = _json(capsys, ["estimate", "serve", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5",
                         "--engine-arg", "gpu_memory_utilization=0.9", "--engine-arg", "max_model_len=8192", "--json"])
    assert set(out["per_gpu"]) >= {"weights_bytes", "activation_bytes", "non_torch_bytes", "kv_cache_bytes",
                                   "total_bytes"}
    for key in ("kv_cache_tokens", "kv_cache_blocks", "max_concurrency", "max_context_tokens", "fits", "command"):
        assert key in out
    assert out["fits"] and out["command"].startswith("vllm serve meta-llama/Meta-Llama-3-8B")
    assert out["kv_cache_tokens"] == out["kv_cache_blocks"] * 16


def test_serve_text_for_a_gguf_quant_and_a_mac(capsys) -> None:
    assert main(["estimate", "serve", "--engine", "llamacpp", "--model", "llama-3-8b", "--weight-format", "q4_k_m",
                 "--gpu", "apple-16gb", "--engine-arg", "n_ctx=65536"]) == 0
    text = capsys.readouterr().out
    assert "Metal" in text and "fits: NO" in text and "llama-server" in text


def test_serve_reads_a_local_gguf(capsys, tmp_path) -> None:
    path = write_gguf(tmp_path / "tiny.gguf")
    out = _json(capsys, ["estimate", "serve", "--engine", "llamacpp", "--gguf", str(path), "--gpu", "rtx4090",
                         "--engine-arg", "n_ctx=2048", "--json"])
    assert out["fits"] and str(path) in out["command"]
    assert out["buffers"][0]["kv_bytes"] == 2 * 2048 * 2 * 64 * 2 * 2  # layers x cells x (K+V) x kv width x f16


def test_serve_refuses_unknown_setting_with_the_list(capsys) -> None:
    assert main(["estimate", "serve", "--engine", "sglang", "--model", "llama-3-8b", "--gpu", "h100-sxm5",
                 "--engine-arg", "gpu_memory_utilization=0.9"]) != 0
    err = capsys.readouterr().err
    assert "mem_fraction_static" in err and "Traceback" not in err


def test_estimate_memory_takes_a_gguf_quant_name(capsys) -> None:
    out = _json(capsys, ["estimate", "memory", "--model", "llama-3-8b", "--mode", "inference", "--weight-format",
                         "q4_k_m", "--json"])
    assert abs(out["per_gpu"]["breakdown_bytes"]["weights"] / 2**30 - 4.58) < 0.01


def test_estimate_accuracy_reports_the_engine_logs(accuracy_report) -> None:
    out, text = accuracy_report
    engines = out["engines"]
    assert engines["summary"]["logs"] == len(engines["logs"]) > 0
    assert set(engines["summary"]["categories"]) >= {"weights", "kv", "concurrency", "buffers"}
    held = engines["summary"]["held_out"]
    assert held["logs"] == sum(1 for log in engines["logs"] if log["added_after_model"]) > 0
    assert "engine start-up logs" in text
    assert f"logs added after the models were last changed: {held['logs']}" in text


_H100_8B = ["estimate", "serve", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5"]


@pytest.mark.parametrize("extra, flag", [
    (["--engine-arg", "gpu_memory_utilization=inf"], "gpu_memory_utilization"),
    (["--engine-arg", "gpu_memory_utilization=nan"], "gpu_memory_utilization"),
    (["--engine-arg", "gpu_memory_utilization=-1"], "gpu_memory_utilization"),
    (["--engine-arg", "gpu_memory_utilization=1.5"], "gpu_memory_utilization"),
    (["--engine-arg", "swap_space=-4"], "swap_space"),
    (["--concurrency", "0"], "--concurrency"),
    (["--concurrency", "1000000000000"], "--concurrency"),
    (["--gpus", "0"], "--gpus"),
    (["--tp", "0"], "--tp"),
    (["--gpus", "8", "--tp", "3"], "--tp"),
])
def test_serve_refuses_out_of_range_numbers_naming_the_flag(capsys, extra, flag) -> None:
    """QA: these printed 'KV budget = ... x nan' / 'x -1', ran with 0 GPUs, or raised a ValueError traceback."""
    assert main(_H100_8B + extra) == 2
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "not a valid float" not in err  # the allowed range is named, not a parse failure


def test_serve_refuses_a_non_positive_wired_limit(capsys) -> None:
    assert main(["estimate", "serve", "--engine", "llamacpp", "--model", "llama-3-8b", "--gpu", "apple-64gb",
                 "--wired-limit-mb", "-5"]) == 2
    assert "--wired-limit-mb" in capsys.readouterr().err


@pytest.mark.parametrize("engine, version", [("vllm", "garbage"), ("vllm", "-1"), ("sglang", "latest-ish"),
                                             ("llamacpp", "nightly")])
def test_serve_refuses_a_version_that_is_no_release(capsys, engine, version) -> None:
    """QA: 'garbage' ran as 'vLLM garbage (V1 engine)' with V0's max_num_seqs, '-1' as the V0 engine."""
    assert main(["estimate", "serve", "--engine", engine, "--model", "llama-3-8b", "--gpu", "h100-sxm5",
                 "--engine-version", version]) == 2
    err = capsys.readouterr().err
    assert "--engine-version" in err and "Traceback" not in err


@pytest.mark.parametrize("engine, version", [("vllm", "v0"), ("vllm", "0.6.3.post1"), ("vllm", "0.10.1rc1"),
                                             ("sglang", "0.5.3"), ("llamacpp", "b6000"), ("ollama", "v0.12.3")])
def test_serve_takes_release_spellings(capsys, engine, version) -> None:
    assert main(["estimate", "serve", "--engine", engine, "--model", "llama-3-8b", "--gpu", "h100-sxm5",
                 "--engine-version", version]) == 0


def test_serve_memory_rows_line_up_in_chinese(capsys) -> None:
    """QA: labels were padded by characters, so a Chinese label (two cells per character) pushed its number right."""
    from gpudesk.cli.columns import display_width

    assert main(["--lang", "zh_CN"] + _H100_8B) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.endswith(" GiB") and line.startswith("  ")
            and "（" not in line[:4]]
    ends = {display_width(line) for line in rows[:6]}
    assert len(rows) >= 5 and len(ends) == 1, rows


@pytest.mark.parametrize("engine, setting", [("vllm", "block_size=0"), ("vllm", "max_num_seqs=0"),
                                             ("vllm", "tensor_parallel_size=0"), ("trtllm", "tokens_per_block=0"),
                                             ("llamacpp", "n_batch=0"), ("ollama", "num_parallel=0"),
                                             ("llamacpp", "n_gpu_layers=-2")])
def test_serve_refuses_count_settings_below_their_floor(capsys, engine, setting) -> None:
    """QA: block_size=0 / tokens_per_block=0 raised ZeroDivisionError; max_num_seqs=0 answered as if it ran."""
    assert main(["estimate", "serve", "--engine", engine, "--model", "llama-3-8b", "--gpu", "rtx4090",
                 "--engine-arg", setting, "--json"]) == 2
    err = capsys.readouterr().err
    assert setting.split("=")[0] in err and "at least" in err and "Traceback" not in err


@pytest.mark.parametrize("engine, setting", [("llamacpp", "n_gpu_layers=-1"), ("ollama", "num_gpu=-1"),
                                             ("sglang", "chunked_prefill_size=-1"), ("ollama", "gpu_overhead=0")])
def test_serve_takes_the_engines_own_sentinels(capsys, engine, setting) -> None:
    assert main(["estimate", "serve", "--engine", engine, "--model", "llama-3-8b", "--gpu", "rtx4090",
                 "--engine-arg", setting]) == 0


def test_serve_gpus_without_tp_splits_the_model_over_them(capsys) -> None:
    """QA: --gpus 4 without --tp answered for 1 GPU ('vLLM v1 on 1 x ...'), the --gpus count silently dropped."""
    out = _json(capsys, ["estimate", "serve", "--engine", "vllm", "--model", "llama-3.1-70b", "--gpu", "h100-sxm5",
                         "--gpus", "4", "--json"])
    assert out["gpus"] == 4 and "--tensor-parallel-size 4" in out["command"]


def test_estimate_accuracy_reports_the_fresh_speed_set_apart(accuracy_report) -> None:
    out, text = accuracy_report
    summary = out["speed"]["summary"]
    assert set(summary) == {"dev", "later", "fresh", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7", "fresh8",
                            "fresh9", "fresh10", "fresh11", "fresh12", "fresh13", "fresh14",
                            "fresh15", "fresh16", "fresh17", "fresh18", "fresh19",
                            "fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33", "fresh34", "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46", "fresh47", "fresh48", "fresh49", "fresh50", "fresh51", "fresh52", "fresh53", "fresh54", "fresh55", "fresh56", "fresh57", "fresh58", "fresh59", "fresh60", "fresh61", "fresh62", "fresh63", "fresh64", "fresh65", "fresh66", "fresh67", "fresh68", "fresh69", "fresh70", "fresh71", "fresh72", "fresh73", "fresh74", "fresh75", "fresh76", "fresh77", "fresh78", "fresh79", "fresh80", "fresh81", "fresh82", "fresh83", "fresh84", "fresh85", "fresh86", "fresh87", "fresh88", "fresh89", "fresh90", "fresh91", "fresh92", "fresh93", "fresh94", "fresh95", "fresh96", "fresh97", "fresh98", "fresh99", "fresh100", "fresh101", "fresh102", "fresh103", "fresh104", "fresh105", "fresh106", "fresh107", "fresh108", "fresh109", "fresh110", "fresh111", "fresh112", "fresh113", "fresh114", "fresh115", "fresh116", "fresh117", "fresh118", "fresh119", "fresh120", "fresh121", "fresh122", "fresh123", "fresh124"}
    assert summary["fresh"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh") > 0
    assert summary["fresh2"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh2") > 0
    assert summary["fresh3"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh3") > 0
    assert summary["fresh4"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh4") > 0
    assert summary["fresh5"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh5") > 0
    assert summary["fresh6"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh6") > 0
    assert summary["fresh7"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh7") > 0
    assert summary["fresh8"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh8") > 0
    assert summary["fresh9"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh9") > 0
    assert summary["fresh10"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh10") > 0
    assert summary["fresh11"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh11") > 0
    assert summary["fresh12"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh12") > 0
    assert summary["fresh13"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh13") > 0
    assert summary["fresh14"]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == "fresh14") > 0
    for name in ("fresh15", "fresh16", "fresh17", "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25", "fresh26", "fresh27", "fresh28", "fresh29", "fresh30", "fresh31", "fresh32", "fresh33", "fresh34", "fresh35", "fresh36", "fresh37", "fresh38", "fresh39", "fresh40", "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46", "fresh47", "fresh48", "fresh49", "fresh50", "fresh51", "fresh52", "fresh53", "fresh54", "fresh55", "fresh56", "fresh57", "fresh58", "fresh59", "fresh60", "fresh61", "fresh62", "fresh63", "fresh64", "fresh65", "fresh66", "fresh67", "fresh68", "fresh69", "fresh70", "fresh71", "fresh72", "fresh73", "fresh74", "fresh75", "fresh76", "fresh77", "fresh78", "fresh79", "fresh80", "fresh81", "fresh82", "fresh83", "fresh84", "fresh85", "fresh86", "fresh87", "fresh88", "fresh89", "fresh90", "fresh91", "fresh92", "fresh93", "fresh94", "fresh95", "fresh96", "fresh97", "fresh98", "fresh99", "fresh100", "fresh101", "fresh102", "fresh103", "fresh104", "fresh105", "fresh106", "fresh107", "fresh108", "fresh109", "fresh110", "fresh111", "fresh112", "fresh113", "fresh114", "fresh115", "fresh116", "fresh117", "fresh118", "fresh119", "fresh120", "fresh121", "fresh122", "fresh123", "fresh124"):
        assert summary[name]["all"]["rows"] == sum(1 for r in out["speed"]["rows"] if r["set"] == name) > 0
    assert "fresh set (collected after the model was frozen)" in text
    assert "second fresh set (collected after the model was frozen again)" in text
    assert "third fresh set (collected after the model was frozen a third time)" in text
    assert "fourth fresh set (collected after the model was frozen a fourth time)" in text
    assert "fifth fresh set (collected after the model was frozen a fifth time)" in text
    assert "sixth fresh set (collected after the model was frozen a sixth time)" in text
    assert "seventh fresh set (collected after the model was frozen a seventh time)" in text
    assert "eighth fresh set (collected after the model was frozen an eighth time)" in text


def test_serve_takes_the_ecc_state_of_a_gddr_card(capsys) -> None:
    """An L40S ships with ECC on (the driver reports 1/16 less, as vllm-project/vllm#15815's 44.42 GiB);
    ``--ecc off`` gives the memory back and the KV cache grows."""
    base = ["estimate", "serve", "--engine", "vllm", "--model", "qwen2.5-14b", "--gpu", "l40s",
            "--engine-arg", "max_model_len=8192", "--json"]
    shipped, on, off = (_json(capsys, base + extra) for extra in ([], ["--ecc", "on"], ["--ecc", "off"]))
    assert shipped["gpu_total_bytes"] == on["gpu_total_bytes"]
    assert abs(off["gpu_total_bytes"] * 15 / 16 - on["gpu_total_bytes"]) < 2
    assert off["kv_cache_tokens"] > on["kv_cache_tokens"]
    with pytest.raises(SystemExit):
        main(base + ["--ecc", "maybe"])
    assert "--ecc" in capsys.readouterr().err


def test_one_concurrent_request_is_singular(capsys):  # type: ignore[no-untyped-def]
    """The default answer read "longest context at 1 concurrent requests"."""
    assert main(["estimate", "serve", "--engine", "vllm", "--model", "llama-3-8b", "--gpu", "h100-sxm5"]) == 0
    out = capsys.readouterr().out
    assert "at 1 concurrent request:" in out, out


def test_vllm_suggests_no_tensor_parallel_size_that_does_not_divide_the_heads(capsys) -> None:
    # Qwen3-Coder 480B has 96 attention heads: on 8 H100s it does not fit, and of TP 16 / 32 / 64 vLLM starts only
    # the first two ("must be divisible by tensor parallel size", ModelConfig.verify_with_parallel_config).
    out = _run(["estimate", "serve", "--engine", "vllm", "--model", "qwen3-coder-480b-a35b", "--gpu", "h100-sxm5",
                "--gpus", "8"])
    assert "--tensor-parallel-size 16" in out and "--tensor-parallel-size 32" in out
    assert "--tensor-parallel-size 64" not in out
