"""Packages of several devices, planned as the devices they are (issue 32).

An AMD Instinct MI250X holds two Graphics Compute Dies and an Ascend 910C two 910B-class dies; the driver, the SMI
(rocm-smi / amd-smi, npu-smi) and the framework (HIP, CANN / torch_npu) see each die as its own device with its own
half of the memory (AMD CDNA 2 white paper; Pawsey's Setonix guide: "two GCDs that are accessible as two logical
GPUs", 64 GB each; the npu-smi captures in tests/fixtures/vendor_logs: one NPU, two chips, 64 GB HBM each). A
model therefore shards over 64 GB devices, not over 128 GB cards: the planner counts devices. For every catalog
GPU with ``devices_per_package`` d > 1 the device view divides the memory, the bandwidth, the dense rates, the TDP
and the catalog price by d, and a chassis that takes only such packages holds d times as many devices. Totals
(power, price, TCO) are unchanged; only the unit of the count and the memory each shard sees change.

Approximation: the chassis's scale-up link is kept per device; the faster in-package link between the two dies
(MI250X: four Infinity Fabric links, 200 GB/s per direction; ``gpu_packages.die_link_gbps_per_direction``) is not
modelled separately, which errs on the slow side for the pair.
"""

from __future__ import annotations

import dataclasses

from gpudesk.catalog.records import GPU, Server
from gpudesk.i18n import _
from gpudesk.planner.prices import GpuPrice

_RATES = ("memory_bandwidth_gbps", "fp32_tflops", "tf32_dense_tflops", "fp16_dense_tflops", "bf16_dense_tflops",
          "fp8_dense_tflops", "int8_dense_tops", "fp4_dense_tflops", "tdp_w", "nvlink_gbps", "price_usd",
          "cloud_usd_per_gpu_hour")


def device_of(gpu: GPU) -> GPU:
    """One device of ``gpu``'s package (``gpu`` itself when the package is one device)."""
    d = gpu.devices_per_package
    if d <= 1:
        return gpu
    changes: dict[str, object] = {name: (value / d if value is not None else None)
                                  for name in _RATES for value in [getattr(gpu, name)]}
    memory_gb = gpu.memory_gb / d
    return dataclasses.replace(
        gpu, memory_gb=memory_gb, memory_bytes=gpu.memory_bytes // d,
        name=_("{gpu}, one of its {devices} dies ({memory_gb:g} GB each)").format(
            gpu=gpu.name, devices=d, memory_gb=memory_gb),
        **changes)  # type: ignore[arg-type]


def device_view(gpus: list[GPU], servers: list[Server]) -> tuple[list[GPU], list[Server]]:
    """The GPUs as devices, and the chassis counted in devices (a chassis that takes only d-device packages holds
    d times its package count)."""
    devices = [device_of(g) for g in gpus]
    out: list[Server] = []
    for server in servers:
        taken = {g.devices_per_package for g in gpus if server.accepts(g)}
        d = taken.pop() if len(taken) == 1 else 1
        out.append(server if d <= 1 else dataclasses.replace(server, min_gpus=server.min_gpus * d,
                                                             max_gpus=server.max_gpus * d))
    return devices, out


def package_warning(gpu: GPU, count: int) -> str | None:
    """What a buyer must know about a multi-device package: the plan counts dies, not cards."""
    d = gpu.devices_per_package
    if d <= 1:
        return None
    packages = -(-count // d)
    return _("The count is in devices: each package holds {devices} dies, each its own device in the driver and "
             "the SMI with {memory_gb:g} GB; {count} devices are {packages} packages to buy.").format(
        devices=d, memory_gb=gpu.memory_gb, count=count, packages=packages)


def per_device_price(price: GpuPrice, gpu: GPU) -> GpuPrice:
    """A price entered for a package (the profile's or the user's, keyed by the catalog id) split over its devices;
    catalog prices are already per device in :func:`device_of`."""
    d = gpu.devices_per_package
    if d <= 1 or price.price_usd is None or price.origin not in ("requirement", "user"):
        return price
    return dataclasses.replace(price, price_usd=price.price_usd / d)
