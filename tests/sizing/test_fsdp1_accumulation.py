"""FSDP1 under gradient accumulation: no_sync() keeps full unsharded gradients; the root unit stays unsharded."""

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, estimate_memory, spec_from_hf_config
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
L7 = spec_from_hf_config(CONFIGS / "llama-2-7b.config.json")
GEMMA2 = spec_from_hf_config(CONFIGS / "gemma-2b-untied-head.config.json")


def _fsdp(spec=L7, **kw) -> dict[str, int]:
    base = dict(mode="train", precision="bf16-pure", optimizer="adamw", seq_len_tokens=512, micro_batch_size=4,
                gpus=4, sharding="fsdp", fsdp_version=1, recompute="full", gradient_accumulation=True)
    return dict(estimate_memory(spec, MemoryWorkload(**{**base, **kw})).breakdown)


def test_no_sync_accumulates_the_whole_models_gradients_on_every_rank():
    parts = _fsdp()
    assert parts["unsharded_gradients"] == L7.params * 2  # bf16 gradients of all 6.7 B parameters, not a quarter
    assert "gradients" not in parts  # no shards until the syncing micro-batch


def test_a_loop_that_syncs_every_micro_batch_or_fsdp2_keeps_shards():
    for parts in (_fsdp(fsdp1_no_sync=False), _fsdp(fsdp_version=2), _fsdp(gradient_accumulation=False)):
        assert "unsharded_gradients" not in parts
    assert _fsdp(fsdp1_no_sync=False)["gradients"] == L7.params * 2 // 4


def test_fsdp1_root_unit_embeddings_and_untied_head_stay_unsharded():
    v1 = _fsdp(GEMMA2, fsdp1_no_sync=False)["gathered_layers"]
    v2 = _fsdp(GEMMA2, fsdp_version=2)["gathered_layers"]
    # Gemma-2B with its own LM head: 2 x 256000 x 2048 bf16 parameters in the root FlatParameter.
    assert v1 > GEMMA2.embedding_params * 2
    assert v1 > v2  # FSDP2 reshards the embedding and head units after use


def test_harness_and_cli_read_the_sync_each_batch_switch(capsys):
    row = {"method": "full", "sharding": "fsdp", "fsdp_version": 1, "gradient_accumulation_steps": 4}
    assert case_workload(row).fsdp1_no_sync
    assert not case_workload(dict(row, fsdp1_sync_each_batch=True)).fsdp1_no_sync
    args = ["estimate", "memory", "--config", str(CONFIGS / "llama-2-7b.config.json"), "--mode", "train",
            "--precision", "bf16-pure", "--optimizer", "adamw", "--seq", "512", "--batch", "4", "--gpus", "4",
            "--sharding", "fsdp", "--fsdp-version", "1", "--recompute", "full", "--grad-accum", "4"]
    assert main(args) == 0
    assert "no_sync()" in capsys.readouterr().out
    assert main(args + ["--fsdp1-sync-each-batch"]) == 0
    assert "no_sync()" not in capsys.readouterr().out


def test_lora_under_fsdp1_keeps_the_16_bit_root_unit_unsharded():
    llama70 = spec_from_hf_config(CONFIGS / "llama-3.1-70b.config.json")
    w = dict(mode="qlora", precision="bf16", seq_len_tokens=512, gpus=2, sharding="fsdp", recompute="full",
             offload="all")
    v1 = estimate_memory(llama70, MemoryWorkload(**w, fsdp_version=1))
    v2 = estimate_memory(llama70, MemoryWorkload(**w, fsdp_version=2))
    # Embeddings and LM head (2 x 128256 x 8192) stay bf16 and whole on each GPU, also with CPU offload.
    assert v1.component("gathered_layers") - v2.component("gathered_layers") == 2 * 128256 * 8192 * 2
    assert any("root unit" in a for a, _ in v1.assumptions)
    one_gpu = dict(w, gpus=1, sharding="ddp", offload="none")
    assert (estimate_memory(llama70, MemoryWorkload(**one_gpu, fsdp_version=1)).component("gathered_layers")
            == estimate_memory(llama70, MemoryWorkload(**one_gpu, fsdp_version=2)).component("gathered_layers"))
