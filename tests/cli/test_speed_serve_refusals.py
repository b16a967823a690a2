"""``estimate speed`` serving refuses what the engines refuse or what it would silently ignore. Before the fix,
TP 3 on Llama 3 8B (32 heads) gave 1,470 tokens/s, and --length-spread 0.5 with ShareGPT lengths changed nothing."""

from __future__ import annotations

from gpudesk.cli import main

SERVE = ["estimate", "speed", "--model", "llama-3-8b", "--gpu", "rtx4090", "--engine", "vllm", "--input-tokens", "256",
         "--output-tokens", "128", "--concurrency", "32"]


def test_tensor_parallel_degree_must_divide_the_heads(capsys):
    assert main(SERVE + ["--count", "3", "--tp", "3"]) != 0
    err = capsys.readouterr().err
    assert "--tp: the model's 32 attention heads do not split evenly over 3 tensor-parallel GPUs" in err
    assert main(SERVE + ["--count", "4", "--tp", "4"]) == 0  # 32 heads over 4: 8 a GPU


def test_length_spread_is_refused_with_sharegpt_lengths(capsys):
    assert main(SERVE + ["--length-distribution", "sharegpt", "--length-spread", "0.5"]) != 0
    assert "--length-spread: a length spread varies the random dataset's lengths" in capsys.readouterr().err
    assert main(SERVE + ["--length-spread", "0.5"]) == 0  # fixed lengths with a spread: vLLM's random dataset


def test_refusals_in_chinese(capsys):
    assert main(["--lang", "zh_CN"] + SERVE + ["--count", "3", "--tp", "3"]) != 0
    assert "--tp：" in capsys.readouterr().err


def test_training_header_names_the_expert_tensor_parallel_degree(capsys):
    train = ["estimate", "speed", "--model", "mixtral-8x7b", "--gpu", "h100-sxm5", "--count", "8", "--tokens", "1e9",
             "--seq", "4096", "--global-batch", "256", "--micro-batch", "1"]
    assert main(train + ["--ep", "2", "--etp", "2"]) == 0
    assert "CP 1 EP 2 ETP 2, micro-batch 1" in capsys.readouterr().out.splitlines()[0]
    assert main(train + ["--ep", "8"]) == 0
    assert "EP 8, micro-batch 1" in capsys.readouterr().out.splitlines()[0]  # ETP 1 is left out


def test_benchmark_warmup_needs_a_number_of_prompts(capsys):
    # --benchmark-warmup weighs only in a run of --num-prompts requests: alone it gave the same figures as without.
    assert main(SERVE + ["--benchmark-warmup"]) != 0
    err = capsys.readouterr().err
    assert "--benchmark-warmup" in err and "--num-prompts N" in err and "Traceback" not in err
    assert main(SERVE + ["--benchmark-warmup", "--num-prompts", "32"]) == 0
