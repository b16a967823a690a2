"""The shipped catalog against the verified reference table (tests/fixtures/catalog/gpu-specs.csv, a copy of
shared/reference/gpu-specs.csv) and the errata in catalog.md §4."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog


@pytest.fixture(scope="module")
def catalog():
    cat = open_catalog()
    yield cat
    cat.close()


REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "catalog" / "gpu-specs.csv"
with REFERENCE.open(encoding="utf-8", newline="") as _handle:
    ROWS = list(csv.DictReader(_handle))

# reference column -> GPU attribute (numbers; blank in the reference = None in the catalog)
NUMERIC = {
    "memory_gb": "memory_gb",
    "mem_bw_gbps": "memory_bandwidth_gbps",
    "fp32_tflops": "fp32_tflops",
    "tf32_tflops_dense": "tf32_dense_tflops",
    "fp16_tflops_dense": "fp16_dense_tflops",
    "bf16_tflops_dense": "bf16_dense_tflops",
    "fp8_tflops_dense": "fp8_dense_tflops",
    "int8_tops_dense": "int8_dense_tops",
    "fp4_tflops_dense": "fp4_dense_tflops",
    "tdp_w": "tdp_w",
    "launch_year": "launch_year",
    "price_usd_approx": "price_usd",
}


def test_every_reference_variant_is_in_the_catalog(catalog):
    ids = {g.id for g in catalog.gpus()}
    assert {r["id"] for r in ROWS} <= ids
    assert len(ROWS) == 26


# Where the reference kept a figure other than the vendor datasheet's, the catalog follows the rule
# ("where two sources disagree, keep the datasheet and note it"): T4 datasheet PDF 300 GB/s, product page 320+.
# H100 SXM5: the reference's 33.6k is the DGX H100 system price / 8; the catalog keeps the GPU + HGX baseboard share
# (analyst BOM, same Epoch row) so the HGX host price is not counted twice (usertest defect 6).
DATASHEET_OVERRIDES = {("t4", "mem_bw_gbps"): "300", ("h100-sxm5", "price_usd_approx"): "24400"}


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_values_match_the_reference(catalog, row):
    gpu = catalog.gpu(row["id"])
    for column, attr in NUMERIC.items():
        cell = DATASHEET_OVERRIDES.get((row["id"], column), row[column])
        expected = float(cell) if cell else None
        if attr == "price_usd" and expected is None and gpu.price_kind not in (None, "catalog"):
            continue  # the reference has no price; the catalog's dated prices table does (test_one_price.py)
        assert getattr(gpu, attr) == expected, f"{row['id']}.{attr}"
    assert gpu.nvlink_gbps == float(row["nvlink_gbps_bidir"] or 0)
    assert gpu.mig_max_instances == int(row["mig_max_instances"] or 0)
    assert gpu.memory_type in row["memory_type"]
    assert gpu.architecture in row["architecture"]
    assert gpu.source_url in row["spec_source_url"]
    assert f"Gen{gpu.pcie_gen}" in row["host_interface"]
    assert gpu.memory_bytes == int(gpu.memory_gb * 2**30)


def test_datasheet_values_for_the_errata(catalog):
    h100 = catalog.find_gpu("h100 sxm")
    assert (h100.bf16_dense_tflops, h100.fp8_dense_tflops) == (989.4, 1978.9)  # erratum a: 1979 is sparse
    assert (h100.memory_bandwidth_gbps, h100.nvlink_gbps) == (3350, 900)  # erratum c
    assert catalog.gpu("h100-nvl").nvlink_gbps == 600
    assert catalog.gpu("a100-80-pcie").memory_bandwidth_gbps == 1935  # erratum b
    assert catalog.gpu("a100-40-pcie").memory_type == "HBM2"
    assert catalog.gpu("a100-40-pcie").tdp_w == 250  # erratum e
    assert catalog.gpu("a100-80-pcie").tdp_w == 300
    assert catalog.gpu("a10").mig_max_instances == 0  # erratum f
    assert catalog.gpu("a30").mig_max_instances == 4
    assert catalog.gpu("rtx4090").pcie_gen == 4  # erratum d
    assert catalog.gpu("a100-80-sxm4").fp8_dense_tflops is None  # no FP8 on Ampere
    assert catalog.gpu("h100-sxm5").fp4_dense_tflops is None


def test_disagreements_keep_the_datasheet_and_say_so(catalog):
    t4 = catalog.gpu("t4")
    assert t4.memory_bandwidth_gbps == 300 and "320" in t4.notes and "datasheet" in t4.notes
    b200 = catalog.gpu("b200")
    assert b200.fp32_tflops == 80 and "62.08" in b200.notes
    assert "1555 GB/s and 250 W" in catalog.gpu("a100-40-pcie").notes


def test_gh200_variants_follow_the_datasheet(catalog):
    # GH200 datasheet: 96 GB HBM3 at up to 4 TB/s or 144 GB HBM3e at up to 4.9 TB/s; dense BF16 990 / FP8 1979
    # (the printed 1979 / 3958 are sparse); NVLink-C2C 900 GB/s to Grace; module 450-1000 W.
    hbm3e, hbm3 = catalog.gpu("gh200"), catalog.gpu("gh200-96")
    assert (hbm3e.memory_gb, hbm3e.memory_type, hbm3e.memory_bandwidth_gbps) == (144, "HBM3e", 4900)
    assert (hbm3.memory_gb, hbm3.memory_type, hbm3.memory_bandwidth_gbps) == (96, "HBM3", 4000)
    h100 = catalog.gpu("h100-sxm5")
    for gpu in (hbm3e, hbm3):
        assert gpu.bf16_dense_tflops == h100.bf16_dense_tflops and gpu.fp8_dense_tflops == h100.fp8_dense_tflops
        assert gpu.tdp_w == 1000 and "450-1000 W" in gpu.notes and "NVLink-C2C" in gpu.host_interface
    assert catalog.find_gpu("gh200 144gb").id == "gh200" and catalog.find_gpu("gh200 96gb").id == "gh200-96"


def test_geforce_rows_say_which_accumulate_rate(catalog):
    # Consumer cards: GeForce, the TITANs sold with the GeForce driver, and Radeon RX.
    for gpu in catalog.gpus():
        assert gpu.consumer == gpu.name.startswith(("NVIDIA GeForce", "NVIDIA TITAN", "AMD Radeon RX")), gpu.id
        if gpu.consumer:
            assert not gpu.vgpu
        if gpu.consumer and gpu.vendor == "NVIDIA" and gpu.fp16_dense_tflops:  # tensor cores (not the GTX 1080 Ti)
            assert "FP32-accumulate" in gpu.accumulate_note, gpu.id
    assert catalog.gpu("rtx4090").bf16_dense_tflops == 165.2  # half of the 330.3 FP16-accumulate rate


def test_every_row_has_source_and_date(catalog):
    for items in (catalog.gpus(), catalog.links(), catalog.servers(), catalog.models()):
        for item in items:
            assert item.source_url.startswith("https://"), item.id
            assert item.date_checked, item.id
    for row in catalog.precision_support() + catalog.cuda_arch_support():
        assert row.source_url.startswith("https://")


def test_matmul_efficiency_only_where_measured(catalog):
    measured = {g.id: g.matmul_efficiency for g in catalog.gpus() if g.matmul_efficiency is not None}
    assert measured["h100-sxm5"] == pytest.approx(794.5 / 989.4, abs=0.002)
    assert measured["a100-80-sxm4"] == pytest.approx(271.2 / 312, abs=0.002)
    # GeForce: measured torch.matmul BF16 over the FP32-accumulate peak at the rated boost (speedfix53).
    assert measured["rtx4090"] == pytest.approx(164.8 / 165.2, abs=0.002)
    assert measured["rtx5090"] == 1.0  # 236.5 TFLOPS measured, above the 209.5 at rated boost: capped at 1
    assert "rtx3090" not in measured and "rtx5080" not in measured
    for gpu in catalog.gpus():
        assert (gpu.matmul_efficiency is None) == (gpu.matmul_efficiency_source is None)


def test_links_servers_and_their_references(catalog):
    links = {link.id: link for link in catalog.links()}
    assert {"pcie3-x16", "pcie4-x16", "pcie5-x16", "pcie6-x16", "nvlink2", "nvlink3", "nvlink4", "nvlink5",
            "ib-hdr", "ib-ndr", "roce-100", "roce-200", "roce-400"} <= set(links)
    assert links["pcie4-x16"].bandwidth_gbps_per_direction == 31.5
    assert links["nvlink4"].bandwidth_gbps_per_direction * 2 == catalog.gpu("h100-sxm5").nvlink_gbps
    assert links["ib-ndr"].bandwidth_gbps_per_direction == 50
    kinds = {s.kind for s in catalog.servers()}
    assert kinds == {"workstation", "pcie-2u", "pcie-4u", "hgx"}
    for server in catalog.servers():
        assert server.interconnect in links and server.host_link in links
        # 8-GPU boards, except the rack-scale NVLink domains (GB200/GB300 NVL72: 72 GPUs in one NVLink 5 domain).
        assert server.min_gpus <= server.max_gpus <= (72 if server.id.endswith("-nvl72") else 8)
        assert server.cooling in ("air", "liquid") and server.power_w > 0
    hgx = catalog.server("hgx-h100")
    assert hgx.accepts(catalog.gpu("h100-sxm5"))
    assert not hgx.accepts(catalog.gpu("h200-sxm"))
    assert not hgx.accepts(catalog.gpu("h100-pcie"))
    assert catalog.server("workstation-pcie5").accepts(catalog.gpu("rtx4090"))
    for gen in ("dgx1-v100", "hgx-a100", "hgx-h100", "hgx-h200", "hgx-b200", "mi300x-oam-8"):
        assert catalog.server(gen).max_gpus == 8


def test_models_have_public_shapes(catalog):
    models = {m.id: m for m in catalog.models()}
    assert len(models) >= 20
    llama = models["llama-2-7b"]
    assert (llama.params, llama.layers, llama.hidden_size, llama.num_kv_heads) == (6738415616, 32, 4096, 32)
    l31 = catalog.find_model("llama 3.1 8b")
    assert (l31.num_attention_heads, l31.num_kv_heads, l31.context_length, l31.vocab_size) == (32, 8, 131072, 128256)
    # Stas Bekman: Llama-3.1-8B KV cache in bf16 is 0.131 MB per token
    kv = 2 * 2 * l31.layers * l31.num_kv_heads * l31.head_dim
    assert kv / 1e6 == pytest.approx(0.131, abs=0.001)
    mixtral = models["mixtral-8x7b"]
    assert (mixtral.moe_experts, mixtral.moe_active_experts) == (8, 2)
    assert models["gemma-2-9b"].tied_embeddings and models["gemma-2-9b"].head_dim == 256
    assert models["resnet-50"].kind == "cnn" and models["resnet-50"].hidden_size is None


def test_precision_and_cuda_support(catalog):
    support = {(p.architecture, p.precision): p for p in catalog.precision_support()}
    assert not support[("Ampere", "fp8")].supported
    assert support[("Hopper", "fp8")].supported
    assert not support[("Hopper", "int4")].supported  # Hopper has no INT4 tensor path
    assert support[("Ada Lovelace", "int4")].supported
    assert not support[("Volta", "bf16")].supported
    assert support[("Blackwell", "fp4")].min_cuda == "12.8"
    for gpu in catalog.gpus():
        fp8 = support[(gpu.architecture, "fp8")].supported
        assert fp8 == (gpu.fp8_dense_tflops is not None), gpu.id
    arch = {a.sm: a for a in catalog.cuda_arch_support()}
    assert arch["sm_70"].dropped_in_cuda == "13.0"
    assert arch["sm_75"].dropped_in_cuda is None
    assert arch["sm_120"].first_cuda == "12.8"


def test_scenarios_are_corrected(catalog):
    scenarios = {s.id: s for s in catalog.scenarios()}
    assert len(scenarios) == 5
    chat = scenarios["chat-api"]
    assert chat.article_recommended == "A10 24GB" and "no MIG" in chat.reason and "f" in chat.erratum
    assert "989.4" in scenarios["pretraining"].reason
    assert "HBM2" in scenarios["medical-imaging"].reason and "HBM2e" in scenarios["medical-imaging"].article_reason
    assert "108" in scenarios["startup-mvp"].corrected_memory_gb
    assert scenarios["student"].erratum is None
    for scenario in scenarios.values():
        assert (paths.examples_dir() / scenario.profile).is_file(), scenario.profile
