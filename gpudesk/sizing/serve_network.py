"""The network between the nodes of a serving replica whose tensor-parallel group spans nodes (or pods).

One job: read the inter-node network a user types (``--internode-network``, a row's published interconnect text)
and give the collective library's price of crossing it: the fixed time of one small all-reduce level between two
nodes and the bytes per second a rank's messages reach.

Two transports, as NCCL's NET layer has them (https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html,
NCCL_NET "IB" / "Socket"):

* RDMA (InfiniBand, RoCE; GPUDirect RDMA): today's default pricing, the module constants of
  :mod:`gpudesk.sizing.serve_rates` (19.9 us per tree level, nccl-tests issue 150; 50 GB/s ConnectX-7 NIC).
* TCP sockets (``NET/Socket``: Ethernet without RDMA, e.g. a Kubernetes pod network): the vLLM distributed-serving
  guide says these "perform poorly for cross-node tensor parallelism" (vllm-project/vllm docs/serving/
  distributed_serving.md, PR 20593). Every message is staged through host memory and sent by NCCL's proxy thread
  over the kernel's TCP stack.

  Latency: pytorch/gloo issue 158 (https://github.com/pytorch/gloo/issues/158) ran the same NCCL 2.3.7 all-reduce
  benchmark on the same two 8-GPU servers over IB RDMA (test 1) and over TCP/IP sockets (test 2): 1 / 2 / 4 KB took
  0.16 / 0.06 / 0.06 ms over RDMA and 1.89 / 1.46 / 2.06 ms over sockets, 11.8 / 24.3 / 34.3 times longer (median
  24.3). The socket tree level is that median times the RDMA level of nccl-tests issue 150 (19.9 us): 484 us.

  Bandwidth: NCCL over TCP reaches well under wire speed: "not ... more than 60% of wire speed over 32Gbps
  networks" (NVIDIA/nccl issue 209, https://github.com/NVIDIA/nccl/issues/209) and 4-6 GB/s bus bandwidth on a
  100 Gb/s TCP network, 32-48 % (NVIDIA/nccl issue 450, https://github.com/NVIDIA/nccl/issues/450, tuned
  NCCL_SOCKET_NTHREADS / NCCL_NSOCKS_PERTHREAD): half of the wire rate. The wire rate is the one typed
  (``ethernet-10g``, ``tcp 100 Gb/s``); without one 25 Gb/s (ASSUMED: the usual cloud / Kubernetes node NIC).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.serve_rates import NETWORK_ALLREDUCE_S, NETWORK_ALLREDUCE_SOURCE, NIC_BYTES_PER_S

RDMA = "rdma"
SOCKET = "socket"
TRANSPORTS = (RDMA, SOCKET)

# The NCCL all-reduce of 1, 2 and 4 KB over TCP sockets / over IB RDMA, same servers and benchmark (gloo issue 158).
SOCKET_OVER_RDMA_TIMES = (1.89 / 0.16, 1.46 / 0.06, 2.06 / 0.06)
SOCKET_OVER_RDMA = sorted(SOCKET_OVER_RDMA_TIMES)[1]
SOCKET_ALLREDUCE_S = NETWORK_ALLREDUCE_S * SOCKET_OVER_RDMA
SOCKET_LATENCY_SOURCE = ("NCCL all-reduce of 1-4 KB over TCP sockets vs IB RDMA on the same two servers, median "
                         "24x (pytorch/gloo issue 158, https://github.com/pytorch/gloo/issues/158) x the RDMA level "
                         "of " + NETWORK_ALLREDUCE_SOURCE)
SOCKET_WIRE_SHARE = 0.5
SOCKET_DEFAULT_BITS_PER_S = 25e9
SOCKET_BANDWIDTH_SOURCE = ("NCCL over TCP reaches about half the wire rate: NVIDIA/nccl issues 209 (under 60 % of "
                           "32 Gb/s, https://github.com/NVIDIA/nccl/issues/209) and 450 (4-6 GB/s of 100 Gb/s, "
                           "https://github.com/NVIDIA/nccl/issues/450)")

_RDMA_WORDS = re.compile(r"\b(rdma|roce\w*|infiniband|ib|ib-\w+|gpudirect|efa|slingshot\w*)\b")
_NO_RDMA = re.compile(r"\b(no|without|non|w/o)[\s-]+(gpudirect[\s-]+)?rdma\b")
_SOCKET_START = re.compile(r"^\s*(ethernet|eth|tcp|socket|sockets)\b")
_SPEED = re.compile(r"(\d+(?:\.\d+)?)\s*(?:g\b|gb\b|gbe\b|gbit|gb/s|gbps)")


@dataclass(frozen=True)
class InterNodeNetwork:
    """The inter-node network of a replica: ``transport`` (:data:`RDMA` or :data:`SOCKET`) and, for sockets, the
    wire rate typed (bits per second; None = :data:`SOCKET_DEFAULT_BITS_PER_S`)."""

    transport: str = RDMA
    wire_bits_per_s: float | None = None


def parse_internode_network(text: str | None) -> InterNodeNetwork | None:
    """The network ``text`` names: TCP sockets for text that starts with ``ethernet`` / ``eth`` / ``tcp`` /
    ``socket`` and names no RDMA (``roce``, ``rdma``, ``infiniband``, ``ib``; ``without rdma`` names none), RDMA
    for text that names one, None
    for text that names neither (the default RDMA pricing applies). A wire rate such as ``10g``, ``25 GbE`` or
    ``100 Gb/s`` in the text is kept for sockets."""
    if text is None or not str(text).strip():
        return None
    value = str(text).strip().lower()
    if _NO_RDMA.search(value):
        value = _NO_RDMA.sub(" ", value)
    elif _RDMA_WORDS.search(value.replace("_", " ")):
        return InterNodeNetwork(RDMA)
    if not _SOCKET_START.search(value):
        return None
    speed = _SPEED.search(value)
    return InterNodeNetwork(SOCKET, float(speed.group(1)) * 1e9 if speed and float(speed.group(1)) > 0 else None)


def internode_network(text: str | None, field: str = "internode_network") -> InterNodeNetwork | None:
    """:func:`parse_internode_network` of a user's input, refusing text that names no network."""
    if text is None or not str(text).strip():
        return None
    network = parse_internode_network(text)
    if network is None:
        raise SizingError(field, _(
            "{text!r} names no inter-node network; write e.g. ethernet-25g (TCP sockets, no RDMA) or rdma "
            "(InfiniBand / RoCE).").format(text=text))
    return network


@dataclass(frozen=True)
class NetworkLevel:
    """The price of crossing the network: ``latency_s`` of one small all-reduce tree level between two nodes,
    ``bytes_per_s`` a rank's messages reach (``measured_share``: already the library's measured share of the
    wire, else the NIC's rate before the link efficiency), ``source``."""

    latency_s: float
    bytes_per_s: float
    measured_share: bool
    source: str


def network_level(network: InterNodeNetwork | None) -> NetworkLevel:
    """The :class:`NetworkLevel` of ``network`` (None: RDMA, the module constants of serve_rates)."""
    if network is None or network.transport != SOCKET:
        return NetworkLevel(NETWORK_ALLREDUCE_S, NIC_BYTES_PER_S, False, NETWORK_ALLREDUCE_SOURCE)
    wire = network.wire_bits_per_s or SOCKET_DEFAULT_BITS_PER_S
    assumed = "" if network.wire_bits_per_s else _(" (no rate typed: {gbps:g} Gb/s ASSUMED)").format(
        gbps=SOCKET_DEFAULT_BITS_PER_S / 1e9)
    return NetworkLevel(SOCKET_ALLREDUCE_S, wire / 8 * SOCKET_WIRE_SHARE, True, _(
        "TCP sockets, no RDMA{assumed}: {latency}; {bandwidth}").format(
        assumed=assumed, latency=SOCKET_LATENCY_SOURCE, bandwidth=SOCKET_BANDWIDTH_SOURCE))
