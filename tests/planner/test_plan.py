"""The planner on the shipped examples and on constraints that must reject or warn."""

import json

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.paths import examples_dir
from gpudesk.planner import PlanInputError, load_profile, plan, plan_to_dict

GIB = 1024**3


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def _load(name):
    return load_profile(examples_dir() / f"{name}.toml")


def test_article_case_top_candidate(catalog):
    result = plan(_load("article-13b-finetune"), catalog)
    assert result.workload_kind == "large-model-training"
    top = result.top
    assert top.fits and top.per_gpu_memory_bytes < top.safe_line_bytes < top.usable_memory_bytes
    assert top.interconnect.startswith("nvlink")
    assert top.meets_deadline is True and top.time_to_result_s < 7 * 86400
    assert top.count >= 2  # 13B full fine-tune does not fit one card
    # The article's own choice, 8 x A100 80GB SXM4 on NVLink 3, is a candidate at about 62 GB per card.
    a100 = next(c for c in result.candidates if c.gpu_id == "a100-80-sxm4" and c.count == 8)
    assert a100.interconnect == "nvlink3" and 55 * GIB < a100.per_gpu_memory_bytes < 64 * GIB and a100.fits
    assert any("40.0 TB" in w for w in result.warnings)  # 20 M x 2 MB disagrees with "12 TB"
    assert all(len(r) == 2 and r[1] for r in top.rationale)


def test_article_case_json_shape(catalog):
    data = json.loads(json.dumps(plan_to_dict(plan(_load("article-13b-finetune"), catalog))))
    assert data["workload_kind"] == "large-model-training"
    assert data["memory"]["total_bytes"] == sum(data["memory"]["breakdown_bytes"].values())
    top = data["candidates"][0]
    for key in ("gpu_id", "gpu_name", "count", "interconnect", "per_gpu_memory_bytes", "usable_memory_bytes", "fits",
                "time_to_result_s", "meets_deadline", "tco_3y_usd", "tco_breakdown_usd", "warnings", "rationale"):
        assert key in top
    assert top["tco_3y_usd"] == pytest.approx(sum(v for v in top["tco_breakdown_usd"].values() if v is not None))
    # The training estimate's expected error band and what it implies for the step and the time to result.
    band = top["speed_error_band"]
    assert band["class"] and band["rows"] >= 8 and band["ratio_p10"] <= 1 <= band["ratio_p90"]
    assert band["time_to_result_range_s"][0] <= top["time_to_result_s"] <= band["time_to_result_range_s"][1]
    assert 0 < top["flops_only_time_to_result_s"] < top["time_to_result_s"]


def test_unmeetable_deadline_reports_closest(catalog):
    req = _load("article-13b-finetune")
    req.workload.deadline_s = 3600.0
    result = plan(req, catalog)
    assert result.deadline_met_by_any is False
    assert result.closest and all(c.deadline_miss_s > 0 for c in result.closest)
    misses = [c.deadline_miss_s for c in result.closest]
    assert misses == sorted(misses)
    assert any("misses it by" in w for w in result.warnings)
    assert result.top.meets_deadline is False


def test_fp8_and_cuda_gates(catalog):
    req = _load("article-13b-finetune")
    req.model.precision = "fp8"
    req.software.framework_version = "2.4.0"
    result = plan(req, catalog)
    reasons = {r.gpu_id: " ".join(r.reasons) for r in result.rejected if r.count == 0}
    assert "FP8" in reasons["a100-80-sxm4"]
    assert "sm_100" in reasons["b200"] and "12.8" in reasons["b200"]  # CUDA 12.1 cannot run Blackwell
    # Hopper and Ada cards with FP8 (H20, H800 and L20 are Hopper / Ada China-market SKUs; the GH200 96GB since the
    # catalog has a server for it, the HPE Cray EX254n quad node).
    assert all(c.gpu_id.startswith(("h100", "h200", "h800", "h20", "l40s", "l4", "l20", "rtx-6000-ada", "gh200"))
               for c in result.candidates)
    req.software.framework_version = "2.0.1"
    old = plan(req, catalog)
    assert any("PyTorch >= 2.1" in " ".join(r.reasons) for r in old.rejected if r.gpu_id == "h100-sxm5")


def test_vgpu_rules_out_consumer_cards(catalog):
    req = _load("student-project")
    top_before = plan(req, catalog).top
    assert top_before.gpu_id.startswith("rtx")  # consumer cards are fine for a student
    req.software.require_vgpu = True
    result = plan(req, catalog)
    assert not any(c.gpu_id in ("rtx4080", "rtx4090", "rtx3090", "rtx5090") for c in result.candidates)
    assert any("vGPU" in " ".join(r.reasons) for r in result.rejected if r.gpu_id == "rtx4080")


def test_existing_server_and_power_budget(catalog):
    req = _load("medical-3d-unet")
    req.operations.existing_server = "pcie-2u-gen4"
    req.operations.free_slots = 2
    req.operations.power_budget_w = 700.0
    result = plan(req, catalog)
    assert result.candidates
    for c in result.candidates:
        assert c.server_id == "pcie-2u-gen4" and c.count <= 2 and c.gpu_power_w <= 700
    req.operations.existing_server = "no-such-box"
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "operations.existing_server"


def test_risk_model_prefers_low_power_inference_card(catalog):
    result = plan(_load("risk-model-qps40"), catalog)
    assert result.workload_kind == "high-concurrency-inference"
    top = result.top
    assert top.count == 1 and top.meets_qps and top.qps_capacity >= 40
    assert top.gpu_power_w <= 165  # an A10/L4/A30-class card, not an A100 (article 2.2)
    assert not any(c.gpu_id.startswith("rtx40") for c in result.candidates)  # production: no consumer cards


def test_chat_api_sizes_count_to_qps(catalog):
    result = plan(_load("chat-api-qps200"), catalog)
    for c in result.candidates:
        assert c.meets_qps and c.qps_capacity >= 200
        assert c.time_to_result_s is None
    assert result.memory.component("kv_cache") > 0


@pytest.mark.parametrize("name", ["student-project", "startup-mvp-7b", "pretraining-70b", "medical-3d-unet"])
def test_training_examples_have_a_fitting_candidate(catalog, name):
    result = plan(_load(name), catalog)
    assert result.top is not None and result.top.fits
    assert result.top.time_to_result_s > 0


def test_unknown_model_and_bad_config(catalog, tmp_path):
    req = _load("article-13b-finetune")
    req.model.model = "no-such-model-xyz"
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "model.model"
    bad = tmp_path / "config.json"
    bad.write_text("{not json", encoding="utf-8")
    req.model.model = None
    req.model.config_path = str(bad)
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "model.config_path"


def test_nothing_fits_gives_reasons(catalog):
    req = _load("article-13b-finetune")
    req.model.model = None
    req.model.params = 2_000_000_000_000
    req.operations.max_gpus = 8
    result = plan(req, catalog)
    assert result.top is None or not result.top.fits
    assert any("does not fit" in " ".join(r.reasons) for r in result.rejected)


def test_cnn_without_flops_names_the_field(catalog):
    req = _load("student-project")
    req.model.train_flops_per_sample = None
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "model.train_flops_per_sample"
    req = _load("student-project")
    req.model.activation_bytes_per_sample = None
    with pytest.raises(PlanInputError) as info:
        plan(req, catalog)
    assert info.value.field == "model.activation_bytes_per_sample"


def test_article_measurements_reproduced(catalog):
    # Article 4.3 measured on 8 x A100 80GB SXM4 (DGX A100): 1.83 s per step, peak 61.3 GB per card (62 GB planned,
    # under the 64 GB safe line), all-reduce 4.7 % of the step, done within 7 days. The planner times every option
    # with the speed model of `gpudesk estimate speed` (issue 24: one truth); with the profile's micro-batch of
    # 8 x 512 tokens per GPU it gives ~2.03 s, 11 % slower than measured: inside the band its published A100 runs
    # give, which the candidate states.
    result = plan(_load("article-13b-finetune"), catalog)
    a100 = next(c for c in result.candidates if c.gpu_id == "a100-80-sxm4" and c.count == 8)
    assert a100.micro_batch_size == 8 and a100.gradient_accumulation == 1
    assert a100.step_time_s == pytest.approx(1.83, rel=0.15)
    band = a100.speed_error_band
    assert band is not None and band.klass == "gpu:a100-80-sxm4" and band.rows >= 8
    low, high = band.time_range(a100.step_time_s)
    assert low <= 1.83 <= high
    assert a100.per_gpu_memory_bytes / 1e9 == pytest.approx(62, rel=0.10)
    assert a100.comm_share < 0.10
    # The article finished inside 7 days; at its measured step the planner's step count says the same, and the
    # model's own 7.3 days is a miss the trace names, with the band that holds the measured run.
    steps = a100.time_to_result_s / a100.step_time_s
    assert steps * 1.83 < 7 * 86400 < a100.time_to_result_s
    assert a100.meets_deadline is False and a100.deadline_miss_s == pytest.approx(a100.time_to_result_s - 7 * 86400)
    decisions = [d for d, _ in a100.rationale]
    assert any("misses by" in d for d in decisions)
    band_line = next(d for d in decisions if d.startswith("expected error: on 18 published runs"))
    assert "gpu:a100-80-sxm4" in band_line and " d " in band_line and " to " in band_line
    assert any(d.startswith("step 2.0") and "from the speed model" in d for d in decisions)
    assert any(d.startswith("ranking uses this step; the FLOPs-only rule") for d in decisions)


def test_serving_replica_kv_is_per_gpu_with_replicated_heads(catalog):
    # Qwen3-30B-A3B has 4 KV heads: at tensor parallel 8 each GPU keeps one whole head (vLLM get_num_kv_heads),
    # so the planner's batch must be sized with 24 KiB/token per GPU, not 12.
    from gpudesk.planner.candidates import PlanContext
    from gpudesk.planner.profile import requirement_from_dict
    from gpudesk.planner.serve_eval import replica_shapes
    from gpudesk.sizing.memory_inference import kv_sequence_bytes
    from gpudesk.sizing.shapes import spec_from_catalog

    req = requirement_from_dict({"version": 1, "name": "Qwen3 MoE long-context chat",
                                 "model": {"model": "qwen3-30b-a3b", "mode": "inference"},
                                 "workload": {"training_share": 0.0, "target_qps": 5.0, "prompt_tokens": 32000,
                                              "output_tokens": 768, "max_concurrent_sequences": 256}})
    spec = spec_from_catalog(catalog.model("qwen3-30b-a3b"))
    gpu = next(g for g in catalog.gpus() if g.id.startswith("h100"))
    shapes = {t: (batch, est, f) for t, batch, est, f in replica_shapes(PlanContext.build(req, spec, catalog), gpu)}
    assert 8 in shapes
    batch, est, f = shapes[8]
    per_seq = kv_sequence_bytes(spec, 32768, "bf16", 8)
    assert per_seq == 48 * 2 * 1 * 128 * 2 * 32768
    assert est.component("kv_cache") == batch * per_seq
    assert f.under_safe_line  # the batch was chosen from the true per-GPU figure


def test_inference_plan_uses_the_checkpoint_weight_format(catalog):
    # gpt-oss ships MXFP4 experts (config quantization_config): about 61 GiB of weights, not 217 GiB of bf16.
    from gpudesk.planner.profile import requirement_from_dict

    req = requirement_from_dict({"version": 1, "name": "gpt-oss-120b chat",
                                 "model": {"model": "gpt-oss-120b", "mode": "inference"},
                                 "workload": {"training_share": 0.0, "target_qps": 2.0, "prompt_tokens": 2048,
                                              "output_tokens": 512, "max_concurrent_sequences": 16}})
    result = plan(req, catalog)
    assert result.requirement.model.weight_format == "mxfp4"
    assert 58 * 2**30 < result.memory.component("weights") < 63 * 2**30
    assert any(c.gpu_id.startswith("h100") and c.tensor_parallel == 1 for c in result.candidates)


def test_article_data_disagreement_is_a_note_with_its_fix(catalog):
    # New-user test: "20,000,000 x 2 MB = 40 TB but dataset is 12 TB" on every run of the bundled article case, with
    # no word on what it changes or how to settle it. The article itself gives both figures.
    result = plan(_load("article-13b-finetune"), catalog)
    note = next(w for w in result.warnings if "40.0 TB" in w)
    assert note.startswith("Note on the data answers: 20,000,000 samples x 2 MB make 40.0 TB")
    assert "3.3x the read rate of 12.0 TB per epoch" in note
    assert "set data.sample_bytes to 600,000" in note
    req = _load("article-13b-finetune")
    req.data.sample_bytes = 600_000  # the fix the note gives: the note goes away
    assert not any("Note on the data answers" in w for w in plan(req, catalog).warnings)


def test_plan_says_where_the_speed_model_changes_the_verdict(catalog):
    # Issue 24 item 4: training times come from the speed model; where that flips a deadline verdict of the old
    # FLOPs-only rule (or the fastest option), the plan's trace says so with both times.
    result = plan(_load("article-13b-finetune"), catalog)
    deadline = result.requirement.workload.deadline_s
    flipped = [c for c in result.candidates if c.flops_only_time_to_result_s
               and c.time_to_result_s > deadline >= c.flops_only_time_to_result_s]
    assert any(c.gpu_id == "a100-80-sxm4" and c.count == 8 for c in flipped)
    note = next(d for d, _ in result.rationale if "meet the deadline under the FLOPs-only rule" in d)
    assert note.startswith(f"{len(flipped)} option(s) meet the deadline under the FLOPs-only rule but miss it")
    assert flipped[0].label in note
    for c in result.candidates:
        if c.flops_only_time_to_result_s:
            assert c.flops_only_time_to_result_s < c.time_to_result_s  # the rule leaves out attention, kernels, comm


def test_plan_and_estimate_speed_give_the_same_step(catalog, capsys):
    # One truth (issue 24 item 1): the planner's 8 x A100 option of the article case, typed into
    # `gpudesk estimate speed` with the layout the plan chose, gives the same step time.
    from gpudesk.cli import main
    from gpudesk.paths import examples_dir

    result = plan(_load("article-13b-finetune"), catalog)
    a100 = next(c for c in result.candidates if c.gpu_id == "a100-80-sxm4" and c.count == 8)
    assert main(["estimate", "speed", "--profile", str(examples_dir() / "article-13b-finetune.toml"),
                 "--gpu", "a100-80-sxm4", "--count", "8", "--server", a100.server_id,
                 "--micro-batch", str(a100.micro_batch_size),
                 "--global-batch", str(a100.micro_batch_size * a100.gradient_accumulation * 8),
                 "--sharding", a100.sharding, "--recompute", a100.recompute, "--framework", "deepspeed", "--json"]) == 0
    train = json.loads(capsys.readouterr().out)["train"]
    assert train["step_time_s"] == pytest.approx(a100.step_time_s, rel=1e-9)
