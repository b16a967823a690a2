"""Regressions found using the Plan part by hand (hands-on QA): each test failed before its fix."""

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.cli import main
from gpudesk.paths import examples_dir
from gpudesk.planner import PlanInputError, load_profile, plan, plan_to_dict
from gpudesk.planner.sheet import build_sheet


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _profile(tmp_path, text, name="p.toml"):
    path = tmp_path / name
    path.write_text('name = "qa"\n' + text, encoding="utf-8")
    return path


def test_price_override_for_a_gpu_not_in_the_catalog_is_named(catalog, tmp_path):
    # A typo in [tco.gpu_price_overrides_usd] used to be ignored silently: the plan ran on catalog prices.
    req = load_profile(_profile(tmp_path, '[model]\nmodel = "llama-2-7b"\n[data]\nsample_count = 1000\n'
                                          '[tco.gpu_price_overrides_usd]\n"a100-80-sxm" = 15000\n'))
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "tco.gpu_price_overrides_usd"
    assert "a100-80-sxm" in info.value.detail and "a100-80-sxm4" in info.value.detail


def test_network_link_must_be_a_network(catalog, tmp_path):
    # PCIe is not a link between servers; it used to be accepted as operations.network_link.
    req = load_profile(_profile(tmp_path, '[model]\nmodel = "llama-2-7b"\n[data]\nsample_count = 1000\n'
                                          '[operations]\nnetwork_link = "pcie4-x16"\n'))
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "operations.network_link" and "ib-ndr" in info.value.detail


def test_nothing_fits_message_names_the_deciding_reasons(tmp_path, capsys):
    # A 100 W power budget rules out every card; the message used to list five Volta BF16 rejections only.
    path = _profile(tmp_path, '[model]\nmodel = "llama-2-7b"\n[data]\nsample_count = 1000\n'
                              '[operations]\npower_budget_w = 100\n')
    assert main(["plan", "--profile", str(path), "--no-my-prices"]) == 1
    err = capsys.readouterr().err
    assert "power budget" in err and "BF16" in err
    assert err.count("Volta has no BF16") == 1


def test_nccl_check_is_runnable_across_servers(catalog):
    # 256 GPUs in 32 HGX servers: "all_reduce_perf -g 256" cannot run (-g is GPUs per process on one node).
    data = plan_to_dict(plan(load_profile(examples_dir() / "pretraining-70b.toml"), catalog))
    top = data["candidates"][0]
    assert top["servers"] > 1
    nccl = next(c for c in build_sheet(data, 0, catalog=catalog).checks if c.name.startswith("nccl-tests"))
    per_server = top["count"] // top["servers"]
    assert f"-g {top['count']}" not in nccl.how
    assert f"mpirun -np {top['count']} -N {per_server}" in nccl.how and "-g 1" in nccl.how
    assert "ib-ndr" in nccl.passes_when or "InfiniBand" in nccl.passes_when


def test_estimate_tensor_parallel_spreads_over_that_many_gpus(capsys):
    # --tp 2 without --gpus used to fail with "2 does not divide the 1 GPUs".
    assert main(["estimate", "memory", "--model", "llama-2-13b", "--tp", "2", "--json"]) == 0
    tp2 = json.loads(capsys.readouterr().out)["per_gpu"]
    assert main(["estimate", "memory", "--model", "llama-2-13b", "--json"]) == 0
    tp1 = json.loads(capsys.readouterr().out)["per_gpu"]
    assert tp2["breakdown_bytes"]["weights"] == pytest.approx(tp1["breakdown_bytes"]["weights"] / 2, rel=0.01)
    assert main(["estimate", "memory", "--model", "llama-2-13b", "--tp", "3", "--gpus", "4"]) == 2
    assert "--tp" in capsys.readouterr().err


def test_training_share_stretches_the_time_to_result(catalog):
    # "Training share of GPU time" 0.5 means the cards train half the time: the time to result doubles. It used
    # to be ignored, so a shared cluster looked twice as fast against the deadline.
    full = load_profile(examples_dir() / "startup-mvp-7b.toml")
    half = load_profile(examples_dir() / "startup-mvp-7b.toml")
    full.workload.training_share, half.workload.training_share = 1.0, 0.5
    a = {(c.gpu_id, c.count): c for c in plan(full, catalog).candidates}
    b = {(c.gpu_id, c.count): c for c in plan(half, catalog).candidates}
    key = ("rtx-a6000", 1)
    assert b[key].time_to_result_s == pytest.approx(2 * a[key].time_to_result_s, rel=1e-6)
    assert b[key].step_time_s == pytest.approx(a[key].step_time_s)
    assert any("training share 50%" in d for d, _ in b[key].rationale)


def test_qps_target_of_a_training_plan_is_not_silently_dropped(catalog, tmp_path):
    req = load_profile(_profile(tmp_path, '[model]\nmodel = "llama-2-7b"\nmode = "lora"\n[data]\nsample_count = 100000\n'
                                          '[workload]\ntarget_qps = 50\ntraining_share = 0.7\n'))
    # a mixed workload (training share 0.7): the plan document carries the serving side, sized at the target
    from gpudesk.planner.mixed import plan_document

    document = plan_document(req, catalog)
    assert document.serving_side is not None and document.serving_side.target_qps == 50
    assert document.serving_side.top is not None and document.serving_side.top.qps_capacity >= 50
    # training only (share 1): the QPS target cannot be served by these GPUs, and the plan says so
    req.workload.training_share = 1.0
    result = plan(req, catalog)
    assert any("workload.target_qps" in w and "mode = \"inference\"" in w for w in result.warnings)


def test_attention_flops_follow_the_palm_formula():
    from gpudesk.sizing.time import attention_flops_per_token

    # PaLM (Chowdhery et al. 2022, appendix B): 6N + 12 L H Q T per token for training, i.e. 4 L d_attn T for the
    # forward pass over a full (non-causal) context; a causal prompt averages half of it.
    assert attention_flops_per_token(32, 4096, 2048, causal=False) == 4 * 32 * 4096 * 2048
    assert attention_flops_per_token(32, 4096, 2048) == 2 * 32 * 4096 * 2048


def test_long_prompt_prefill_counts_attention(catalog, tmp_path):
    # A 30,000-token prompt on Mixtral: causal attention adds 2 x 32 x 4096 x 30000 = 7.9 GFLOP per token to the
    # linear 2 x 12.9 B active params = 25.8 GFLOP (+30 %); prefill used to count only the linear part, so
    # long-context QPS came out too high. The time to first token at the target rate is at least the prefill's
    # matmuls plus its causal attention, each at its measured rate (gpudesk.sizing.serve_step), and queueing at
    # 2 QPS only adds to it. Alone (batch 1) the prompt takes its 8192-token chunks' matmuls and attention plus, per
    # chunk, one read of the weights and the fixed per-layer and all-reduce times, and its tokens' elementwise traffic.
    from gpudesk.sizing.serve_step import step_model
    from gpudesk.sizing.speed_serve import ServeLoad, serve_speed

    req = load_profile(_profile(tmp_path, '[model]\nmodel = "mixtral"\nmode = "inference"\n[workload]\ntraining_share = 0\n'
                                          'target_qps = 2\nprompt_tokens = 30000\noutput_tokens = 500\n'))
    result = plan(req, catalog)
    top = result.top
    spec = result.model
    t = int(top.sharding[2:]) if top.sharding else 1
    gpu = catalog.gpu(top.gpu_id)
    link = catalog.link(top.interconnect) if t > 1 else None
    alone = ServeLoad(input_tokens=30000, output_tokens=500, batch=1, tp=t)
    steps = step_model(spec, gpu, alone, link, "bf16")
    linear_s = 30000 * steps.flops_per_token / steps.flops_per_s
    attention_s = 30000 * 30000 / 2 * steps.attention_flops_per_context_token / steps.attention_flops_per_s
    assert attention_s > 0.2 * linear_s
    chunks = -(-30000 // 8192)
    fixed_s = chunks * (steps.weight_bytes_read(8192) / steps.bytes_per_s + 30000 / chunks * steps.kv_bytes_per_token /
                        steps.bytes_per_s + steps.layers * steps.layer_latency_s + steps.allreduce_s(8192))
    fixed_s += 30000 * steps.elementwise_bytes_per_token / steps.bytes_per_s
    single = serve_speed(spec, gpu, alone, link).ttft_s
    assert linear_s + attention_s <= single <= linear_s + attention_s + fixed_s
    assert top.ttft_s >= single
    line = next(d for d, _s in top.rationale if d.startswith("engine at"))
    assert "time to first token" in line and "KV pool" in line


def test_unreadable_profile_message_names_the_file_once(tmp_path, capsys):
    missing = tmp_path / "nope.toml"
    assert main(["plan", "--profile", str(missing)]) == 2
    err = capsys.readouterr().err
    assert f"profile {missing}: cannot read" in err and ": profile:" not in err


@pytest.mark.parametrize("flag, value", [("--grad-accum", "0"), ("--grad-accum", "-3"), ("--kv-block-tokens", "0")])
def test_estimate_memory_refuses_step_and_block_counts_below_one(capsys, flag, value):
    # QA: --grad-accum 0/-3 ran as 1; --kv-block-tokens 0 silently dropped paging (contiguous KV cache).
    assert main(["estimate", "memory", "--model", "llama-3.1-8b", "--mode", "inference", flag, value]) == 2
    err = capsys.readouterr().err
    assert flag in err and "at least 1" in err


def test_estimate_memory_text_is_chinese_and_aligned_under_zh_cn(capsys):
    # QA: the workload line ("mode inference, context 2048, ...") and the table head ("component GiB bytes") stayed
    # English under zh_CN, and the Chinese total label pushed its numbers two cells per character to the right.
    from gpudesk.cli.columns import display_width

    assert main(["--lang", "zh_CN", "estimate", "memory", "--model", "llama-3.1-8b", "--mode", "inference",
                 "--weight-format", "q4_k_m"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert not any(line.startswith(("mode ", "component")) for line in lines)
    table = [line for line in lines if line.startswith(("权重", "KV 缓存", "每 GPU 合计"))]
    assert len(table) == 3 and len({display_width(line) for line in table}) == 1, table


def test_moe_permutation_setting_on_a_dense_model_is_said(catalog, tmp_path):
    # The wizard's "MoE token permutation" on a dense model changed nothing and said nothing (QA pass).
    dense = load_profile(_profile(tmp_path, '[model]\nmodel = "llama-2-7b"\nmoe_permute_fusion = false\n'
                                            '[data]\nsample_count = 1000\n'))
    assert any("has no experts" in w for w in plan(dense, catalog).warnings)
    moe = load_profile(_profile(tmp_path, '[model]\nmodel = "mixtral-8x7b"\nmoe_permute_fusion = false\n'
                                          '[data]\nsample_count = 1000\n', name="moe.toml"))
    assert not any("has no experts" in w for w in plan(moe, catalog).warnings)
