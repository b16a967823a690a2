"""Muon (``--optimizer muon``) and the ``norms`` copies of ``--modules-to-save`` (memfix45)."""

from __future__ import annotations

import json

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.lora_base import modules_to_save_params
from gpudesk.sizing.optimizers import (
    muon_adamw_params,
    muon_step_temporary_bytes,
    optimizer_bytes_per_param,
    step_temporary_bytes_per_param,
)

CONFIG = FIXTURES / "sizing" / "configs" / "chinese-llama-2-7b.config.json"
SPEC = spec_from_hf_config(CONFIG)
H, LAYERS, VOCAB = 4096, 32, 55296


def _train(optimizer: str, **kw) -> dict:
    w = dict(mode="train", precision="bf16", optimizer=optimizer, sharding="ddp", seq_len_tokens=512,
             micro_batch_size=1, recompute="full")
    return estimate_memory(SPEC, MemoryWorkload(**{**w, **kw})).breakdown


def test_muon_keeps_one_state_like_sgd_with_momentum():
    assert optimizer_bytes_per_param("muon", "bf16") == (2.0, 4.0, 2.0, 4.0)
    assert optimizer_bytes_per_param("muon", "bf16-pure") == (2.0, 0.0, 2.0, 2.0)
    assert step_temporary_bytes_per_param("muon", "bf16-pure") == 0.0  # no foreach-wide temporary


def test_muon_gives_embeddings_head_and_norms_adamw_states():
    adamw_part = muon_adamw_params(SPEC.embedding_params, H, LAYERS)
    assert adamw_part == 2 * VOCAB * H + (2 * LAYERS + 1) * H
    sgd, muon = _train("sgd"), _train("muon")
    # One fp32 state more for the AdamW part than SGD with momentum, nothing else in the resident states.
    assert muon["optimizer_states"] - sgd["optimizer_states"] == pytest.approx(4 * adamw_part, rel=1e-6)
    assert muon["weights"] == sgd["weights"] and muon["gradients"] == sgd["gradients"]


def test_muon_states_shard_with_zero():
    ddp, z2 = _train("muon"), _train("muon", sharding="zero2", gpus=4)
    assert z2["optimizer_states"] == pytest.approx(ddp["optimizer_states"] / 4, rel=1e-6)


def test_newton_schulz_temporaries_of_the_largest_matrix():
    # 4096 x 11008 MLP matrix: bf16 gradient blend + 3 bf16 m x n + 3 bf16 m x m tensors (m = 4096).
    assert muon_step_temporary_bytes(4096, 11008) == 2 * 4096 * 11008 + 2 * (3 * 4096 * 11008 + 3 * 4096 ** 2)
    assert muon_step_temporary_bytes(11008, 4096) == muon_step_temporary_bytes(4096, 11008)


def test_lora_muon_steps_adapters_with_one_state_and_copies_with_adamw():
    base = dict(mode="lora", precision="bf16-pure", seq_len_tokens=512, recompute="full", lora_rank=8)
    adam = estimate_memory(SPEC, MemoryWorkload(optimizer="adamw", **base)).breakdown
    muon = estimate_memory(SPEC, MemoryWorkload(optimizer="muon", **base)).breakdown
    assert muon["lora_adapters"] == pytest.approx(adam["lora_adapters"] * 6 / 8)  # 2 + 2 + 2 vs 2 + 2 + 4 bytes
    copies = dict(base, modules_to_save=("embed_tokens",))
    adam_c = estimate_memory(SPEC, MemoryWorkload(optimizer="adamw", **copies)).breakdown
    muon_c = estimate_memory(SPEC, MemoryWorkload(optimizer="muon", **copies)).breakdown
    # The embedding copy keeps AdamW's two bf16 states under Muon too: its own part, at AdamW's bytes.
    assert muon_c["modules_to_save_copies"] == adam_c["modules_to_save_copies"] == pytest.approx(8 * VOCAB * H)
    assert muon_c["lora_adapters"] == pytest.approx(muon["lora_adapters"])


def test_norms_copies_are_one_gain_per_norm():
    assert modules_to_save_params(SPEC, ("norms",)) == (2 * LAYERS + 1) * H
    assert modules_to_save_params(SPEC, ("embed_tokens", "norms")) == VOCAB * H + (2 * LAYERS + 1) * H


def test_cli_types_muon_and_norms(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--precision", "bf16-pure",
             "--optimizer", "muon", "--seq", "512", "--recompute", "full", "--lora-rank", "8",
             "--modules-to-save", "embed_tokens,norms", "--json"]
    assert main(flags) == 0
    cli = json.loads(capsys.readouterr().out)["per_gpu"]["breakdown_bytes"]
    assert cli == estimate_memory(SPEC, MemoryWorkload(
        mode="lora", precision="bf16-pure", optimizer="muon", seq_len_tokens=512, recompute="full", lora_rank=8,
        modules_to_save=("embed_tokens", "norms"))).breakdown


def test_muon_step_temporaries_foreach_only_for_the_adamw_group():
    # qa50 D1: Muon steps the hidden matrices one by one (KellerJordan/Muon muon.py at 857d1adc): the step adds the
    # fp32 master gradients (DDP, as for SGD), the largest matrix's Newton-Schulz set and, under foreach, one fp32
    # state-sized temporary for the AdamW group only (embeddings, head, norms), not for every parameter.
    adamw_part = muon_adamw_params(SPEC.embedding_params, H, LAYERS)
    ns = muon_step_temporary_bytes(H, 11008, 2.0)
    sgd, muon = _train("sgd"), _train("muon")
    fused = _train("muon", optimizer_impl="fused")
    assert muon["optimizer_step_temporaries"] - sgd["optimizer_step_temporaries"] == pytest.approx(
        ns + 4 * adamw_part, rel=1e-6)
    assert fused["optimizer_step_temporaries"] - sgd["optimizer_step_temporaries"] == pytest.approx(ns, rel=1e-6)
    # Far below AdamW's foreach temporary for every parameter (4 bytes each).
    assert muon["optimizer_step_temporaries"] < _train("adamw")["optimizer_step_temporaries"] - 3 * SPEC.params


def test_muon_assumptions_name_what_is_counted(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "train", "--optimizer", "muon", "--seq", "512",
             "--recompute", "full"]
    assert main(flags) == 0
    out = capsys.readouterr().out
    assert "foreach AdamW)" not in out  # the all-parameters line of AdamW
    assert "Newton-Schulz temporaries of the largest one" in out
    params = SPEC.params
    blended = 12 + 4 * muon_adamw_params(SPEC.embedding_params, H, LAYERS) / params
    assert (f"12 bytes/param for the hidden matrices, 16 for the embeddings, LM head and norms that AdamW steps "
            f"({muon_adamw_params(SPEC.embedding_params, H, LAYERS):,} parameters), {blended:.1f} bytes/param") in out


def test_lora_muon_copies_text_gives_their_bytes(capsys):
    # qa50 D2: the copies' bytes per parameter are AdamW's (16 in bf16 mixed precision), not the adapters' 12.
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--optimizer", "muon", "--seq", "512",
             "--recompute", "full", "--modules-to-save", "embed_tokens,norms"]
    assert main(flags) == 0
    out = capsys.readouterr().out
    assert "adapters: 12 bytes per trainable parameter" in out
    assert "16 bytes per parameter: Muon hands them to AdamW" in out
    assert "at the adapters' bytes per parameter" not in out


def test_empty_modules_to_save_is_an_error(capsys):
    flags = ["estimate", "memory", "--config", str(CONFIG), "--mode", "lora", "--modules-to-save", " "]
    assert main(flags) == 2
    assert "--modules-to-save: the value is empty" in capsys.readouterr().err
