"""ggml's graph allocator and backend scheduler, simulated: the compute buffer each backend gets.

llama.cpp reserves its compute buffers once, for the worst-case graph (``ggml_backend_sched_reserve``), and prints
their sizes ("CUDA0 compute buffer size", "CPU compute buffer size"). The sizes are the outcome of two mechanisms,
simulated here on the nodes of a :class:`Graph` (built by :mod:`gpudesk.sizing.engines.ggml_graph`):

Scheduler (ggml-org/llama.cpp ``ggml/src/ggml-backend.cpp``: ``ggml_backend_sched_backend_id_from_cur`` and the
passes of ``ggml_backend_sched_split_graph``, the same since the b2xxx builds; checked against the ggml-org/ci
V100 logs of Pythia 2.8B with ``-ngl 10``, 203.99 MiB, and a two-GPU pipeline, llama.cpp PR 6122's Command-R log,
CUDA0 672.01 MiB):

- an op reading a weight runs where the weight lives, except that a GPU "offloads" an op on a host weight when its
  result has at least 32 rows and it is not ``GET_ROWS`` (``ggml_backend_cuda_offload_op``, ``min_batch_size``);
  graph inputs (token ids, positions, the KQ mask) live on the CPU; a view, and a copy into the KV cache, runs
  where its source's buffer is; every other op takes the GPU from its neighbours ("expand gpu down/up");
- the node list is cut into splits where the backend changes, and where an op reads a weight from another backend
  ("by starting a new split, the memory of the previously offloaded weights can be reused");
- a tensor read from another backend is copied into the reading backend's compute buffer once, at the start of the
  first split that reads it (``tensor_copy``), and lives until its last reader there.

Allocator (``ggml/src/ggml-alloc.c``, read at commit 0450e2f9; the single-chunk form of the b2xxx-b4xxx builds behaves the
same for one buffer): nodes in graph order, graph inputs first; a node of an op that can run in place
(``ggml_op_can_inplace``: add, mul, scale, unary, rope, rms_norm, soft_max ...) takes its parent's memory when the
parent is its own, has this node as its only consumer, no views, and the same layout (a view is never the
allocator's own, so RoPE on a reshaped tensor gets new memory); otherwise the best-fitting
free block below the top (``ggml_dyn_tallocr_alloc``), else the top of the buffer; a tensor is freed (adjacent free
blocks merged) after its last consumer ran, a view's source after its last view's last consumer. The buffer's size
is the highest offset reached (``max_size``), offsets aligned to the backend's alignment.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Ops ggml-alloc lets write into their parent's memory (``ggml_op_can_inplace``).
INPLACE_OPS = frozenset({"scale", "add", "mul", "sub", "div", "unary", "rope", "rms_norm", "soft_max", "sqr",
                         "sqrt", "log", "clamp", "diag_mask_inf"})
#: Ops that are views of their source (no memory of their own).
VIEW_OPS = frozenset({"view", "reshape", "permute", "transpose"})
#: Backend names: the first GPU (``gpu``; further GPUs ``gpu1``, ``gpu2`` ...) and the host.
GPU, CPU = "gpu", "cpu"
#: Copies of every split input with pipeline parallelism (``GGML_SCHED_MAX_COPIES``).
MAX_COPIES = 4
#: Rows from which a GPU backend runs an op on a host weight (``ggml_backend_cuda_offload_op``: 32).
OFFLOAD_MIN_ROWS = 32


@dataclass(eq=False)
class Tensor:
    """One tensor of the graph: an op's result, a view, a graph input, or a pre-allocated leaf (weight, KV cache).

    ``layout`` stands for ggml's type, ``ne`` and ``nb`` (:func:`ggml_are_same_layout`); ``rows`` the product of
    the dimensions above the first (``ggml_nrows``)."""

    name: str
    op: str
    nbytes: int
    layout: tuple[object, ...]
    srcs: tuple[Tensor, ...] = ()
    view_src: Tensor | None = None
    view_offs: int = 0
    rows: int = 1
    backend: str | None = None   # leaves: where their buffer is; ops: filled by the scheduler
    weight: bool = False          # a leaf in a weights buffer (``GGML_BACKEND_BUFFER_USAGE_WEIGHTS``)
    external: bool = False        # pre-allocated (weights, KV cache): never placed by the allocator
    is_input: bool = False        # ``ggml_set_input``: allocated before every node


@dataclass
class Graph:
    """Nodes in ggml's order: ``expand`` walks a result's sources depth first, left to right
    (``ggml_build_forward_expand`` / ``ggml_visit_parents``), each tensor once."""

    nodes: list[Tensor] = field(default_factory=list)
    leafs: list[Tensor] = field(default_factory=list)
    _seen: set[int] = field(default_factory=set)

    def expand(self, t: Tensor) -> None:
        stack: list[tuple[Tensor, int]] = [(t, 0)]
        while stack:
            node, i = stack.pop()
            if id(node) in self._seen:
                continue
            if i < len(node.srcs):
                stack.append((node, i + 1))
                src = node.srcs[i]
                if id(src) not in self._seen:
                    stack.append((src, 0))
                continue
            self._seen.add(id(node))
            (self.leafs if node.op in ("leaf", "input") else self.nodes).append(node)


def _base(t: Tensor) -> Tensor:
    while t.view_src is not None:
        t = t.view_src
    return t


def assign_backends(graph: Graph, has_gpu: bool, offload_ops: bool = True) -> None:
    """The scheduler's backend of every node (module docstring); ``offload_ops``: the GPU backend runs ops on host
    weights (CUDA, HIP, Vulkan; Metal does not)."""
    for t in graph.leafs:
        if t.is_input or t.backend is None:
            t.backend = CPU
    nodes = graph.nodes
    for n in nodes:
        n.backend = None
        base = _base(n) if n.view_src is not None else None
        if base is not None and base.external:
            n.backend = base.backend  # a view or a copy into a pre-allocated buffer (KV cache)
            continue
        if n.op in VIEW_OPS:
            continue
        w = next((s for s in n.srcs if s.weight), None)
        if w is not None:
            if w.backend == CPU and has_gpu and offload_ops and n.op != "get_rows" and n.rows >= OFFLOAD_MIN_ROWS:
                n.backend = GPU  # the highest-priority backend, the first GPU
            else:
                n.backend = w.backend
    if not has_gpu:
        for n in nodes:
            n.backend = CPU
        return
    for order in (nodes, nodes[::-1]):  # expand gpu down, then up; the CPU does not spread
        cur: str | None = None
        for n in order:
            if n.op in VIEW_OPS:
                continue
            if n.backend is not None:
                cur = n.backend if n.backend != CPU else None
            elif cur is not None:
                n.backend = cur
    for order in (nodes, nodes[::-1]):  # expand the rest (CPU) down, then up
        cur = None
        for n in order:
            if n.op in VIEW_OPS:
                continue
            if n.backend is not None:
                cur = n.backend
            elif cur is not None:
                n.backend = cur
    for n in nodes:
        if n.backend is None and n.op not in VIEW_OPS:
            n.backend = GPU
    for n in nodes:  # views are on their source's backend
        if n.backend is None:
            n.backend = _base(n).backend or GPU


def _backend_of(t: Tensor) -> str:
    return t.backend or (_base(t).backend if t.view_src is not None else None) or CPU


def schedule(graph: Graph, n_copies: int = 1) -> list[Tensor]:
    """The scheduler's graph: each split's new input copies first, then its nodes; consumers re-pointed to the
    copies (``ggml_backend_sched_split_graph`` pass 5 and the graph copy). With pipeline parallelism
    (``n_copies`` > 1) every split input has ``n_copies`` copies, allocated before the graph and never freed
    (``ggml_set_input`` + ``ggml_set_output``), and so has every graph input on the host."""
    out: list[Tensor] = []
    copies: dict[tuple[int, str], Tensor] = {}
    cur: str | None = None
    split_start = 0
    split_inputs = 0
    for n in graph.nodes:
        if n.op in VIEW_OPS:
            out.append(n)
            continue
        b = _backend_of(n)
        new_split = b != cur
        if not new_split and split_inputs:
            new_split = any(s.weight and s.backend != b for s in n.srcs)
        if new_split:
            cur, split_start, split_inputs = b, len(out), 0
        srcs = list(n.srcs)
        for j, s in enumerate(srcs):
            if _backend_of(s) == b:
                continue
            key = (id(s), b)
            if key not in copies:
                # the copy reads its source (ggml's ``input_dep``), so the source lives until the copy is made
                copies[key] = Tensor(f"{b}#{s.name}", "copy", s.nbytes * n_copies, s.layout, srcs=(s,), backend=b,
                                     is_input=n_copies > 1)
                out.insert(split_start + split_inputs, copies[key])
                split_inputs += 1
            srcs[j] = copies[key]
        n.srcs = tuple(srcs)
        out.append(n)
    return out


class DynAllocator:
    """``ggml_dyn_tallocr``: a sorted free list, best fit below the top block, the top block as last resort."""

    def __init__(self, alignment: int) -> None:
        self.alignment = alignment
        self.free: list[list[int]] = [[0, 1 << 62]]
        self.max_size = 0

    def _align(self, size: int) -> int:
        a = self.alignment
        return -(-size // a) * a

    def alloc(self, size: int) -> int:
        size = self._align(size)
        best, best_size = -1, None
        for i, (_off, sz) in enumerate(self.free[:-1]):
            if sz >= size and (best_size is None or sz <= best_size):
                best, best_size = i, sz
        if best < 0:
            best = len(self.free) - 1
        block = self.free[best]
        offset = block[0]
        block[0] += size
        block[1] -= size
        if block[1] == 0:
            del self.free[best]
        self.max_size = max(self.max_size, offset + size)
        return offset

    def release(self, offset: int, size: int) -> None:
        size = self._align(size)
        for i, block in enumerate(self.free):
            if block[0] + block[1] == offset:
                block[1] += size
                if i + 1 < len(self.free) and block[0] + block[1] == self.free[i + 1][0]:
                    block[1] += self.free[i + 1][1]
                    del self.free[i + 1]
                return
            if offset + size == block[0]:
                block[0] = offset
                block[1] += size
                if i > 0 and self.free[i - 1][0] + self.free[i - 1][1] == block[0]:
                    self.free[i - 1][1] += block[1]
                    del self.free[i]
                return
        pos = next((i for i, b in enumerate(self.free) if b[0] > offset), len(self.free))
        self.free.insert(pos, [offset, size])


def allocate(graph: Graph, alignment: dict[str, int], n_copies: int = 1) -> dict[str, int]:
    """Compute buffer bytes per backend for ``graph`` (module docstring): schedule, then ``ggml_gallocr``;
    ``alignment`` names every backend the graph uses."""
    nodes = schedule(graph, n_copies)
    pinned = n_copies > 1
    allocs = {b: DynAllocator(a) for b, a in alignment.items()}
    children: dict[int, int] = {}
    views: dict[int, int] = {}
    where: dict[int, tuple[str, int]] = {}  # tensors the allocator placed: id -> (backend, offset)

    def own(t: Tensor) -> bool:
        return id(t) in where

    def place(t: Tensor) -> None:
        if own(t) or t.external or t.view_src is not None or t.op == "leaf":
            return
        b = _backend_of(t)
        if t.op in INPLACE_OPS:
            for p in t.srcs:
                if p.layout != t.layout or children.get(id(p), 0) != 1 or views.get(id(p), 0):
                    continue
                # a view parent is never the allocator's own (views are not allocated), so no in-place through it
                if p.view_src is None and own(p) and where[id(p)][0] == b and not (pinned and p.is_input):
                    where[id(t)] = where.pop(id(p))
                    return
        where[id(t)] = (b, allocs[b].alloc(t.nbytes))

    def release(t: Tensor) -> None:
        if pinned and t.is_input:
            return  # graph inputs and their copies are outputs: never freed
        b, off = where.pop(id(t))
        allocs[b].release(off, t.nbytes)

    for leaf in graph.leafs:
        if leaf.is_input:
            if pinned:
                leaf.nbytes *= n_copies
            place(leaf)
    for n in nodes:
        if n.is_input:
            place(n)
    for n in nodes:
        if n.view_src is not None and n.op in VIEW_OPS | {"cpy"}:
            views[id(n.view_src)] = views.get(id(n.view_src), 0) + 1
        for s in n.srcs:
            children[id(s)] = children.get(id(s), 0) + 1
    for n in nodes:
        place(n)
        for p in n.srcs:
            children[id(p)] -= 1
            if children[id(p)] or views.get(id(p), 0):
                continue
            if p.view_src is not None:
                vs = p.view_src
                views[id(vs)] -= 1
                if views[id(vs)] == 0 and children.get(id(vs), 0) == 0 and own(vs):
                    release(vs)
            elif own(p):
                release(p)
    return {b: a.max_size for b, a in allocs.items()}
