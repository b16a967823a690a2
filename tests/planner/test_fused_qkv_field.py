"""The wizard's "q/k/v fused after loading" field reaches the memory estimate as the CLI's --fused-qkv-load."""

from gpudesk.paths import examples_dir
from gpudesk.planner import load_profile
from gpudesk.planner.workload import memory_workload


def test_profile_field_sets_the_workload_flag(tmp_path):
    req = load_profile(examples_dir() / "article-13b-finetune.toml")
    assert memory_workload(req, gpus=1).fused_qkv_load is False
    req.model.fused_qkv_load = True
    assert memory_workload(req, gpus=1).fused_qkv_load is True
