"""A new user's mistakes on ``gpudesk estimate speed|memory|accuracy``: each one is a clear one-line error naming
the flag or file (exit status non-zero, no traceback), never a silent default or a figure computed from nonsense
(a time to result of ``N/A`` for ``--tokens nan``, a median error of 0 % over an empty validation set)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpudesk.cli import main

TRAIN = ["estimate", "speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--count", "8"]
SERVE = ["estimate", "speed", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--engine", "vllm",
         "--input-tokens", "1000", "--output-tokens", "200", "--concurrency", "8"]
MEMORY = ["estimate", "memory", "--model", "llama-3-8b"]


def _fails_naming(args: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> str:
    """Run the command line; it must fail (status 1 or 2, via return or argparse) with one line naming ``flag``."""
    try:
        status = main(args)
    except SystemExit as exc:  # argparse usage errors
        status = exc.code  # type: ignore[assignment]
    captured = capsys.readouterr()
    assert status in (1, 2), captured.out[:300]
    err = captured.err
    assert "Traceback" not in err and flag in err, err
    return err


@pytest.mark.parametrize("tokens", ["nan", "-5", "inf", "0"])
def test_tokens_to_train_must_be_a_finite_positive_count(tokens: str, capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(TRAIN + ["--tokens", tokens], "--tokens", capsys)


def test_a_zero_sequence_length_is_not_read_as_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(TRAIN + ["--seq", "0"], "--seq", capsys)


@pytest.mark.parametrize("extra", [["--micro-batch", "4"], ["--global-batch", "7"], ["--tokens", "1e12"],
                                   ["--sharding", "zero3"], ["--recompute", "full"], ["--vp", "2"], ["--cp", "2"],
                                   ["--framework", "deepspeed"], ["--seq", "4096"]])
def test_training_flags_are_not_silently_ignored_by_a_serving_estimate(
        extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(SERVE + ["--count", "8"] + extra, extra[0], capsys)


def test_a_serving_expert_parallel_size_is_checked(capsys: pytest.CaptureFixture[str]) -> None:
    # --ep is also the serving replica's expert-parallel size: it must divide --tp or span whole replicas (vLLM
    # --data-parallel-size with --enable-expert-parallel, gpudesk.sizing.serve_wide_ep), and needs routed experts
    err = _fails_naming(SERVE + ["--count", "8", "--tp", "2", "--ep", "3"], "--ep", capsys)
    # the message says which sizes would do
    assert "use a divisor of 2, or a multiple of 2 that divides 8" in err
    _fails_naming(SERVE + ["--count", "8", "--tp", "2", "--ep", "2"], "--ep", capsys)  # llama-3-8b has no experts


def test_a_serving_estimate_still_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(SERVE + ["--count", "8", "--tp", "2", "--pp", "2"]) == 0
    assert "TP 2 x PP 2 x 2 replicas" in capsys.readouterr().out


@pytest.mark.parametrize("version", ["latest", "0.x", "3f2a9c1"])
def test_an_engine_version_must_be_a_release_number(version: str, capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(SERVE + [f"--engine-version={version}"], "--engine-version", capsys)


def test_a_published_engine_version_with_a_build_suffix_still_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(SERVE + ["--engine-version", "v0.6.5.dev964+mlperf50"]) == 0


def test_zero_stages_per_rank_is_not_read_as_the_default(capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(MEMORY + ["--gpus", "8", "--pp", "2", "--batch", "4", "--pp-schedule", "interleaved-1f1b",
                            "--pp-stages-per-rank", "0"], "--pp-stages-per-rank", capsys)


def test_zero_pipeline_micro_batches_is_named_as_typed(capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_naming(MEMORY + ["--gpus", "8", "--pp", "2", "--batch", "4", "--pp-microbatches", "0"],
                        "--pp-microbatches", capsys)
    assert "0" in err


@pytest.mark.parametrize("extra", [["--pp-microbatches", "4"], ["--pp-schedule", "gpipe"],
                                   ["--pp-stages-per-rank", "2"]])
def test_pipeline_flags_without_a_pipeline_are_errors(extra: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(MEMORY + ["--gpus", "8"] + extra, extra[0], capsys)


def test_memory_with_a_pipeline_still_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(MEMORY + ["--gpus", "8", "--pp", "2", "--batch", "4", "--pp-microbatches", "4"]) == 0


@pytest.mark.parametrize("text", ["", "\n\n", '{"id": "x"}\n',
                                  '{"id": "x", "method": "full", "config": "llama-3.1-8b", "value": "lots", '
                                  '"unit": "GiB"}\n',
                                  '{"id": "x", "method": "full", "config": "llama-3.1-8b", "value": 10, '
                                  '"unit": "parsecs"}\n',
                                  '{"id": "x", "method": "nonsense", "config": "llama-3.1-8b", "value": 10, '
                                  '"unit": "GiB"}\n',
                                  '{"id": "x", "method": "full", "config": "llama-3.1-8b", "value": 10, '
                                  '"unit": "GiB", "seq_len_tokens": "abc"}\n'])
def test_a_malformed_validation_set_is_a_clear_error(text: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    from gpudesk.sizing.validation import default_cases_path

    (tmp_path / "configs").mkdir()  # the row's model config, so that only the row itself is at fault
    shutil.copy(default_cases_path().parent / "configs" / "llama-3.1-8b.config.json", tmp_path / "configs")
    cases = tmp_path / "cases.jsonl"
    cases.write_text(text, encoding="utf-8")
    _fails_naming(["estimate", "accuracy", "--cases", str(cases)], "--cases", capsys)


def test_more_expert_parallel_ranks_than_experts_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    # Mixtral 8x7B has 8 routed experts: EP 16 would hold half an expert per rank (Megatron-Core refuses it).
    err = _fails_naming(["estimate", "speed", "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--count", "16",
                         "--ep", "16"], "--ep", capsys)
    assert "8 routed experts" in err


def test_expert_parallel_dividing_the_experts_still_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["estimate", "speed", "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--count", "16",
                 "--ep", "8"]) == 0


def test_virtual_stages_without_a_pipeline_are_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    _fails_naming(TRAIN + ["--vp", "2"], "--vp", capsys)


@pytest.mark.parametrize("command", [
    ["estimate", "memory"],
    ["estimate", "speed", "--gpu", "h100-sxm5"],
    ["estimate", "serve", "--engine", "vllm", "--gpu", "h100-sxm5"],
])
@pytest.mark.parametrize("flag", ["--model", "--config"])
def test_an_empty_model_answer_names_the_flag_given(
        command: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--model ""`` (an unset shell variable) once fell through to --params and printed 'cannot read None'."""
    err = _fails_naming(command + [flag, ""], flag, capsys)
    assert "--params" not in err and "None" not in err, err


def test_an_empty_gguf_path_is_refused_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_naming(["estimate", "serve", "--engine", "llamacpp", "--gpu", "rtx4090", "--gguf", ""], "--gguf", capsys)
    assert "--params" not in err and "Is a directory" not in err, err


def test_an_empty_cases_path_is_refused_not_read_as_the_bundled_set(capsys: pytest.CaptureFixture[str]) -> None:
    """``--cases ""`` once ran the whole bundled validation set (minutes) as if no file had been given."""
    _fails_naming(["estimate", "accuracy", "--cases", ""], "--cases", capsys)


def test_a_truncated_cases_line_is_explained_in_chinese(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gpudesk import i18n

    cases = tmp_path / "cases.jsonl"
    cases.write_text('{"precision": "bf16", "optimizer": "adamw", "micro_batch_size": 2, "seq_len')
    before = i18n.current_language()
    try:
        err = _fails_naming(["--lang", "zh_CN", "estimate", "accuracy", "--cases", str(cases)], "--cases", capsys)
    finally:
        i18n.set_language(before)
    assert "Unterminated" not in err and "第 1 行" in err, err


@pytest.mark.parametrize("extra, flag", [(["--safe-free", "nan"], "--safe-free"), (["--safe-free", "0.3"], "--safe-free"),
                                         (["--gpu", ""], "--gpu")])
def test_memory_flags_are_not_silently_ignored(extra: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``--safe-free nan`` without --gpu and ``--gpu ""`` once printed the breakdown with no fit and exit 0."""
    _fails_naming(MEMORY + extra, flag, capsys)


def test_safe_free_with_a_gpu_still_answers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(MEMORY + ["--gpu", "h100-sxm5", "--safe-free", "0.3"]) == 0
    assert "H100" in capsys.readouterr().out


@pytest.mark.parametrize("version", ["", "-1.0"])
def test_speed_refuses_the_engine_versions_serve_refuses(version: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``estimate serve`` refused ``--engine-version ""`` and ``-1.0``; ``estimate speed`` took them silently (the
    blank as the default release, ``-1.0`` as release 1.0)."""
    _fails_naming(SERVE + [f"--engine-version={version}"], "--engine-version", capsys)


@pytest.mark.parametrize(("degrees", "flag"), [
    (["--ep", "2", "--etp", "3"], "gpudesk: --etp:"),  # EP 2 divides the 8 GPUs; ETP 3 does not
    (["--ep", "3", "--etp", "2"], "gpudesk: --ep:"),
    (["--ep", "3"], "gpudesk: --ep:"),
    (["--etp", "3"], "gpudesk: --etp:"),
    (["--ep", "4", "--etp", "4"], "gpudesk: --ep/--etp:"),  # each divides 8, only the product 16 does not
])
def test_expert_degrees_not_dividing_the_stage_name_the_wrong_flag(
        degrees: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_naming(["estimate", "speed", "--model", "mixtral-8x7b", "--gpu", "h100-sxm", "--count", "8",
                         *degrees], flag, capsys)
    assert "does not divide the 8 GPUs" in err


def test_estimate_memorys_mode_flag_is_not_read_as_the_speed_model(capsys: pytest.CaptureFixture[str]) -> None:
    # argparse's prefix matching used to read "--mode train" as "--model train" ("'train' is not in the catalog")
    err = _fails_naming(TRAIN + ["--mode", "train"], "--mode", capsys)
    assert "an option of gpudesk estimate memory" in err and "not in the catalog" not in err


def test_a_flag_of_the_sibling_command_is_named_as_such(capsys: pytest.CaptureFixture[str]) -> None:
    err = _fails_naming(MEMORY + ["--input-tokens", "5"], "--input-tokens", capsys)
    assert "an option of gpudesk estimate speed" in err
    err = _fails_naming(TRAIN + ["--modle", "x"], "--modle", capsys)
    assert "did you mean --model?" in err


def test_the_hint_survives_a_language_chosen_before_the_command(capsys: pytest.CaptureFixture[str]) -> None:
    # "--lang en" takes a value: the value is no command word, so the error still belongs to estimate speed
    err = _fails_naming(["--lang", "en"] + TRAIN + ["--mode", "train"], "--mode", capsys)
    assert "gpudesk estimate speed: error" in err and "an option of gpudesk estimate memory" in err


def test_two_different_gpu_counts_are_refused_not_the_last_taken(capsys: pytest.CaptureFixture[str]) -> None:
    # --gpus is --count: "--count 8 --gpus 2" used to size 2 GPUs without a word
    err = _fails_naming(TRAIN + ["--gpus", "2"], "--gpus 2", capsys)
    assert "already given as 8" in err
    assert main(TRAIN + ["--gpus", "8"]) == 0  # the same value twice is no contradiction
