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
    flag = {"--count": "--count/--gpus"}.get(flag, flag)  # argparse names a flag by all its spellings
    assert f"argument {flag}:" in err and "Traceback" not in err


def test_a_valid_count_still_answers(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(TRAIN + ["--count", "8", "--tp", "8"]) == 0
    assert "on 8 x NVIDIA H100" in capsys.readouterr().out


def test_gpus_is_the_same_flag_as_count(capsys) -> None:  # type: ignore[no-untyped-def]
    # estimate memory and serve-fit spell the GPU count --gpus: estimate speed takes that spelling too.
    import json

    # TP 4 on 8 GPUs: two data-parallel replicas; without a count the layout would be 4 GPUs
    assert main(TRAIN + ["--tp", "4", "--json"]) == 0
    default = json.loads(capsys.readouterr().out)["train"]
    assert main(TRAIN + ["--count", "8", "--tp", "4", "--json"]) == 0
    by_count = json.loads(capsys.readouterr().out)["train"]
    assert main(TRAIN + ["--gpus", "8", "--tp", "4", "--json"]) == 0
    by_gpus = json.loads(capsys.readouterr().out)["train"]
    assert by_gpus == by_count != default
    with pytest.raises(SystemExit) as exc:
        main(TRAIN + ["--gpus", "0"])
    assert exc.value.code == 2 and "argument --count/--gpus:" in capsys.readouterr().err


def _train_json(args: list[str], capsys) -> dict:  # type: ignore[no-untyped-def,type-arg]
    import json

    assert main(args + ["--json"]) == 0
    return json.loads(capsys.readouterr().out)["train"]  # type: ignore[no-any-return]


def test_a_pcie_server_exposes_its_tensor_parallel_collectives(capsys) -> None:  # type: ignore[no-untyped-def]
    # 8 L40S on a PCIe 4.0 server, TP 4: the all-reduces run over PCIe with no Userbuffers overlap. The same
    # layout typed with a fabric-class link of the same bandwidth would hide the framework's share of it.
    args = ["estimate", "speed", "--model", "llama-3-8b", "--gpu", "l40s", "--count", "8", "--tp", "4"]
    pcie = _train_json(args + ["--server", "pcie-4u-gen4"], capsys)
    assert pcie["breakdown_s"]["tensor_parallel_exposed_s"] > 0.3 * pcie["step_time_s"]
    assert pcie["comm_share"] > 0.3


def test_the_rowwise_fp8_recipe_is_slower_than_tensorwise(capsys) -> None:  # type: ignore[no-untyped-def]
    args = TRAIN + ["--count", "8", "--precision", "fp8", "--fp8-recipe"]
    tensorwise = _train_json(args + ["current"], capsys)
    rowwise = _train_json(args + ["rowwise"], capsys)
    assert rowwise["tokens_per_s_per_gpu"] < tensorwise["tokens_per_s_per_gpu"]
    assert rowwise["breakdown_s"]["other_kernels_s"] > tensorwise["breakdown_s"]["other_kernels_s"]


def test_the_step_breakdown_is_labelled_in_the_users_language(capsys) -> None:  # type: ignore[no-untyped-def]
    """zh_CN once listed the per-step times under their JSON keys (``gemm_s ... 52.120 s``), English and raw."""
    from gpudesk import i18n

    assert main(TRAIN + ["--count", "8", "--tp", "8"]) == 0
    english = capsys.readouterr().out.split("per step:")[1].split("\n\n")[0]
    assert "gemm_s" not in english and "GEMM" in english and english.rstrip().endswith(" s"), english
    before = i18n.current_language()
    try:
        assert main(["--lang", "zh_CN"] + TRAIN + ["--count", "8", "--tp", "8"]) == 0
    finally:
        i18n.set_language(before)
    out = capsys.readouterr().out
    block = out.split("每步：")[1].split("\n\n")[0].strip().splitlines()
    assert len(block) >= 10, out
    assert all(line.rstrip().endswith("秒") and "_s" not in line for line in block), block


@pytest.mark.parametrize("flag", [["--moe-permute-fusion", "on"], ["--moe-permute-fusion", "off"], ["--ep-overlap"],
                                  ["--ep-node-dedup"]])
def test_moe_only_flags_are_refused_on_a_dense_model(flag, capsys) -> None:  # type: ignore[no-untyped-def]
    # Llama 3.1 8B has no experts: these flags used to be accepted and dropped unseen (the same figures as without).
    assert main(TRAIN + ["--count", "8"] + flag) != 0
    err = capsys.readouterr().err
    assert flag[0] in err and "no experts" in err and "Traceback" not in err


def test_moe_only_flags_still_act_on_an_moe_model(capsys) -> None:  # type: ignore[no-untyped-def]
    args = ["estimate", "speed", "--model", "mixtral-8x7b", "--gpu", "h100-sxm5", "--count", "8", "--ep", "8"]
    fused = _train_json(args + ["--moe-permute-fusion", "on"], capsys)
    unfused = _train_json(args + ["--moe-permute-fusion", "off"], capsys)
    assert unfused["step_time_s"] > fused["step_time_s"]


def test_a_server_that_refuses_the_gpu_names_the_gpus_it_takes(capsys) -> None:  # type: ignore[no-untyped-def]
    # An NVL72 rack takes its own GB200 only: "--gpu b200" used to be refused without saying which GPU fits.
    base = ["estimate", "speed", "--model", "mixtral-8x7b", "--count", "72", "--server", "gb200-nvl72"]
    assert main(base + ["--gpu", "b200"]) != 0
    err = capsys.readouterr().err
    assert "does not take NVIDIA B200" in err and "it takes only gb200" in err
    assert main(base + ["--gpu", "gb200", "--json"]) == 0
    assert "train" in capsys.readouterr().out
    # A PCIe chassis lists no GPU ids: its form factor is what it takes.
    assert main(["estimate", "speed", "--model", "llama-3-8b", "--gpu", "h100-sxm5", "--count", "8",
                 "--server", "pcie-4u-gen4"]) != 0
    assert "it takes PCIe GPUs" in capsys.readouterr().err
