"""Issue 32: a two-die package (AMD MI250X: two GCDs; Ascend 910C: two dies) is planned as two devices of half the
memory each, as the driver and the SMI present it (AMD CDNA 2 white paper; npu-smi captures of Atlas A3)."""

from __future__ import annotations

import dataclasses

import pytest

from gpudesk import paths
from gpudesk.catalog import open_catalog
from gpudesk.planner.packages import device_of, device_view, per_device_price
from gpudesk.planner.plan import plan
from gpudesk.planner.prices import GpuPrice
from gpudesk.planner.profile import load_profile

GIB = 2**30


@pytest.fixture(scope="module")
def catalog():
    return open_catalog()


def test_catalog_says_which_packages_hold_two_devices(catalog):
    two = {g.id for g in catalog.gpus() if g.devices_per_package == 2}
    assert two == {"mi250x", "ascend-910c", "k80"}
    assert catalog.gpu("a16").devices_per_package == 4  # four GA107 GPUs on one board
    # Gaudi 3, MI300X: one device
    assert all(g.devices_per_package == 1 for g in catalog.gpus() if g.id not in two | {"a16"})


def test_a_device_is_half_the_package(catalog):
    pkg = catalog.gpu("mi250x")
    die = device_of(pkg)
    assert die.memory_bytes == pkg.memory_bytes // 2 and die.memory_gb == 64
    assert die.bf16_dense_tflops == pkg.bf16_dense_tflops / 2 and die.tdp_w == pkg.tdp_w / 2
    assert die.memory_bandwidth_gbps == pkg.memory_bandwidth_gbps / 2 and die.fp8_dense_tflops is None
    assert "one of its 2 dies" in die.name and device_of(catalog.gpu("mi300x")) is catalog.gpu("mi300x")
    _gpus, servers = device_view(catalog.gpus(), catalog.servers())
    by_id = {s.id: s for s in servers}
    assert by_id["mi250x-oam-4"].max_gpus == 8 and by_id["atlas-800t-a3"].max_gpus == 16
    assert by_id["mi300x-oam-8"].max_gpus == 8


def test_a_package_price_you_enter_is_split_over_its_dies(catalog):
    die = device_of(catalog.gpu("ascend-910c"))
    assert per_device_price(GpuPrice(30000.0, "user"), die).price_usd == 15000
    assert per_device_price(GpuPrice(30000.0, "user"), catalog.gpu("mi300x")).price_usd == 30000


def test_the_70b_service_shards_over_64_gb_dies(catalog):
    req = load_profile(paths.examples_dir() / "serve-70b-any-vendor.toml")
    result = plan(req, catalog)
    c910 = next(c for c in result.candidates if c.gpu_id == "ascend-910c")
    assert c910.count % 2 == 0 and c910.per_gpu_memory_bytes < 64 * GIB
    assert any(f"{c910.count} devices are {c910.count // 2} packages to buy" in w for w in c910.warnings)
    priced = dataclasses.replace(req, tco=dataclasses.replace(req.tco, gpu_price_overrides_usd={"ascend-910c": 40000}))
    c = next(c for c in plan(priced, catalog).candidates if c.gpu_id == "ascend-910c")
    assert c.gpu_price.price_usd == 20000  # per die: the whole order still costs 40000 per package


def test_estimate_memory_on_a_package_fits_one_die(capsys):
    from gpudesk.cli import main

    assert main(["estimate", "memory", "--model", "llama-3.1-8b", "--mode", "inference", "--gpu", "mi250x"]) == 0
    out = capsys.readouterr().out
    assert "one of its 2 dies (64 GB each)" in out and "63.09 GiB usable" in out


def test_free_slots_count_packages_not_dies(catalog):
    from gpudesk.planner.gates import server_gates

    req = load_profile(paths.examples_dir() / "serve-70b-any-vendor.toml")
    req = dataclasses.replace(req, operations=dataclasses.replace(req.operations, existing_server="mi250x-oam-4",
                                                                  free_slots=4))
    _gpus, servers = device_view(catalog.gpus(), catalog.servers())
    server = next(s for s in servers if s.id == "mi250x-oam-4")
    die = device_of(catalog.gpu("mi250x"))
    assert server_gates(server, die, 8, 1, req) == []  # 8 dies = 4 packages = 4 slots
    assert server_gates(server, die, 10, 1, req)  # 5 packages do not fit 4 slots
