"""Plain PyTorch loops and litgpt take the PyTorch-native profiles by the row's ``compile``
(speed_train_cases.PYTORCH_NATIVE_STACK), and an eager framework's unfused attention pays its separate scaling and
mask kernels over the scores (speed_train.EAGER_SCORE_BYTES_FORWARD / _BACKWARD).

Rows: litgpt extensions/thunder/README.md at 9023c45 (TinyLlama 1.1B on 8 A100-SXM4-40GB, DDP, eager vs
``--compiler inductor``) and rasbt/LLMs-from-scratch ch05/10_llm-training-speed/README.md at 908dd2f (GPT-2 124M on
one A100, the book's MultiHeadAttention before and scaled_dot_product_attention after), both held in
tests/fixtures/speed (fresh123, fresh121).
"""

import json
from pathlib import Path

from gpudesk.catalog import open_catalog
from gpudesk.sizing.speed_train import unfused_attention_seconds
from gpudesk.sizing.speed_train_cases import case_setup, predict_train_case

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "speed"


def _row(file: str, case_id: str) -> dict:
    for line in (FIXTURES / file).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["id"] == case_id:
            return row
    raise AssertionError(case_id)


LITGPT_EAGER = _row("fresh123_train_runs.jsonl", "litgpt-thunder-9023c45-tinyllama-a100-40-ddp8-eager")
LITGPT_INDUCTOR = _row("fresh123_train_runs.jsonl", "litgpt-thunder-9023c45-tinyllama-a100-40-ddp8-inductor")
RASBT_EAGER_ATTN = _row("fresh121_train_runs.jsonl", "rasbt-908dd2f-gpt2-124m-a100-06-native-ln-gelu-eager-attn-b8")
RASBT_SDPA = _row("fresh121_train_runs.jsonl", "rasbt-908dd2f-gpt2-124m-a100-07-sdpa-flash-eager-b8")


def test_litgpt_and_plain_pytorch_take_the_native_profile_by_compile():
    catalog = open_catalog()
    gpu = catalog.find_gpu("a100-40-sxm4")
    assert case_setup(LITGPT_EAGER, catalog, gpu).framework == "torchtitan-eager"
    assert case_setup(LITGPT_INDUCTOR, catalog, gpu).framework == "torchtitan-compile"
    assert case_setup(RASBT_SDPA, catalog, gpu).framework == "torchtitan-eager"
    lit_llama = _row("fresh121_train_runs.jsonl", "litllama-d598aa2-7b-4xa100-40-fsdp-ac-mb5")
    assert case_setup(lit_llama, catalog, gpu).framework == "torchtitan-eager"
    # A framework name outside the list keeps the default profile whatever its compile flag.
    assert case_setup({**LITGPT_EAGER, "framework": "modellink"}, catalog, gpu).framework == "megatron"


def test_eager_litgpt_is_slower_than_compiled_and_near_its_measurement():
    eager, _ = predict_train_case(LITGPT_EAGER)
    compiled, _ = predict_train_case(LITGPT_INDUCTOR)
    assert eager < compiled
    # Published 15,304 tokens/s/GPU eager (the fused default profile gave 21,856, 1.43x too fast).
    assert abs(eager / LITGPT_EAGER["measured"]["value"] - 1) < 0.30


def test_eager_unfused_attention_adds_the_scale_and_mask_passes():
    args = dict(sequences=8, seq_len=1024, heads=12, width=768, recomputed=False, gemm_rate=200e12,
                hbm_bytes_per_s=1.5e12)
    fused_softmax = unfused_attention_seconds(**args)
    eager = unfused_attention_seconds(**args, eager=True)
    elements = 12 * 1024 * 1024 * 8
    assert abs((eager - fused_softmax) - elements * 16 / 1.5e12) < 1e-9


def test_book_attention_row_is_predicted_slower_than_its_sdpa_row():
    book, _ = predict_train_case(RASBT_EAGER_ATTN)
    sdpa, _ = predict_train_case(RASBT_SDPA)
    assert book < sdpa
    # Published 55,256 tokens/s (book attention) and 91,901 (SDPA).
    assert book / RASBT_EAGER_ATTN["measured"]["value"] < 1.3
    assert abs(sdpa / RASBT_SDPA["measured"]["value"] - 1) < 0.2
