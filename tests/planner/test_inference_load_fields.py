"""The wizard's inference fields reach the memory estimate as the CLI's --fused-qkv-load and --tp-replicated-vocab."""

from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile
from gpudesk.planner.workload import memory_workload


def test_profile_field_sets_the_workload_flag(tmp_path):
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert memory_workload(req, gpus=1).fused_qkv_load is False
    req.model.fused_qkv_load = True
    assert memory_workload(req, gpus=1).fused_qkv_load is True


def test_replicated_vocab_field_sets_the_workload_flag():
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert memory_workload(req, gpus=1).tp_replicated_vocab is False
    req.model.tp_replicated_vocab = True
    assert memory_workload(req, gpus=1).tp_replicated_vocab is True


def test_prefill_kv_kept_field_sets_the_workload_flag():
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert memory_workload(req, gpus=1).prefill_kv_kept is False
    req.model.prefill_kv_kept = True
    assert memory_workload(req, gpus=1).prefill_kv_kept is True


def test_gptq_kernel_fields_set_the_workload():
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert (memory_workload(req, gpus=1).gptq_kernel, memory_workload(req, gpus=1).max_input_tokens) == ("none", 2048)
    req.model.gptq_kernel, req.model.max_input_tokens = "exllama-act-order", 4096
    w = memory_workload(req, gpus=1)
    assert (w.gptq_kernel, w.max_input_tokens) == ("exllama-act-order", 4096)
