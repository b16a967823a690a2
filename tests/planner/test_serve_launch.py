"""A serving option of a plan opens "Will it fit?" with the engine launch that checks it (gpudesk.planner.serve_launch)."""

from __future__ import annotations

from pathlib import Path

from gpudesk.catalog import open_catalog
from gpudesk.planner.document import PlanDocument, PlanOption
from gpudesk.planner.requirement import ModelMemory, Requirement, SoftwareStack, WorkloadMix
from gpudesk.planner.serve_launch import is_serving_option, launch_inputs
from gpudesk.sizing.engines.device import catalog_device
from gpudesk.sizing.engines.fit import engine_fit
from gpudesk.sizing.shapes import spec_from_catalog

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "examples" / "chat-api-qps200.toml"



OPTION = PlanOption(gpu_id="l40s", gpu_name="L40S", count=6, tensor_parallel=2, qps_capacity=210.0)


def _doc(libraries: list[str], kv: str = "fp16", model: str = "llama-3-8b") -> PlanDocument:
    req = Requirement(model=ModelMemory(model=model, mode="inference", weight_format="int8", kv_precision=kv),
                      workload=WorkloadMix(prompt_tokens=512, output_tokens=128, max_concurrent_sequences=64),
                      software=SoftwareStack(libraries=libraries))
    return PlanDocument(name="t", requirement=req, workload_kind=None, model=None, memory=None, candidates=[OPTION])


def test_a_serving_option_maps_onto_the_engine_settings_of_the_named_engine() -> None:
    vllm = launch_inputs(_doc(["vllm"]), OPTION)
    assert (vllm.engine, vllm.model_id, vllm.gpu_id, vllm.gpus, vllm.weight_format) == (
        "vllm", "llama-3-8b", "l40s", 2, "int8")
    assert vllm.engine_args == ("max_model_len=640", "max_num_seqs=64") and vllm.notes == ()
    sglang = launch_inputs(_doc(["transformers", "SGLang"], kv="fp8"), OPTION)
    assert sglang.engine_args == ("context_length=640", "max_running_requests=64", "kv_cache_dtype=fp8_e5m2")
    llama = launch_inputs(_doc(["llama.cpp"], kv="fp8"), OPTION)
    assert llama.engine == "llamacpp" and llama.engine_args == ("n_ctx=640", "parallel=64") and llama.notes
    none = launch_inputs(_doc([]), OPTION)
    assert none.engine == "vllm" and none.notes
    by_repo = launch_inputs(_doc(["vllm"], model="meta-llama/Llama-3.1-70B"), OPTION)
    assert by_repo.model_id == "llama-3.1-70b"
    unknown = launch_inputs(_doc(["vllm"], model="configs/my-model.json"), OPTION)
    assert unknown.model_id is None and "not in the catalog" in unknown.notes[0]


def test_only_serving_options_open_the_engine_check() -> None:
    assert is_serving_option(OPTION)
    assert not is_serving_option(PlanOption(gpu_id="h100-sxm5", gpu_name="H100", count=8, qps_capacity=None))


def test_the_top_option_of_a_real_serving_plan_starts_in_its_engine() -> None:
    from gpudesk.planner import load_profile, plan

    catalog = open_catalog()
    doc = PlanDocument.from_plan(plan(load_profile(EXAMPLE, catalog), catalog))
    top = doc.candidates[0]
    inputs = launch_inputs(doc, top)
    assert inputs.engine == "vllm" and inputs.gpus == top.tensor_parallel and inputs.gpu_id == top.gpu_id
    r = engine_fit(inputs.engine, spec_from_catalog(catalog.model(str(inputs.model_id))),
                   catalog_device(catalog.gpu(inputs.gpu_id)), list(inputs.engine_args),
                   weight_format=inputs.weight_format, gpus=inputs.gpus, tensor_parallel=inputs.gpus)
    # the plan's option holds its 64 sequences of 640 tokens, and so does the engine's KV pool
    assert r.fits and r.max_concurrency >= 64 and "--max-num-seqs 64" in r.command
