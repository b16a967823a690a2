"""Sizing assumptions read in the reader's language (issue 29): the offload and recompute modes in the sentences
of train_memory / lora_memory are words ("卸载：关闭"), never the raw profile values ("卸载 none")."""

from __future__ import annotations


import pytest

from conftest import FIXTURES
from gpudesk.sizing import lora_memory, spec_from_hf_config, train_memory

LLAMA_7B = spec_from_hf_config(FIXTURES / "plan" / "llama-2-7b-hf.config.json")


def _text(estimate) -> str:
    return "\n".join(assumption for assumption, _source in estimate.assumptions)


@pytest.mark.parametrize(("offload", "recompute", "offload_words", "recompute_words"), [
    ("none", "none", "卸载：关闭", "重计算 关闭"),
    ("optimizer", "selective", "卸载：优化器状态移至 CPU", "重计算 选择性"),
    ("all", "full", "卸载：权重与优化器状态移至 CPU", "重计算 完全"),
])
def test_full_training_assumptions_name_offload_and_recompute_in_chinese(zh_cn, offload, recompute, offload_words,
                                                                         recompute_words):
    est = train_memory(LLAMA_7B, gpus=8, sharding="zero3", offload=offload, recompute=recompute)
    text = _text(est)
    assert f"zero3 分布在 8 块数据并行 GPU 上，{offload_words}" in text
    assert recompute_words in text
    assert f"卸载 {offload}" not in text and f"重计算 {recompute}" not in text


@pytest.mark.parametrize(("offload", "words"), [("none", "卸载：关闭"), ("optimizer", "卸载：优化器状态移至 CPU")])
def test_lora_assumptions_name_offload_in_chinese(zh_cn, offload, words):
    text = _text(lora_memory(LLAMA_7B, gpus=2, sharding="zero3", offload=offload))
    assert f"冻结的基座模型以 zero3 分布在 2 块 GPU 上，{words}" in text
    assert f"卸载 {offload}" not in text


def test_english_assumptions_use_the_same_words():
    text = _text(train_memory(LLAMA_7B, gpus=4, sharding="zero2", offload="optimizer", recompute="none"))
    assert "zero2 over 4 data-parallel GPUs, offload optimizer states to CPU" in text
    assert "activations: recompute off, FlashAttention on" in text
