"""Direct scrape of exporter /metrics endpoints, on real DCGM exporter captures (URL in each fixture's header)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.prometheus_server import Exporter, free_port

from gpudesk.telemetry.core import dcgm_fields as df
from gpudesk.telemetry.core import model as m
from gpudesk.telemetry.fleet.exporter_scrape import parse_exposition, scrape
from gpudesk.telemetry.fleet.fleet import KeyIndex
from gpudesk.telemetry.fleet.fleet_http import (
    FleetBadResponse,
    FleetError,
    FleetNoData,
    FleetUnreachable,
)
from gpudesk.telemetry.core.model import Sample

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "fleet"


def parse(name: str):
    index = KeyIndex()
    samples: dict[int, Sample] = {}
    skipped = parse_exposition((FIXTURES / name).read_text(), index, samples, 0.0, "fallback:9400", name)
    return index.keys, samples, skipped


def test_every_fixture_names_its_source():
    for path in FIXTURES.glob("*.prom"):
        assert path.read_text().startswith("# source: https://github.com/"), path


def test_h100_mig_instances_with_pods_issue_512():
    # Case: H100 node gsrh100-074 with MIG 1g.10gb instances 7, 8, 9 (pods on 7 and 9), GR engine ratio 0.
    keys, samples, skipped = parse("dcgm_exporter_h100_mig_issue512.prom")
    assert skipped == 0
    assert [(k.host, k.gpu_index, k.mig_instance, k.mig_profile) for k in keys] == [
        ("gsrh100-074", 0, 7, "1g.10gb"), ("gsrh100-074", 0, 8, "1g.10gb"), ("gsrh100-074", 0, 9, "1g.10gb")]
    assert keys[0].job_name == "model-playground-stg/text-embedding-predictor-00008-deployment-57946f6c67-vdtjl"
    assert keys[1].job_name is None
    assert keys[0].model_name == "NVIDIA H100 80GB HBM3"
    assert samples[0].values == {df.GR_ENGINE_ACTIVE: 0.0}


def test_mixed_node_lowercase_hostname_pr_736():
    # Case: RTX 2000 Ada (no MIG) + A30s with MIG 1g.6gb held by triton pods; newer exporters write "hostname".
    keys, samples, _ = parse("dcgm_exporter_mixed_mig_k8s_pr736.prom")
    assert {k.host for k in keys} == {"dcgm-exporter-wwwjh"}
    ada = next(i for i, k in enumerate(keys) if k.gpu_index == 1)
    assert samples[ada].values[m.DEC_UTIL] == 46.0 and samples[ada].values[m.MEM_FREE] == 11275 * 2**20
    assert samples[ada].values[m.GPU_TEMP] == 44.0
    migs = sorted((k.gpu_index, k.mig_instance, k.job_name) for k in keys if k.mig_instance is not None)
    assert migs == [(0, 3, "default/triton-server-f7cb5d77-wwk9g"), (0, 6, "default/triton-server-f7cb5d77-2w5b2"),
                    (2, 3, "default/triton-server-f7cb5d77-95xcf")]


def test_mps_shared_gpu_is_one_gpu_pr_432():
    # Case: one A100 shared by two pods through MPS: two series, same UUID, same FB_USED. One GPU, not two.
    keys, samples, _ = parse("dcgm_exporter_a100_mps_pr432.prom")
    assert len(keys) == 1 and keys[0].uuid == "GPU-3bc239e1-4cc8-97e4-e817-5a36dfd2885e"
    assert samples[0].values[m.MEM_USED] == 15866 * 2**20


def test_v100_node_and_a30_mig_issues_250_317():
    keys, samples, _ = parse("dcgm_exporter_v100_issue250.prom")
    # GPU 1 appears only in DCGM_FI_DEV_PCIE_REPLAY_COUNTER, declared "# TYPE ... counter": prometheus_client's
    # parser renamed it ..._total, so gpudesk missed it before its own reader (issue 25); the node has 4 GPUs.
    assert sorted(k.gpu_index for k in keys) == [0, 1, 2, 3]
    assert {k.host for k in keys} == {"r6i3n0"}
    power = [s.values.get(m.POWER_LIMIT) for s in samples.values()]
    assert sorted(p for p in power if p is not None) == [300.0, 300.0]
    keys, samples, _ = parse("dcgm_exporter_a30_mig_issue317.prom")
    assert len(keys) == 6 and all(s.values[df.DRAM_ACTIVE] == 0.0 for s in samples.values())


def test_blank_sentinels_become_none_with_reason():
    text = ('DCGM_FI_DEV_GPU_TEMP{gpu="0",UUID="GPU-x"} 140737488355330\n'
            'DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-x"} 9223372036854775792\n'
            'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-x"} 12\n')
    index, samples = KeyIndex(), {}
    parse_exposition(text, index, samples, 0.0, "h:9400", "t")
    s = samples[0]
    assert s.values[m.GPU_TEMP] is None and s.reasons[m.GPU_TEMP] == "DCGM not supported"
    assert s.values[m.POWER] is None and s.reasons[m.POWER].startswith("DCGM blank")
    assert s.values[m.GPU_UTIL] == 12.0
    assert index.keys[0].host == "h:9400"  # no Hostname label: the URL's host:port


def test_all_smi_metrics_are_recognised():
    # Layout of all-smi's exporter (README of https://github.com/lablup/all-smi): gpu = model, instance, uuid, index.
    text = ('all_smi_gpu_utilization{gpu="NVIDIA H200 141GB HBM3", instance="node-0058", uuid="GPU-12345", '
            'index="0"} 25.5\n'
            'all_smi_gpu_memory_used_bytes{gpu="NVIDIA H200 141GB HBM3", instance="node-0058", uuid="GPU-12345", '
            'index="0"} 8589934592\n')
    index, samples = KeyIndex(), {}
    parse_exposition(text, index, samples, 0.0, "h:9090", "t")
    key = index.keys[0]
    assert (key.host, key.gpu_index, key.uuid, key.model_name) == ("node-0058", 0, "GPU-12345",
                                                                    "NVIDIA H200 141GB HBM3")
    assert samples[0].values == {m.GPU_UTIL: 25.5, m.MEM_USED: 8589934592.0}


def test_scrape_over_http_and_errors():
    text = (FIXTURES / "dcgm_exporter_h100_mig_issue512.prom").read_text()
    exporter = Exporter(lambda host: text if host == "a" else "<html>not metrics {{</html>")
    try:
        snap = scrape([exporter.url("a")], timeout_s=5)
        assert len(snap.keys) == 3 and snap.batch.source == "scrape"
        assert snap.to_dict()["gpus"][0]["mig_instance"] == 7
        with pytest.raises(FleetBadResponse):
            scrape([exporter.url("b")], timeout_s=5)
        with pytest.raises(FleetBadResponse) as err:
            scrape([f"http://127.0.0.1:{exporter.port}/nothing"], timeout_s=5)
        assert "404" in err.value.message
    finally:
        exporter.close()
    with pytest.raises(FleetUnreachable):
        scrape([f"http://127.0.0.1:{free_port()}/metrics"], timeout_s=2)
    with pytest.raises(FleetError):
        scrape(["ftp://example/metrics"])
    empty = Exporter(lambda host: "# nothing here\n")
    try:
        with pytest.raises(FleetNoData):
            scrape([empty.url("x")], timeout_s=5)
    finally:
        empty.close()


def test_lowercased_names_and_old_k8s_labels_issue_272():
    # Case: lower-cased DCGM names, "uuid" label, pod_name/pod_namespace/container_name left empty under MIG.
    keys, samples, _ = parse("dcgm_exporter_a100_mig_lowercase_issue272.prom")
    assert [(k.gpu_index, k.mig_instance, k.mig_profile) for k in keys] == [
        (0, 1, "3g.40gb"), (0, 2, "4g.40gb"), (1, 1, "3g.40gb"), (1, 2, "4g.40gb")]
    assert keys[2].uuid == "GPU-6043e4b2-feaa-8010-34c7-61d1a01576bb" and keys[0].job_name is None
    assert all(s.values == {df.GR_ENGINE_ACTIVE: 0.0} for s in samples.values())


def test_nvitop_exporter_metrics_are_recognised():
    # Names and labels as nvitop-exporter's prometheus_client gauges render them (unit appended to the name;
    # nvitop-exporter/nvitop_exporter/exporter.py of https://github.com/XuehaiPan/nvitop).
    text = ('# TYPE gpu_utilization_Percentage gauge\n'
            'gpu_utilization_Percentage{devicename="NVIDIA A100-SXM4-80GB",hostname="dgx1",index="3",'
            'uuid="GPU-aaaa"} 97.0\n'
            '# TYPE gpu_memory_used_MiB gauge\n'
            'gpu_memory_used_MiB{devicename="NVIDIA A100-SXM4-80GB",hostname="dgx1",index="3",uuid="GPU-aaaa"} 1024.0\n'
            '# TYPE gpu_pcie_rx_throughput_MiBps gauge\n'
            'gpu_pcie_rx_throughput_MiBps{devicename="NVIDIA A100-SXM4-80GB",hostname="dgx1",index="3",'
            'uuid="GPU-aaaa"} 2.0\n')
    index, samples = KeyIndex(), {}
    parse_exposition(text, index, samples, 0.0, "h:8000", "t")
    key = index.keys[0]
    assert (key.host, key.gpu_index, key.uuid, key.model_name) == ("dgx1", 3, "GPU-aaaa", "NVIDIA A100-SXM4-80GB")
    assert samples[0].values == {m.GPU_UTIL: 97.0, m.MEM_USED: 2.0**30, m.PCIE_RX: 2.0 * 2**20}
