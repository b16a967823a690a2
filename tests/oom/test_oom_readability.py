"""Usertest defects 16 and 17: redacted clauses, non-OOM input, evidence labels and titles that agree with
the numbers (on the real fixtures and public cases)."""

from __future__ import annotations

import json

import pytest
from oom_support import FIXTURES, fixture_text, load_cases

from gpudesk.cli import main
from gpudesk.oom import Cause, Diagnosis, diagnose_text
from gpudesk.oom.labels import has_label, label_for

CASES = load_cases()
FORMATS = sorted(p.name for p in (FIXTURES / "formats").glob("*.txt"))


def all_diagnoses():
    for case in CASES:
        yield case["url"], diagnose_text(case["message"])
    for name in FORMATS:
        yield name, diagnose_text(fixture_text(name))


def test_redacted_request_still_uses_every_clause():
    # shllln/GenerativeGraph#5: 10.90 of 11.17 GiB allocated, 576 KiB free, 30.96 MiB cached, size "X".
    d = diagnose_text(fixture_text("pytorch_era1_cached.txt"))
    assert d.report.requested_bytes is None
    assert "requested size ('Tried to allocate ...')" in d.report.missing
    assert any("'X'" in note for note in d.report.notes)
    top = d.top
    assert top.id == "genuine_shortage" and top.confidence >= 0.6
    assert "nearly all" in top.title
    assert top.evidence["headroom_bytes"] == 589824 + round(30.96 * 1024**2)
    assert top.evidence["headroom_ratio"] < 0.01
    assert "unparseable" not in [c.id for c in d.causes]


def test_redacted_request_on_a_roomy_gpu_stays_partial():
    d = diagnose_text("RuntimeError: CUDA out of memory. Tried to allocate X (GPU 0; 11.17 GiB total capacity; "
                      "2.00 GiB already allocated; 8.00 GiB free; 30.96 MiB cached)")
    assert [c.id for c in d.causes] == ["unparseable"]


def test_non_oom_text_is_not_a_strong_finding():
    d = diagnose_text("Epoch 3/10 loss=0.41 accuracy=0.88\nsaving checkpoint to ./ckpt")
    assert not d.found_oom and not d.diagnosed
    assert d.top.id == "unparseable" and d.top.confidence <= 0.1
    assert diagnose_text(fixture_text("vllm_kv_cache_full.txt")).found_oom


def test_cli_non_oom_text_exits_1(tmp_path, capsys):
    p = tmp_path / "log.txt"
    p.write_text("Epoch 3/10 loss=0.41 accuracy=0.88\n", encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 1
    out = capsys.readouterr().out
    assert out.startswith("No out-of-memory message found in ") and "nothing was diagnosed" in out
    assert "confidence" not in out
    assert main(["oom", "diagnose", str(p), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["oom_message_found"] is False and doc["causes"][0]["confidence"] <= 0.1


def test_vgen_near_full_gpu_is_not_titled_a_plain_shortage():
    # VGen#104 (case 8): the 550 MiB request fits with 769 MiB (3.2 %) to spare.
    top = diagnose_text(CASES[7]["message"]).top
    assert top.id == "genuine_shortage"
    assert top.title == "The job needs nearly all of the GPU's memory"
    assert "shortfall_bytes" not in top.evidence
    assert top.evidence["fit_margin_bytes"] > 0


def test_real_shortfall_keeps_its_title_and_amount():
    # chatglm3_finetuning#13 (case 5): the request cannot fit.
    top = diagnose_text(CASES[4]["message"]).top
    assert top.id == "genuine_shortage" and top.title == "Not enough GPU memory for this job"
    assert top.evidence["shortfall_bytes"] > 0 and "fit_margin_bytes" not in top.evidence
    assert "more than the free plus cached memory" in top.explanation


@pytest.mark.parametrize("name, diagnosis", list(all_diagnoses()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_evidence_and_parsed_key_has_a_written_label(name, diagnosis):
    for cause in diagnosis.causes:
        assert set(cause.evidence_labels) == set(cause.evidence)
        for key, label, _ in cause.evidence_items():
            assert has_label(key), (name, cause.id, key)
            assert label != key and "_" not in label.replace("gpu_memory_utilization", "").replace(
                "max_model_len", "").replace("memory_summary", ""), label
    for key in diagnosis.report.parsed:
        assert has_label(key), (name, key)


def test_dynamic_keys_get_names():
    assert label_for("process_4242_bytes") == "Used by process 4242"
    assert label_for("summary_non_releasable_large_pool_cur_bytes") == "Non-releasable memory, large pool, current"
    assert label_for("some_new_thing_bytes") == "Some new thing"


def test_labels_in_json_and_from_old_saved_dicts():
    d = diagnose_text(CASES[7]["message"])
    doc = d.to_dict()
    first = doc["causes"][0]
    assert first["evidence_labels"]["requested_bytes"] == "Requested allocation"
    assert doc["parsed_labels"]["total_capacity_bytes"] == "GPU total capacity"
    old = dict(first)
    del old["evidence_labels"]  # a diagnosis saved before labels existed
    assert Cause.from_dict(old).evidence_labels == first["evidence_labels"]
    assert Diagnosis.from_dict(doc).causes[0].evidence_labels == first["evidence_labels"]


def test_cli_prints_labels_not_keys(tmp_path, capsys):
    p = tmp_path / "vgen.txt"
    p.write_text(CASES[7]["message"], encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 0
    out = capsys.readouterr().out
    assert "Requested allocation" in out and "550.00 MiB (576,716,800 bytes)" in out
    assert "requested_bytes" not in out and "shortfall" not in out
    assert "0 B (0 B)" not in out


def test_tensorflow_figures_are_not_called_pytorch():
    # Automatic_Speech_Recognition#78 (case 22): BFC Stats block, Limit 9.90 GiB, InUse 6.85 GiB.
    d = diagnose_text(CASES[21]["message"])
    labels = d.top.evidence_labels
    assert labels["total_capacity_bytes"] == "Allocator memory limit (BFC Limit)"
    assert labels["allocated_bytes"] == "In use by the allocator (BFC InUse)"
    assert not any("PyTorch" in label for c in d.causes for label in c.evidence_labels.values())
    assert "PyTorch" not in json.dumps(d.to_dict()["parsed_labels"])


def test_shortfall_explanation_does_not_blame_live_tensors_on_an_empty_gpu():
    # clovaai#386 (case 14): 479.50 MiB live, 21.04 GiB free, 26.05 GiB requested.
    cause = next(c for c in diagnose_text(CASES[13]["message"]).causes if c.id == "genuine_shortage")
    assert "live tensors fill the GPU" not in cause.explanation
    assert "too large for what the GPU has left" in cause.explanation


def test_fragmentation_explanation_starts_a_sentence():
    cause = next(c for c in diagnose_text(CASES[7]["message"]).causes if c.id == "fragmentation")
    assert cause.explanation[0].isupper()


def test_cli_formats_flags_shapes_and_counts(tmp_path, capsys):
    p = tmp_path / "asr.txt"
    p.write_text(CASES[21]["message"], encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 0
    out = capsys.readouterr().out
    assert "[16, 1, 892800, 8, 4, 2, 2]" in out and "1,828,454,400" in out
    p.write_text(CASES[22]["message"], encoding="utf-8")
    assert main(["oom", "diagnose", str(p)]) == 0
    out = capsys.readouterr().out
    assert "cuBLAS handle creation failed" in out and "yes" in out


def test_every_evidence_key_a_rule_can_emit_has_a_written_label():
    # Rules that need samples, workers or several GPUs do not fire on texts: read their evidence keys from
    # the rule sources (evidence(...) keywords and cause.evidence[...] assignments in diagnose.py).
    import ast
    import inspect

    from gpudesk.oom import diagnose as diagnose_module
    from gpudesk.oom.rules import RULES

    keys = set()
    for module in (*RULES, diagnose_module):
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "evidence":
                keys |= {kw.arg for kw in node.keywords if kw.arg}
            if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
                    and node.value.attr == "evidence" and isinstance(node.slice, ast.Constant)):
                keys.add(node.slice.value)
    assert len(keys) > 50
    assert [k for k in sorted(keys) if not has_label(k)] == []


def test_weak_fragmentation_is_titled_as_a_possibility():
    # VGen#104: 4.7 % of reserved memory cached -> a weak candidate, not "Fragmented allocator cache".
    weak = next(c for c in diagnose_text(CASES[7]["message"]).causes if c.id == "fragmentation")
    assert weak.confidence < 0.5 and weak.title.startswith("Possibly")
    strong = diagnose_text(CASES[0]["message"]).top  # pytorch#35901: 91 % cached
    assert strong.id == "fragmentation" and strong.title == "Fragmented allocator cache"


def test_pin_memory_thread_is_not_titled_a_library_failure():
    # kraken#642: the pin-memory thread error named cuBLAS workspaces in its title, explanation and fixes.
    # The pinned host buffer leads (the thread's own call, thirty-second pass); the device reading stays second.
    causes = diagnose_text(fixture_text("pin_memory_thread.txt")).causes
    assert causes[0].id == "not_capacity" and "pin_memory=False" in causes[0].fix
    second = next(c for c in causes if c.id == "allocation_outside_allocator")
    assert "pin-memory thread" in second.title
    assert "cuBLAS" not in second.explanation + " ".join(second.more_fixes)
