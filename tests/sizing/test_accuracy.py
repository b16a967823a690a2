"""The estimator against published measured peaks (tests/fixtures/sizing/measured_peaks.jsonl and
measured_peaks_later.jsonl, the rows added after the first tuning).

Floors sit just below what the estimator achieves, so accuracy cannot silently regress. Achieved when set
(2026-12-04): 156 scored cases (171 rows, 24 sources), 84.6 % within 15 %, 96.2 % within 25 %, median absolute
error 5.1 %; inference 37 cases 91.9 % within 15 % (median 2.8 %); QLoRA 42 cases 69 % within 15 % (median 8.8 %);
2-8 GPUs 63 cases 82.5 % within 15 %; the 97 rows added later 86.6 % within 15 % (median 4.2 %): the 17 scored rows
added after the first model changes are all within 15 %, the 21 added after the last ones 76 % (median 4.6 %).
With the pipeline schedule model (2026-12-04, later): 179 scored (the six torchtitan 405B pipeline-parallel rows
now scored, 0.80-0.90), 84.9 % within 15 %, median 5.0 %. The fresh rows (measured_peaks_fresh.jsonl, mapped and
committed before any estimate) are scored apart and carry no floor: 15 rows, 67 % within 15 %, median 10 %; after
the ``standard-compiled`` loss (the fp32 upcast inside torchtitan's compiled loss, six torchtitan rows of 2025-06/08
re-mapped to it from the source at their commit) 93 % within 15 %, median 6.8 % (dev figures unchanged). The
fresh-2 rows (measured_peaks_fresh2.jsonl, collected after that, committed before any estimate, scored once):
17 rows, 7 scorable, 7 of 7 within 15 %, median 5.3 %. With the DTensor sequence-parallel inputs
(``sp_gathered_inputs``, the eight torchtitan TP rows): 87 % within 15 %, >8 GPUs 10 of 11 (was 6 of 11).
With TRL's bf16 recast of embeddings and LM head after the kbit upcast (``kbit_embeddings_bf16``, eight fms one-GPU
rows re-mapped from TRL 0.11.4/0.13.0) and the MLA decode matrices (``mla_decode_weights``; the DeepSeek-V2-Lite AWQ
fresh row re-mapped to its vLLM era): 89 % within 15 %, median 5.0 %, QLoRA 41 of 51 (was 38). The fresh-3 rows
(measured_peaks_fresh3.jsonl, 19 QLoRA runs, committed before any estimate) are scored once and carry no floor:
first score 15 of 19 within 15 %, 18 of 19 within 25 %, median 4.6 % (one GPU 7 of 9, two GPUs 8 of 10); misses: the
accelerated-peft-bnb Mistral one-GPU rows (1.24, 1.31) and the Llama-2-70B FSDP rows (0.81, 0.81). The five two-GPU
configurations appear once per plugin with the same measured figure (both plugins skip the upcast under FSDP).
The fresh-4 rows (measured_peaks_fresh4.jsonl: torchtune's README table of 2024-05, two PEFT MetaMathQA LoRA re-runs,
ATorch FSDP Llama-2-7B on 8-64 GPUs; committed before any estimate, scored once, no floor): first score 4 of 8 scored
rows within 15 %, 6 of 8 within 25 %, median 12.6 % (one GPU 4 of 5; 2-8 GPUs 0 of 3). Misses: torchtune's 2x RTX 4090
LoRA without checkpointing (4.01) and 70B LoRA (2.23), whose "Seq Length" is the max_seq_len cap of padded alpaca
batches, not the tokens run; the 4x RTX 4090 full finetune (0.83). The eight ATorch rows are not scored (the
transformers 4.31 forward returns every layer's KV with use_cache on, kept through backward).
The fresh-5 rows (measured_peaks_fresh5.jsonl, 64 rows: litgpt config-hub tables of 2024-04/07/09, PEFT MetaMathQA
re-runs, universal-llm-trainer's H100 / RTX Pro 6000 table, Qwen2.5/Qwen3 speed benchmarks, torchtitan/torchao
float8; collected while the model was frozen, committed before any estimate): first score 37 of 64 within 15 %, median
12.0 % (full 5/17, QLoRA 6/16, LoRA 16/19, inference 10/12; 2-8 GPUs 1/12). The mechanisms it showed (phi-2's
ungated MLP, the fp32 LM head under the kbit upcast, FSDP1 CPU offload holding its gradient shards in the post-backward
pool) then gave 49 of 64, seen. The fresh-6 rows (measured_peaks_fresh6.jsonl, 29 rows: optimum's GPTQ benchmark,
litgpt 2024-03 tables, lit-gpt quantize tutorial, axolotl and llama-recipes examples), collected after those fixes:
first score 19 of 29 within 15 %, median 10.1 % (inference 12/19: the batch-4/16 generate rows of transformers 4.35
read low).
Modelling DeepSpeed ZeRO-3's optimizer step by sub-group (sub_group_size 1e9) and the 16-bit weight casts autograd
keeps for LoRA under autocast over a frozen fp32 base moved no development row; seen sets: fresh-11 34 of 62 (was 33),
fresh-12 27 of 36 (was 26), fresh-14 26 of 34 (was 25), fresh-7..10, 13 and 15 unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpudesk.sizing.validation import HELD_OUT_SETS, evaluate, summarize

CASES = Path(__file__).resolve().parents[1] / "fixtures" / "sizing" / "measured_peaks.jsonl"
LATER = CASES.with_name("measured_peaks_later.jsonl")
FRESH = CASES.with_name("measured_peaks_fresh.jsonl")
FRESH2 = CASES.with_name("measured_peaks_fresh2.jsonl")
FRESH3 = CASES.with_name("measured_peaks_fresh3.jsonl")
FRESH4 = CASES.with_name("measured_peaks_fresh4.jsonl")
FRESH5 = CASES.with_name("measured_peaks_fresh5.jsonl")
FRESH6 = CASES.with_name("measured_peaks_fresh6.jsonl")
FRESH7 = CASES.with_name("measured_peaks_fresh7.jsonl")
FRESH8 = CASES.with_name("measured_peaks_fresh8.jsonl")
FRESH9 = CASES.with_name("measured_peaks_fresh9.jsonl")
FRESH10 = CASES.with_name("measured_peaks_fresh10.jsonl")
FRESH11 = CASES.with_name("measured_peaks_fresh11.jsonl")
FRESH12 = CASES.with_name("measured_peaks_fresh12.jsonl")
FRESH13 = CASES.with_name("measured_peaks_fresh13.jsonl")
FRESH14 = CASES.with_name("measured_peaks_fresh14.jsonl")
FRESH15 = CASES.with_name("measured_peaks_fresh15.jsonl")
FRESH16 = CASES.with_name("measured_peaks_fresh16.jsonl")
FRESH17 = CASES.with_name("measured_peaks_fresh17.jsonl")
FRESH18 = CASES.with_name("measured_peaks_fresh18.jsonl")
FRESH19 = CASES.with_name("measured_peaks_fresh19.jsonl")
FRESH20 = CASES.with_name("measured_peaks_fresh20.jsonl")
FRESH21 = CASES.with_name("measured_peaks_fresh21.jsonl")
FRESH22 = CASES.with_name("measured_peaks_fresh22.jsonl")
FRESH23 = CASES.with_name("measured_peaks_fresh23.jsonl")
FRESH24 = CASES.with_name("measured_peaks_fresh24.jsonl")
FRESH25 = CASES.with_name("measured_peaks_fresh25.jsonl")
FRESH26 = CASES.with_name("measured_peaks_fresh26.jsonl")
FRESH27 = CASES.with_name("measured_peaks_fresh27.jsonl")
FRESH28 = CASES.with_name("measured_peaks_fresh28.jsonl")
FRESH29 = CASES.with_name("measured_peaks_fresh29.jsonl")
FRESH30 = CASES.with_name("measured_peaks_fresh30.jsonl")
FRESH31 = CASES.with_name("measured_peaks_fresh31.jsonl")
FRESH32 = CASES.with_name("measured_peaks_fresh32.jsonl")
FRESH33 = CASES.with_name("measured_peaks_fresh33.jsonl")
FRESH34 = CASES.with_name("measured_peaks_fresh34.jsonl")
FRESH35 = CASES.with_name("measured_peaks_fresh35.jsonl")
FRESH36 = CASES.with_name("measured_peaks_fresh36.jsonl")
FRESH37 = CASES.with_name("measured_peaks_fresh37.jsonl")
FRESH38 = CASES.with_name("measured_peaks_fresh38.jsonl")
FRESH39 = CASES.with_name("measured_peaks_fresh39.jsonl")
FRESH40 = CASES.with_name("measured_peaks_fresh40.jsonl")
FRESH41 = CASES.with_name("measured_peaks_fresh41.jsonl")
FRESH42 = CASES.with_name("measured_peaks_fresh42.jsonl")
FRESH43 = CASES.with_name("measured_peaks_fresh43.jsonl")
FRESH44 = CASES.with_name("measured_peaks_fresh44.jsonl")
FRESH45 = CASES.with_name("measured_peaks_fresh45.jsonl")
FRESH46 = CASES.with_name("measured_peaks_fresh46.jsonl")
FRESH47 = CASES.with_name("measured_peaks_fresh47.jsonl")
FRESH48 = CASES.with_name("measured_peaks_fresh48.jsonl")
FRESH49 = CASES.with_name("measured_peaks_fresh49.jsonl")
FRESH50 = CASES.with_name("measured_peaks_fresh50.jsonl")
FRESH51 = CASES.with_name("measured_peaks_fresh51.jsonl")
FRESH52 = CASES.with_name("measured_peaks_fresh52.jsonl")
FRESH53 = CASES.with_name("measured_peaks_fresh53.jsonl")
FRESH54 = CASES.with_name("measured_peaks_fresh54.jsonl")
FRESH55 = CASES.with_name("measured_peaks_fresh55.jsonl")
FRESH56 = CASES.with_name("measured_peaks_fresh56.jsonl")
FRESH57 = CASES.with_name("measured_peaks_fresh57.jsonl")
FRESH58 = CASES.with_name("measured_peaks_fresh58.jsonl")
FRESH59 = CASES.with_name("measured_peaks_fresh59.jsonl")
FRESH60 = CASES.with_name("measured_peaks_fresh60.jsonl")
FRESH61 = CASES.with_name("measured_peaks_fresh61.jsonl")
FRESH62 = CASES.with_name("measured_peaks_fresh62.jsonl")
FRESH63 = CASES.with_name("measured_peaks_fresh63.jsonl")
FRESH64 = CASES.with_name("measured_peaks_fresh64.jsonl")
FRESH65 = CASES.with_name("measured_peaks_fresh65.jsonl")
FRESH66 = CASES.with_name("measured_peaks_fresh66.jsonl")
FRESH67 = CASES.with_name("measured_peaks_fresh67.jsonl")
FRESH68 = CASES.with_name("measured_peaks_fresh68.jsonl")
FRESH69 = CASES.with_name("measured_peaks_fresh69.jsonl")
FRESH70 = CASES.with_name("measured_peaks_fresh70.jsonl")
FRESH71 = CASES.with_name("measured_peaks_fresh71.jsonl")
FRESH72 = CASES.with_name("measured_peaks_fresh72.jsonl")
FRESH73 = CASES.with_name("measured_peaks_fresh73.jsonl")
FRESH74 = CASES.with_name("measured_peaks_fresh74.jsonl")
FRESH75 = CASES.with_name("measured_peaks_fresh75.jsonl")
FRESH76 = CASES.with_name("measured_peaks_fresh76.jsonl")
FRESH77 = CASES.with_name("measured_peaks_fresh77.jsonl")
FRESH78 = CASES.with_name("measured_peaks_fresh78.jsonl")
FRESH79 = CASES.with_name("measured_peaks_fresh79.jsonl")
FRESH80 = CASES.with_name("measured_peaks_fresh80.jsonl")
FRESH81 = CASES.with_name("measured_peaks_fresh81.jsonl")
FRESH82 = CASES.with_name("measured_peaks_fresh82.jsonl")


@pytest.fixture(scope="module")
def results():
    return evaluate()  # every bundled set


def test_every_case_is_described_with_its_source():
    for line in (CASES.read_text(encoding="utf-8").splitlines() + LATER.read_text(encoding="utf-8").splitlines()
                 + FRESH.read_text(encoding="utf-8").splitlines()):
        case = json.loads(line)
        assert case["source_url"].startswith("https://"), case["id"]
        assert case["statistic"] in ("allocated", "active", "reserved", "device", "weights", "kv_cache"), case["id"]
        assert case["description"] and case["quality"], case["id"]
        assert (CASES.parent / "configs" / f"{case['config']}.config.json").is_file(), case["id"]


def test_accuracy_floor(results):
    summary = summarize(results)
    # 179 scored since the six torchtitan 405B pipeline-parallel rows are scored (three of them within 15 %).
    assert len(results) >= 188 and summary["cases"] >= 179 and summary["sources"] >= 27
    assert summary["failed_cases"] == 0
    assert summary["within_15_share"] >= 0.89
    assert summary["within_25_share"] >= 0.97
    # 0.050 -> 0.053 with FSDP1's unsharded root unit (four 2-GPU FSDP1 rows of one source move from +4.8 % to
    # +6.2 %; 160 instead of 159 rows within 15 %).
    assert summary["median_abs_error"] <= 0.053
    assert summary["by_method"]["qlora"]["cases"] >= 51
    assert summary["by_gpus"]["2-8"]["cases"] + summary["by_gpus"][">8"]["cases"] >= 20
    assert summary["by_gpus"]["2-8"]["within_15_share"] >= 0.82
    assert summary["by_gpus"][">8"]["cases"] >= 11 and summary["by_gpus"][">8"]["within_15_share"] >= 0.9


def test_rows_added_later_are_scored_apart(results):
    later = summarize(results)["added_later"]
    assert later["cases"] == sum(r.supported and not r.error for r in results if r.added and r.case_set not in HELD_OUT_SETS) >= 114
    assert later["within_15_share"] >= 0.88 and later["median_abs_error"] <= 0.043
    after_model = [r for r in results if r.added == "2026-12-04-after-model" and r.supported]
    assert len(after_model) >= 17 and all(r.abs_error <= 0.15 for r in after_model)
    # lit-gpt / litgpt tables mapped after the loading-peak model (9 of them QLoRA): every one within 15 %.
    loading_batch = [r for r in results if r.added == "2026-12-04-loading-model" and r.supported]
    assert len(loading_batch) >= 17 and sum(r.method == "qlora" for r in loading_batch) >= 9
    assert all(r.abs_error <= 0.15 for r in loading_batch)


def test_accuracy_floor_by_method(results):
    summary = summarize(results)
    assert summary["by_method"]["full"]["within_15_share"] >= 0.93
    # 0.042 -> 0.048 with FSDP1's unsharded root unit: 2-GPU FSDP1 LoRA rows of one source move from +2 % to +5 %,
    # the 2024-03 fsdp_qlora rows from -18/-4 % to -13/+1 % (41 instead of 40 of 44 within 15 %).
    assert summary["by_method"]["lora"]["median_abs_error"] <= 0.048
    assert summary["by_method"]["inference"]["cases"] >= 37
    assert summary["by_method"]["inference"]["within_15_share"] >= 0.91
    assert summary["by_method"]["inference"]["median_abs_error"] <= 0.03
    assert summary["by_method"]["qlora"]["within_15_share"] >= 0.80  # 41 of 51
    assert summary["by_method"]["qlora"]["median_abs_error"] <= 0.076


def test_pipeline_parallel_rows_are_scored(results):
    pp = {r.case_id: r for r in results if r.case_id.startswith("torchtitan-405b")}
    assert len(pp) == 6 and all(r.supported and not r.error for r in pp.values())
    assert all(r.abs_error <= 0.25 for r in pp.values())
    # The interleaved schedule peaks lower than 1F1B on the same job, as measured (72.7 vs 82.5 GiB).
    one, inter = pp["torchtitan-405b-3d-1f1b"], pp["torchtitan-405b-3d-interleaved-1f1b"]
    assert inter.estimated_bytes < one.estimated_bytes and inter.measured_bytes < one.measured_bytes


def test_fresh_rows_are_held_out_and_scored_apart(results):
    # The fresh rows were mapped and committed before any estimate existed; they never enter the headline figures
    # (which the floors above guard), only summary["fresh"].
    fresh = [r for r in results if r.case_set == "fresh"]
    assert len(fresh) >= 15 and all(r.added.startswith("fresh-") for r in fresh)
    summary = summarize(results)
    tuned = [r for r in results if r.case_set not in HELD_OUT_SETS]
    assert summary["cases"] == summarize(tuned)["cases"] == sum(r.supported and not r.error for r in tuned)
    assert summary["fresh"]["rows"] == len(fresh)
    assert summary["fresh"]["cases"] == sum(r.supported and not r.error for r in fresh)
    assert summary["fresh"]["failed_cases"] == 0
    assert sum(summary["fresh"]["by_method"][m]["cases"] for m in summary["fresh"]["by_method"]) == \
        summary["fresh"]["cases"]
    sources = {r.source_url.split("#")[0] for r in fresh}
    assert len(sources) >= 4 and not sources & {r.source_url.split("#")[0] for r in tuned}


def test_fresh_2_rows_are_a_held_out_set_of_their_own(results):
    # Collected after the fresh rows were scored, committed (commit "Fresh-2 validation rows ...") before any estimate
    # was computed for them; scored once, so no accuracy floor: only that they stay out of every other figure.
    fresh2 = [r for r in results if r.case_set == "fresh-2"]
    assert len(fresh2) == len(FRESH2.read_text().splitlines()) >= 15
    assert all(r.added == "fresh2-2026-12-05" for r in fresh2)
    summary = summarize(results)
    assert summary["fresh-2"]["rows"] == len(fresh2) and summary["fresh-2"]["failed_cases"] == 0
    assert summary["fresh-2"]["cases"] == sum(r.supported and not r.error for r in fresh2) >= 7
    assert summary["fresh"]["rows"] == sum(r.case_set == "fresh" for r in results)
    others = {r.source_url.split("#")[0] for r in results if r.case_set != "fresh-2"}
    assert not {r.source_url.split("#")[0] for r in fresh2} & others
    # Every row not scored says why in its description.
    assert all("Not scored" in r.description or "not scored" in r.description for r in fresh2 if not r.supported)


def test_fresh_3_rows_are_a_held_out_set_of_their_own(results):
    # Collected after the fresh-2 rows were scored, committed (commit "Fresh-3 validation rows ...") before any estimate
    # was computed for them; scored once, so no accuracy floor: only that they stay out of every other figure.
    fresh3 = [r for r in results if r.case_set == "fresh-3"]
    assert len(fresh3) == len(FRESH3.read_text().splitlines()) >= 8
    assert all(r.added == "fresh3-2026-12-05" for r in fresh3)
    assert sum(r.method == "qlora" for r in fresh3) >= 8 and sum(r.gpus > 1 for r in fresh3) >= 4
    summary = summarize(results)
    assert summary["fresh-3"]["rows"] == len(fresh3) and summary["fresh-3"]["failed_cases"] == 0
    assert summary["fresh-3"]["cases"] == sum(r.supported and not r.error for r in fresh3)
    assert summary["cases"] == sum(r.supported and not r.error for r in results if r.case_set not in HELD_OUT_SETS)
    others = {r.source_url.split("#")[0] for r in results if r.case_set != "fresh-3"}
    assert not {r.source_url.split("#")[0] for r in fresh3} & others


def test_fresh_4_rows_are_a_held_out_set_of_their_own(results):
    # Collected after the fresh-3 rows were scored, committed (commit "Fresh-4 memory rows mapped before any estimate")
    # before any estimate was computed for them; scored once, so no accuracy floor.
    fresh4 = [r for r in results if r.case_set == "fresh-4"]
    assert len(fresh4) == len(FRESH4.read_text().splitlines()) >= 8
    assert all(r.added == "fresh4-2026-12-05" for r in fresh4)
    assert sum(r.supported for r in fresh4) >= 8 and sum(r.gpus > 1 and r.supported for r in fresh4) >= 3
    summary = summarize(results)
    assert summary["fresh-4"]["rows"] == len(fresh4) and summary["fresh-4"]["failed_cases"] == 0
    assert summary["fresh-4"]["cases"] == sum(r.supported and not r.error for r in fresh4)
    assert summary["cases"] == sum(r.supported and not r.error for r in results if r.case_set not in HELD_OUT_SETS)
    others = {r.source_url.split("#")[0] for r in results if r.case_set != "fresh-4"}
    assert not {r.source_url.split("#")[0] for r in fresh4} & others
    assert all("not scored" in r.description.lower() for r in fresh4 if not r.supported)


# Held-out rows their collector marked unsupported (an input no flag expresses), by set.
UNSUPPORTED_HELD_OUT = {"fresh-11": 1, "fresh-13": 9, "fresh-14": 2, "fresh-15": 2, "fresh-16": 1, "fresh-18": 22, "fresh-19": 3, "fresh-21": 1, "fresh-22": 2, "fresh-23": 2, "fresh-24": 1, "fresh-26": 11, "fresh-27": 11, "fresh-28": 2, "fresh-30": 1, "fresh-31": 8, "fresh-32": 15, "fresh-33": 3, "fresh-36": 5, "fresh-37": 5, "fresh-38": 12, "fresh-39": 1, "fresh-40": 3, "fresh-42": 1, "fresh-44": 29, "fresh-45": 7, "fresh-46": 4, "fresh-49": 2, "fresh-50": 5, "fresh-52": 6, "fresh-54": 3, "fresh-58": 3, "fresh-59": 2, "fresh-60": 1, "fresh-61": 2, "fresh-62": 1, "fresh-64": 1, "fresh-72": 1, "fresh-75": 2, "fresh-76": 3, "fresh-82": 1}
# memfix46: fresh-43 2 -> 0 (Megatron --recompute-num-layers 6 of 10 a stage) and fresh-52 7 -> 6 (torchtitan
# every 2nd layer) typed through --recompute-layers (gpudesk.sizing.recompute_layers).
# memfix47: fresh-42 2 -> 1, fresh-54 11 -> 3, fresh-58 7 -> 3: Megatron expert parallelism (full training and
# ms-swift's Megatron LoRA) typed through the row field expert_parallel (gpudesk.sizing.train_expert_parallel).
# Held-out rows whose typed flags the estimator refuses, by set. fresh-17 had one at its first score (ChatGLM3's
# --lora-targets query_key_value); family module names are accepted since (gpudesk.sizing.lora_modules), and that
# row is within 15 %: 46/63 (all-linear on Qwen v1 now adapts the fused c_attn, 1.8B LoRA seq 4096 0.85 -> 0.84).
# fresh-50's 3 refused rows (ms-swift sequence parallel 8/4/2 under LoRA) are estimable since context parallelism
# applies to LoRA/QLoRA (gpudesk.sizing.memory_lora, memfix38).
REFUSED_HELD_OUT = {"fresh-12": 1, "fresh-43": 1, "fresh-63": 1, "fresh-72": 2}
# Pages two held-out sets both cite, each for different tables (no measurement repeats): fresh-5 took the Qwen3 4B and
# Qwen2.5 7B tables of these speed benchmarks, fresh-16 their 8B/14B and 32B tables; fresh-11 took the Qwen-7B cells
# of the Qwen README of Nov 2023, fresh-17 its 1.8B/14B/72B cells.
SHARED_PAGES = {
    "https://github.com/QwenLM/Qwen/blob/e8e15962d897714944773cca57fa2e460a3655e8/README.md",
    "https://github.com/QwenLM/Qwen2.5/blob/0f0ecfba609c08a3cdbb3a589bf74e36255ebd75/docs/source/benchmark/speed_benchmark.rst",
    "https://github.com/QwenLM/Qwen3/blob/c7f51a1a1ce3d4bb750bc545cd2673fff4c5a8f9/docs/source/getting_started/speed_benchmark.md",
    # fresh-6 took one run of this PR's table (logits freed, active); fresh-32 the five other settings and statistics.
    "https://github.com/meta-llama/llama-cookbook/pull/41",
    # milabench's benchmark definitions at two commits: fresh-35 took the BERT and OPT entries, fresh-36 the t5 ones.
    "https://github.com/mila-iqia/milabench/blob/1f1bb167bd2a4e116913a373bca6adcfddf2f151/config/scaling.yaml",
    "https://github.com/mila-iqia/milabench/blob/33f4eb7d09c31f450193f3056edc998f9d2fb302/config/scaling.yaml",
    # axolotl's gpt-oss README lists four runs, each with its own yaml: fresh-14 took the 120B one, fresh-70 the rest.
    "https://github.com/axolotl-ai-cloud/axolotl/blob/50f2b94d50584fce89bba9ff33b7c3909e827991/examples/gpt-oss/README.md",
    # axolotl's Llama READMEs: earlier sets took their QLoRA figures, fresh-71 the 8-bit-base LoRA ones (a setting added
    # since: --base-weights int8).
    "https://github.com/axolotl-ai-cloud/axolotl/blob/15f7910d33b41282f8c4fc1c4ca374b1b5965f2b/examples/llama-3/README.md",
    "https://github.com/axolotl-ai-cloud/axolotl/blob/dc71d8872a68e978d2ce272ff3e0085b156a1304/examples/llama-2/README.md",
    # torchtune's README of March 2024: fresh-9 took its LoRA / QLoRA rows, fresh-82 the full fine-tune row it left.
    "https://github.com/pytorch/torchtune/blob/a95c6b931dd12a014780ded1581ea504aa4e0129/README.md"}


@pytest.mark.parametrize(("name", "path", "added", "least"), [
    # fresh-5: collected by two helpers while the memory model was frozen (only a new input, --longest-sample-tokens,
    # was added, which no fresh-5 row uses). fresh-6: collected after the fixes fresh-5 prompted were merged.
    ("fresh-5", FRESH5, "fresh5-2026-12-05", 64),
    ("fresh-6", FRESH6, "fresh6-2026-12-05", 29),
    # fresh-7 and fresh-8: collected while the fixes fresh-6 prompted were written, scored once after they merged.
    ("fresh-7", FRESH7, "fresh7-2026-12-05", 50),
    ("fresh-8", FRESH8, "fresh8-2026-12-05", 34),
    # fresh-9: collected while the fixes fresh-7/8 prompted were written, scored once after they merged.
    ("fresh-9", FRESH9, "fresh9-2026-12-05", 36),
    # fresh-10: collected while the fixes fresh-9 prompted were written, scored once after they merged.
    ("fresh-10", FRESH10, "fresh10-2026-12-05", 34),
    # fresh-11: collected while the fixes fresh-10 prompted were written, scored once after they merged
    # (27/62 within 15 %); one row (Meta's FP8 405B checkpoint, attention kept in bf16) is marked unsupported.
    ("fresh-11", FRESH11, "fresh11-2026-12-05", 63),
    # fresh-12: collected while the fixes fresh-11 prompted were written, scored once after they merged (24/35).
    ("fresh-12", FRESH12, "fresh12-2026-12-05", 36),
    # fresh-13: collected while the fixes fresh-12 prompted were written, scored once after they merged (16/27).
    ("fresh-13", FRESH13, "fresh13-2026-12-05", 36),
    # fresh-14: collected while the fixes fresh-13 prompted were written, scored once after they merged (25/34).
    ("fresh-14", FRESH14, "fresh14-2026-12-05", 36),
    # fresh-15: collected while the fixes fresh-14 prompted were written, scored once after they merged (8/13).
    ("fresh-15", FRESH15, "fresh15-2026-12-05", 15),
    # fresh-16: collected while the fixes fresh-11..15 prompted were written, scored once after they merged (29/47).
    ("fresh-16", FRESH16, "fresh16-2026-12-05", 48),
    # fresh-17: collected at the same time as fresh-16 by a second helper, scored once on the same model (46/62; one
    # ChatGLM3 LoRA row refused: its target module name query_key_value is not one the estimator knows).
    ("fresh-17", FRESH17, "fresh17-2026-12-05", 63),
    # fresh-18: collected while the fixes fresh-16/17 prompted were written, scored once after they merged (25/30; 22
    # rows unsupported: DeepSeek-LLM 67B split over 8 GPUs by device_map, GLM-4 4-bit computing in fp32).
    ("fresh-18", FRESH18, "fresh18-2026-12-05", 52),
    # fresh-19: collected while the fixes fresh-18 prompted were written, scored once on the model the previous stop
    # left (50/60; 3 rows unsupported: LoRA over an int8 base, PEFT modules_to_save).
    ("fresh-19", FRESH19, "fresh19-2026-12-05", 63),
    # fresh-20: collected while the fixes fresh-18/19 prompted were written, scored once after they merged (36/62).
    ("fresh-20", FRESH20, "fresh20-2026-12-05", 62),
    # fresh-21: collected while the fixes fresh-20 prompted were written, scored once after they merged (50/113; 1 row unsupported: QLoRA split over 2 GPUs by device_map).
    ("fresh-21", FRESH21, "fresh21-2026-12-05", 114),
    # fresh-22: collected while the fixes fresh-21 prompted were written, scored once after they merged (21/21; 2 rows
    # unsupported: LLaMA-Factory GLM-4 rows whose padded batch is unknown).
    ("fresh-22", FRESH22, "fresh22-2026-12-05", 23),
    # fresh-23: collected while the fixes fresh-21/22 prompted were written, scored once after they merged (33/44 within 15 %, median 8.7 %; 2 rows unsupported: DoRA and LoRA-FA adapters).
    ("fresh-23", FRESH23, "fresh23-2026-12-05", 46),
    # fresh-24: collected while the fixes fresh-21/23 prompted were written, scored once after they merged (14/31 within 15 %, median 16.8 %; 1 row unsupported: ZeRO++ hpZ/qwZ).
    ("fresh-24", FRESH24, "fresh24-2026-12-05", 32),
    # fresh-25: collected while the fixes fresh-24 prompted were written, scored once after they merged (24/37 within 15 %, median 11.7 %).
    ("fresh-25", FRESH25, "fresh25-2026-12-05", 37),
    # fresh-26: collected while the fixes fresh-25 prompted were written, scored once after they merged (10/14 within 15 %, median 10.8 %; 11 rows unsupported: AutoAWQ's peak summed over 2 GPUs, LoRA rows on an unstated device and precision).
    ("fresh-26", FRESH26, "fresh26-2026-12-05", 25),
    # fresh-27: collected while memfix21 was written, scored once after they merged (17/23 supported within 15 %, median 9.6 %; 11 unsupported).
    ("fresh-27", FRESH27, "fresh27-2026-12-06", 34),
    # fresh-28: collected while memfix22 was written, scored once after they merged (9/11 supported within 15 %, median 10.9 %; 2 unsupported).
    ("fresh-28", FRESH28, "fresh28-2026-12-06", 13),
    # fresh-29: collected while memfix22 was written, scored once after they merged (25/56 supported within 15 %, median 19.4 %).
    ("fresh-29", FRESH29, "fresh29-2026-12-06", 56),
    # fresh-30: collected while memfix24 was written, scored once after they merged (34/41 supported within 15 %, median 4.8 %).
    ("fresh-30", FRESH30, "fresh30-2026-12-06", 42),
    # fresh-31: collected while the model stood at memfix24 (no builder changed it), scored once after they merged (1/3 supported within 15 %, median 15.7 %).
    ("fresh-31", FRESH31, "fresh31-2026-12-06", 11),
    # fresh-32: collected while memfix25 was written, scored once after they merged (10/43 supported within 15 %, median 27.9 %; the
    # collector's copy of the one run fresh-6 already holds from llama-recipes PR 41 was dropped, it passed).
    ("fresh-32", FRESH32, "fresh32-2026-12-06", 58),
    # fresh-33: collected while memfix26 was written, scored once after they merged (20/33 supported within 15 %, median 9.3 %).
    ("fresh-33", FRESH33, "fresh33-2026-12-06", 36),
    # fresh-34: collected while memfix27 and memfix28 were written, scored once after they merged (12 of 32 within 15 %; 2 rows repeating fresh-10 runs dropped).
    ("fresh-34", FRESH34, "fresh34-2026-12-06", 32),
    # fresh-35: collected while memfix27 and memfix28 were written, scored once after they merged (17 of 26 within 15 %).
    ("fresh-35", FRESH35, "fresh35-2026-12-06", 26),
    # fresh-36: collected while memfix27-28 finished, before memfix29 merged; scored once after it merged (9 of 35 supported within 15 %).
    ("fresh-36", FRESH36, "fresh36-2026-12-06", 40),
    # fresh-37: collected while memfix29 was written, scored once after it merged (17 of 43 supported within 15 %).
    ("fresh-37", FRESH37, "fresh37-2026-12-06", 48),
    # fresh-38: collected while memfix30 was written, scored once after it merged (11 of 15 supported within 15 %).
    ("fresh-38", FRESH38, "fresh38-2026-12-06", 27),
    # fresh-39: collected while memfix31 was written, scored once after it merged (18 of 32 supported within 15 %).
    ("fresh-39", FRESH39, "fresh39-2026-12-06", 33),
    # fresh-40: collected while memfix31 was written, scored once after it merged (41 of 59 supported within 15 %).
    ("fresh-40", FRESH40, "fresh40-2026-12-06", 62),
    # fresh-41: collected while memfix32 was written, scored once after it merged (14 of 29 supported within 15 %).
    ("fresh-41", FRESH41, "fresh41-2026-12-06", 29),
    # fresh-42: collected while memfix33 was written, scored once after it merged (18 of 23 supported within 15 %).
    ("fresh-42", FRESH42, "fresh42-2026-12-06", 25),
    # fresh-43: collected from repository snapshots after memfix33 was written, scored once on the final model (15 of 30 scored within 15 %; one row refused: base_weights fp32 beside bf16-amp).
    ("fresh-43", FRESH43, "fresh43-2026-12-06", 33),
    # fresh-44: collected from repository snapshots after the last memory change, scored once on the final model (15 of 15 supported within 15 %).
    ("fresh-44", FRESH44, "fresh44-2026-12-06", 44),
    # fresh-45: collected while memfix34 was written, scored once after they merged (14 of 21 supported within 15 %).
    ("fresh-45", FRESH45, "fresh45-2026-12-06", 28),
    # fresh-46: collected while memfix35 was written, scored once after they merged (12 of 22 supported within 15 %).
    ("fresh-46", FRESH46, "fresh46-2026-12-06", 26),
    # fresh-47: collected from repository snapshots after the last memory change, scored once on the final model (2 of 13 supported within 15 %).
    ("fresh-47", FRESH47, "fresh47-2026-12-06", 13),
    # fresh-48: collected while memfix36 was written, scored once after they merged (27 of 43 supported within 15 %).
    ("fresh-48", FRESH48, "fresh48-2026-12-06", 43),
    # fresh-49: collected while memfix36 and memfix37 were written, scored once after they merged (9 of 15 supported within 15 %).
    ("fresh-49", FRESH49, "fresh49-2026-12-06", 17),
    # fresh-50: collected from repository snapshots and searches after the last memory change, scored once after they merged (3 of 3 estimable supported rows within 15 %; 3 refused).
    ("fresh-50", FRESH50, "fresh50-2026-12-06", 11),
    # fresh-51: collected while memfix39 was written, scored once after they merged (14 of 16 supported within 15 %).
    ("fresh-51", FRESH51, "fresh51-2026-12-06", 16),
    # fresh-52: collected while memfix41 (ZeRO-3 outside zero.Init check, one phase-excess helper) and memfix42 (small HF models' fp16 training) were written, scored once after they merged (12 of 17 supported rows within 15 %).
    ("fresh-52", FRESH52, "fresh52-2026-12-06", 24),
    # fresh-53: collected while memfix43 (ZeRO-3's flat 16-bit gradient copy at the step) was written, scored once after they merged (4 of 4 within 15 %).
    ("fresh-53", FRESH53, "fresh53-2026-12-06", 4),
    # fresh-54: collected after memfix43 merged (the last memory change of the stop), scored once after they merged (5 of 10 supported rows within 15 %).
    ("fresh-54", FRESH54, "fresh54-2026-12-06", 22),
    # fresh-55: collected after memfix43 merged (the last memory change of the stop), scored once after they merged (2 of 3 supported rows within 15 %).
    ("fresh-55", FRESH55, "fresh55-2026-12-06", 4),
    # fresh-56: collected while memfix44 (ZeRO-1/2's flat gradient copy, not merged) and memfix45 (Muon, trained norms beside LoRA) were written, scored once after they merged (0 of 1 within 15 %).
    ("fresh-56", FRESH56, "fresh56-2026-12-06", 1),
    # fresh-57: collected after memfix45 merged (the last memory change of the stop), scored once after they merged (4 of 4 within 15 %).
    ("fresh-57", FRESH57, "fresh57-2026-12-06", 4),
    # fresh-58: collected after memfix46, the last memory change of the stop, scored once on it (4 of 4 supported rows within 15 %: weights and KV-pool lines; 7 rows unsupported: expert parallelism, an unstated unit).
    ("fresh-58", FRESH58, "fresh58-2026-12-06", 11),
    # fresh-59: collected after memfix47, the last memory change of the stop, scored once on it (0 of 1 supported row within 15 %: a Qwen3-30B-A3B EP8 full fine-tune at 0.72; 2 rows unsupported: Megatron's CPU optimizer offload, experts not split over TP).
    ("fresh-59", FRESH59, "fresh59-2026-12-06", 3),
    # fresh-60: collected while memfix48 was written, after memfix47 (the last merged memory change), scored once on
    # memfix47 (2/3 supported within 15 %; the pipeline-parallel LoRA row with Megatron CPU offload unsupported).
    ("fresh-60", FRESH60, "fresh60-2026-12-07", 4),
    # fresh-61: collected while memfix48 was written, scored once on memfix47 (1/2 supported within 15 %: Qwen3-8B LoRA
    # 0.91, a Qwen1.5-MoE-A2.7B EP4 full fine-tune 0.68; 2 unsupported: expert TP 1 under TP 4, uneven pipeline stages).
    ("fresh-61", FRESH61, "fresh61-2026-12-07", 4),
    # fresh-62: collected after memfix48, the last memory change of the stop, scored once on it (0/1 supported within
    # 15 %: a Moonlight-16B-A3B TP2 EP4 full fine-tune at 0.80; the PP2 row with uneven stages unsupported).
    ("fresh-62", FRESH62, "fresh62-2026-12-07", 2),
    # fresh-63: collected after memfix48, scored once on it (0/1 within 15 %: a Qwen3-30B-A3B-Base EP2 LoRA at 0.82;
    # the GLM-4.5-Air LoRA with expert TP 1 under TP 4 refused: expert tensor parallelism is taken for full training).
    ("fresh-63", FRESH63, "fresh63-2026-12-07", 2),
    # fresh-64: collected after memfix48, scored once on it (0/2 within 15 %: XTuner's tiny Qwen3 at 0.56 allocated and
    # 0.47 reserved; the two Primus DeepSeek-V2-Lite EP8 LoRA rows refused because they type expert TP, which LoRA
    # took only after that score (0.76 and 1.12 now); a Megatron precision-aware-optimizer row unsupported).
    ("fresh-64", FRESH64, "fresh64-2026-12-07", 5),
    # fresh-65: collected after expert TP reached LoRA (the last memory change of the stop), scored once on it (11/11
    # within 15 %: LLaMA-Factory's Megatron Qwen3-30B-A3B PP4 EP2 at 1.02; Megatron-LM's MoE functional tests 0.88-1.02).
    ("fresh-65", FRESH65, "fresh65-2026-12-07", 11),
    # fresh-66: collected after the last memory change of the stop, scored once on it (1/5 within 15 %: Megatron-LM MoE
    # functional tests; EP8 top-2 with Muon or the distributed optimizer 0.69-0.76, all-to-all overlap 0.84).
    ("fresh-66", FRESH66, "fresh66-2026-12-07", 5),
    # fresh-67: collected at the start of the 2026-12-07 session, before memfix49, scored once after they merged (4/7 within 15 %: Megatron-LM MoE functional tests; the TP4 expert-TP 2 shared-expert rows read 0.69).
    ("fresh-67", FRESH67, "fresh67-2026-12-07", 7),
    # fresh-68: collected at the start of the 2026-12-07 session, before memfix49, scored once after they merged (4/9 within 15 %: ms-swift example headers; EP4 MoE LoRA 0.57-0.58, a 1-GPU LoRA 0.38, 64K ZeRO-3 rows 1.25-1.30).
    ("fresh-68", FRESH68, "fresh68-2026-12-07", 9),
    # fresh-69: collected while memfix50 was built, scored once on it, the last memory change (2/2 within 15 %: axolotl QLoRA READMEs).
    ("fresh-69", FRESH69, "fresh69-2026-12-07", 2),
    # fresh-70: collected while memfix50 was built, scored once on it, the last memory change (2/5 within 15 %: axolotl gpt-oss-20b FSDP2 rows 0.58 and 0.78, FSDP2 CPU offload 0.26).
    ("fresh-70", FRESH70, "fresh70-2026-12-07", 5),
    # fresh-71: collected after memfix50 (the last memory change), scored once on it (10/12 within 15 %: Qwen README LoRA (emb) cells 0.78-1.00, axolotl int8-base LoRA 0.98 and 1.53).
    ("fresh-71", FRESH71, "fresh71-2026-12-07", 12),
    # fresh-72: collected after memfix50 (the last memory change), scored once on it (3/4 estimated rows within 15 %: ms-swift README LoRA 0.96, Megatron-LM tiny GPT tests 0.94, 1.03 and the untied PP4 1.36; the two Megatron-FSDP expert-parallel rows refused, one row unsupported).
    ("fresh-72", FRESH72, "fresh72-2026-12-07", 7),
    # fresh-73: collected at the start of the 2026-12-07 session, before memfix51, scored once on main (8/20 within 15 %: Megatron-LM tiny GPT and MoE dp_last rows 0.84-0.98, BERT-large 0.88-1.26, one notebook's QLoRA reserved peaks 0.24-0.63).
    ("fresh-73", FRESH73, "fresh73-2026-12-07", 20),
    # fresh-74: collected while memfix51 was built, scored once on it (the last memory change) (15/19 within 15 %: halo's FSDP2 MoE full fine-tuning on 8 x B300 0.86-1.12, backpropagate QLoRA on an RTX 5090 1.17-1.37, halo QLoRA 1.08 and 0.71).
    ("fresh-74", FRESH74, "fresh74-2026-12-07", 19),
    # fresh-75: collected while memfix52 was built, scored once on it (the last memory change) (10/14 estimated rows within 15 %: peft-experiments on RTX 4090s 0.92-1.11 and FSDP-QLoRA with CPU offload 0.62-0.63, NeMo PR 9340 LoRA / QLoRA 1.06-1.18; 2 unsupported).
    ("fresh-75", FRESH75, "fresh75-2026-12-07", 16),
    # fresh-76: collected while memfix52 was built, scored once on it (the last memory change) (3/4 estimated rows within 15 %: ms-swift script headers 0.92-0.95 and a Megatron pretraining header 0.52; 3 unsupported).
    ("fresh-76", FRESH76, "fresh76-2026-12-07", 7),
    # fresh-77: collected after memfix52 (the last memory change), scored once on it (4/17 within 15 %: whyNLP/tinyllama's README memory column, accelerate TinyLlama rows 1.10-1.24 and LLaMA-7B 1.02, DeepSpeed ZeRO-2 TinyLlama rows 1.56-1.77 and LLaMA-7B 0.98 / 1.31).
    ("fresh-77", FRESH77, "fresh77-2026-12-07", 17),
    # fresh-78: collected while memfix54 was built, scored once on it (before memfix55) (13/16 estimated rows within 15 %: Megatron-LM functional-test goldens on H100/GB200 0.85-1.04; MoE EP2 x ETP2 with a shared expert 0.75, EP4 0.80, fp16 PP4 1.31).
    ("fresh-78", FRESH78, "fresh78-2026-12-07", 16),
    # fresh-79: collected while memfix54 was built, scored once on it (before memfix55) (11/15 within 15 %: xTuring INT8/fp16 LoRA 0.97-1.04, ZeRO-2 offload full fine-tune 0.67, llama-cookbook FSDP1 LoRA reserved 0.80).
    ("fresh-79", FRESH79, "fresh79-2026-12-07", 15),
    # fresh-80: collected while memfix54 was built, scored once on it (before memfix55) (2/5 within 15 %: Unsloth QLoRA notebooks, two with an evaluation pass 4.1-4.3 (quality poor: padded length unknown)).
    ("fresh-80", FRESH80, "fresh80-2026-12-07", 5),
    # fresh-81: collected while memfix55 was built, scored once on it (before memfix56) (4/9 estimated rows within 15 %: ms-swift example headers; Qwen1.5-MoE LoRA 0.74, XVERSE-13B-256K 0.80, GPTQ Q-LoRA 0.84, ZeRO-2 offload rows 0.97-1.15).
    ("fresh-81", FRESH81, "fresh81-2026-12-07", 9),
    # fresh-82: collected while memfix56 was built, scored once on it (the last memory change) (1/1 supported row within 15 %: torchtune's full fine-tune of Llama-2-7B on one A6000 with plain SGD 0.99; an axolotl vision LoRA is unsupported (images)).
    ("fresh-82", FRESH82, "fresh82-2026-12-07", 2),
])
def test_later_fresh_rows_are_held_out_sets_of_their_own(results, name, path, added, least):
    # Committed before any estimate was computed for them; scored once, so no floor.
    rows = [r for r in results if r.case_set == name]
    assert len(rows) == len(path.read_text().splitlines()) >= least
    assert all(r.added == added for r in rows)
    assert sum(not r.supported for r in rows) == UNSUPPORTED_HELD_OUT.get(name, 0)
    summary = summarize(results)
    # fresh-10's four Megatron-Bridge rows (a micro-batch of 1 with 16-32 pipeline micro-batches) are answered
    # through --global-batch (validation.case_global_batch); every held-out row is scored.
    assert summary[name]["rows"] == len(rows) and summary[name]["failed_cases"] <= REFUSED_HELD_OUT.get(name, 0)
    assert summary[name]["cases"] == sum(r.supported and not r.error for r in rows)
    assert summary["cases"] == sum(r.supported and not r.error for r in results if r.case_set not in HELD_OUT_SETS)
    others = {r.source_url.split("#")[0] for r in results if r.case_set != name}
    assert not {r.source_url.split("#")[0] for r in rows} & others - SHARED_PAGES
    shared = [r for r in results if r.source_url.split("#")[0] in SHARED_PAGES]
    assert len({(r.description, r.measured_bytes) for r in shared}) == len(shared)  # one page, different tables


def test_compares_like_with_like(results):
    by_id = {r.case_id: r for r in results}
    # torchtitan reports max reserved; the transformers guide reports nvidia-smi; each is compared with its own statistic.
    assert by_id["torchtitan-8b-8gpu-fsdp"].statistic == "reserved"
    assert by_id["hf-bert-large-bs4"].statistic == "device"
    assert 0.85 <= by_id["torchtune-8b-full-4090"].ratio <= 1.15  # paged 8-bit states are outside the allocator
    # Serving engines log the KV pool per GPU on its own: compared with the kv_cache component for the same tokens.
    assert by_id["sglang-qwen3-235b-fp8-tp4-kv"].statistic == "kv_cache"
    assert 0.97 <= by_id["sglang-qwen3-235b-fp8-tp4-kv"].ratio <= 1.03
    assert 0.97 <= by_id["vllm-qwen3-235b-fp8-tp4-kv"].ratio <= 1.03


def test_unsupported_cases_are_kept_and_not_scored(results):
    unsupported = [r for r in results if not r.supported and r.case_set not in HELD_OUT_SETS]
    assert len(unsupported) >= 9
    assert summarize(results)["unsupported_cases"] == len(unsupported)


def test_peer_formulas_on_the_same_rows(results):
    peers = summarize(results)["peers"]
    # accelerate and DeepSpeed size model states only; on the rows where they apply gpudesk is closer.
    assert peers["deepspeed"]["cases"] == peers["gpudesk"]["cases"] >= 20
    assert peers["gpudesk"]["median_abs_error"] < peers["accelerate"]["median_abs_error"]
    assert peers["gpudesk"]["median_abs_error"] < peers["deepspeed"]["median_abs_error"]


def test_the_typical_error_of_a_job_kind_is_over_the_headline_rows(results):
    # The accuracy view said "within 15 % on 162 of 179 published measurements" and under it "For full jobs: within
    # 15 % on 257 of 434 cases" (held-out sets counted in the second line only; QA pass).
    from gpudesk.sizing.validation import typical_error_for

    headline = summarize(results)
    for method, by_method in headline["by_method"].items():
        typical = typical_error_for(results, method)
        assert typical["cases"] == by_method["cases"] <= headline["cases"], method
        assert typical["median_abs_error"] == by_method["median_abs_error"]
