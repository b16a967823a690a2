"""The worst-case graph llama.cpp reserves its compute buffers with, per architecture family, for the allocator
simulation of :mod:`gpudesk.sizing.engines.ggml_alloc`.

llama.cpp sizes its compute buffers on the prompt-processing graph of one micro-batch (``n_ubatch`` tokens, every
token an output, ``n_kv`` = the whole padded cache; ``llama_new_context_with_model`` / ``graph_reserve``). The graph
is the architecture's builder, each tensor a 4-byte float unless stated (ggml-org/llama.cpp):

- builds before the ``llm_graph_context`` split (about b5000): ``src/llama.cpp`` ``llm_build_context``
  (``build_llama``, ``build_qwen2``, ``build_gptneox``, ``build_phi3``, ``llm_build_norm``, ``llm_build_ffn``,
  ``llm_build_moe_ffn``, ``llm_build_kv`` / ``llm_build_kv_store`` / ``llm_build_kqv``), b2459-b4800 (the logs'
  builds); later builds: ``src/llama-graph.cpp`` (``build_attn_mha``, ``build_ffn``, ``build_norm``),
  ``src/llama-kv-cache.cpp`` (``cpy_k``/``cpy_v``, ``build_input_v_idxs``) and ``src/models/*.cpp`` (``phi3.cpp``
  at 358a4a01, ``gptneox.cpp``), with the three changes dated at :data:`FUSED_QKV_VIEWS_BUILD`,
  :data:`GLU_OPS_BUILD` and :data:`V_IDXS_BUILD`.
- inputs on the host: token ids, positions, the KQ mask (``n_kv x pad(n_tokens, 32)``, f32; cast to f16 with flash
  attention) and the output ids; the token embedding's ``get_rows`` runs where the embedding lives (the host);
- per layer: norm (``ggml_norm`` / ``ggml_rms_norm``, times the weight, plus the bias), Q, K, V projections (one
  fused ``wqkv`` matmul in GPT-NeoX and Phi-3/4, split into Q, K, V by ``ggml_cont`` of views in the older builds),
  RoPE, the K and V copies into the cache, then without flash attention the f32 scores ``KQ`` (``n_kv x n_tokens x
  n_head``) and their soft-max (in place), ``KQV``, its contiguous merge, the output projection; with flash
  attention one ``flash_attn_ext`` op; the MLP (gated: up, gate, SiLU, product, down; GPT-NeoX: up, GELU, down,
  and the parallel residual; Phi-3/4: one up matmul of ``2 x n_ff`` split by views); the last layer gathers the
  output rows (``get_rows``); the output norm and the logits (``n_vocab x n_tokens``).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpudesk.sizing.engines.ggml_alloc import CPU, Graph, Tensor

#: First builds (approximate, from the PRs' merge dates) of three graph changes that move the compute buffer:
#: Q/K/V of a fused projection as strided views instead of ``ggml_cont`` copies (the ``llm_graph_context``
#: builders after the 2025 clean-ups); the fused ``ggml_swiglu_split`` / ``ggml_swiglu`` GLU ops in ``build_ffn``
#: (ggml PR 14158, June 2025), which write a new tensor where SiLU and the product ran in place; and the KV store
#: by ``ggml_set_rows`` with one int64 cache index per token and V element when V is transposed (no flash
#: attention; ``llama_kv_cache::build_input_v_idxs``), a graph input of ``n_tokens x n_embd_v_gqa x 8`` bytes.
FUSED_QKV_VIEWS_BUILD = 6000
GLU_OPS_BUILD = 5750
V_IDXS_BUILD = 6500
F32 = 4
#: Builder weight name -> GGUF tensor name (``blk.N.`` prefixed inside the blocks, ``.weight`` dropped).
_GGUF_NAMES = {"wq": "attn_q", "wk": "attn_k", "wv": "attn_v", "wqkv": "attn_qkv", "bqkv": "attn_qkv.bias",
               "wo": "attn_output", "bo": "attn_output.bias", "attn_norm.w": "attn_norm", "attn_norm.b": "attn_norm.bias",
               "ffn_norm.w": "ffn_norm", "ffn_norm.b": "ffn_norm.bias", "output_norm.w": "output_norm",
               "output_norm.b": "output_norm.bias", "ffn_up_b": "ffn_up.bias", "ffn_down_b": "ffn_down.bias"}
KQ_MASK_PAD = 32


@dataclass(frozen=True)
class GraphShape:
    """What the graph builder needs of a model (GGUF hyperparameters)."""

    n_layer: int
    n_embd: int
    n_head: int
    n_head_kv: int
    head_dim: int
    n_ff: int
    n_vocab: int
    fused_qkv: bool = False     # one attn_qkv projection
    gated: bool = True          # SwiGLU MLP (gate and up); False: up, GELU, down
    layer_norm: bool = False    # ggml_norm (+ bias) instead of ggml_rms_norm
    parallel_residual: bool = False
    n_expert: int = 0
    n_expert_used: int = 0
    n_ff_expert: int = 0
    n_shared_expert: int = 0


class _Builder:
    def __init__(self, shape: GraphShape, n_tokens: int, n_kv: int, flash_attn: bool, layer_devices: dict[int, str],
                 output_device: str, kv_on_gpu: bool, build: int, weight_bytes: dict[str, int],
                 kv_bytes: tuple[float, float], swa_layers: frozenset[int], n_kv_swa: int) -> None:
        self.kv_bytes = kv_bytes
        self.s, self.t, self.n_kv, self.fa = shape, n_tokens, n_kv, flash_attn
        self.layer_devices, self.output_device, self.kv_on_gpu = layer_devices, output_device, kv_on_gpu
        self.swa_layers, self.n_kv_swa = swa_layers, n_kv_swa
        self.legacy = build < FUSED_QKV_VIEWS_BUILD
        self.glu = build >= GLU_OPS_BUILD
        self.v_idxs = None if flash_attn or build < V_IDXS_BUILD else self.input(
            "v_idxs", (n_tokens * shape.n_head_kv * shape.head_dim,), 8)
        self.weight_bytes = weight_bytes
        self.g = Graph()
        self._n = 0

    # -- tensors ------------------------------------------------------------------------------------------------
    def _name(self, base: str) -> str:
        self._n += 1
        return f"{base}.{self._n}"

    def weight(self, name: str, layer: int | None) -> Tensor:
        device = self.output_device if layer is None else self.layer_devices.get(layer, CPU)
        if name == "token_embd":
            device = CPU
        gguf = _GGUF_NAMES.get(name, name)
        if layer is not None:
            gguf = f"blk.{layer}.{gguf}"
        gguf += "" if gguf.endswith(".bias") else ".weight"
        if name == "output" and gguf not in self.weight_bytes:
            gguf = "token_embd.weight"  # tied embeddings: the output layer reads the embedding matrix
        return Tensor(name, "leaf", self.weight_bytes.get(gguf, 0), (0, name), backend=device, weight=True,
                      external=True)

    def kv(self, name: str, layer: int, bytes_per_value: float) -> Tensor:
        device = self.layer_devices.get(layer, CPU) if self.kv_on_gpu else CPU
        return Tensor(name, "leaf", 0, (bytes_per_value, name), backend=device, external=True)

    def input(self, name: str, shape: tuple[int, ...], size: int = F32) -> Tensor:
        return Tensor(name, "input", _prod(shape) * size, (size, shape), rows=_rows(shape), is_input=True,
                      backend=CPU)

    def op(self, op: str, srcs: tuple[Tensor, ...], shape: tuple[int, ...], size: int = F32) -> Tensor:
        return Tensor(self._name(op), op, _prod(shape) * size, (size, shape), srcs=srcs, rows=_rows(shape))

    def view(self, src: Tensor, shape: tuple[int, ...], offs: int = 0, contiguous: bool = True,
             op: str = "view") -> Tensor:
        base = src.view_src or src
        size = src.layout[0]
        assert isinstance(size, (int, float))
        layout: tuple[object, ...] = (size, shape) if contiguous and offs == 0 else (size, shape, self._name("v"))
        return Tensor(self._name(op), op, int(_prod(shape) * size), layout, srcs=(src,), view_src=base,
                      view_offs=src.view_offs + offs, rows=_rows(shape))

    # -- llama.cpp helpers --------------------------------------------------------------------------------------
    def mm(self, w: Tensor, x: Tensor, out: int) -> Tensor:
        return self.op("mul_mat", (w, x), (out, _rows_of(x)))

    def same(self, op: str, srcs: tuple[Tensor, ...]) -> Tensor:
        return self.op(op, srcs, _shape(srcs[0]))

    def norm(self, x: Tensor, name: str, layer: int | None) -> Tensor:
        cur = self.same("norm" if self.s.layer_norm else "rms_norm", (x,))
        cur = self.same("mul", (cur, self.weight(f"{name}.w", layer)))
        if self.s.layer_norm:
            cur = self.same("add", (cur, self.weight(f"{name}.b", layer)))
        return cur

    def attention(self, il: int, q: Tensor, k: Tensor, v: Tensor, mask: Tensor) -> Tensor:
        s, t = self.s, self.t
        n_kv = self.n_kv_swa if il in self.swa_layers else self.n_kv
        for x in (q, k, v):  # llm_build_kv: added together so the scheduler splits less
            self.g.expand(x)
        k_cache, v_cache = self.kv(f"k_l{il}", il, self.kv_bytes[0]), self.kv(f"v_l{il}", il, self.kv_bytes[1])
        kv_width = s.n_head_kv * s.head_dim
        self.g.expand(Tensor(self._name("cpy_k"), "cpy", 0, ("kv",), srcs=(k, self.view(k_cache, (kv_width * t,))),
                             view_src=k_cache))
        v_src = v if self.fa else self.view(v, (t, kv_width), contiguous=False, op="transpose")
        v_srcs = (v_src, self.view(v_cache, (kv_width * t,))) + ((self.v_idxs,) if self.v_idxs is not None else ())
        self.g.expand(Tensor(self._name("cpy_v"), "cpy", 0, ("kv",), srcs=v_srcs, view_src=v_cache))
        qp = self.view(q, (s.head_dim, t, s.n_head), contiguous=False, op="permute")
        kk = self.view(k_cache, (s.head_dim, n_kv, s.n_head_kv), contiguous=False)
        vv = self.view(v_cache, (s.head_dim, n_kv, s.n_head_kv), contiguous=False)
        if self.fa:
            cur = self.op("flash_attn_ext", (qp, kk, vv, mask), (s.head_dim, s.n_head, t))
            cur = self.view(cur, (s.head_dim * s.n_head, t), op="reshape")
        else:
            kq = self.op("mul_mat", (kk, qp), (n_kv, t, s.n_head))
            kq = self.same("soft_max", (kq, mask))
            kqv = self.op("mul_mat", (vv, kq), (s.head_dim, t, s.n_head))
            merged = self.view(kqv, (s.head_dim, s.n_head, t), contiguous=False, op="permute")
            cur = self.op("cont", (merged,), (s.head_dim * s.n_head, t))
        self.g.expand(cur)
        cur = self.mm(self.weight("wo", il), cur, s.n_embd)
        return cur

    def qkv(self, il: int, x: Tensor, pos: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        s, t = self.s, self.t
        q_w, kv_w = s.n_head * s.head_dim, s.n_head_kv * s.head_dim
        if s.fused_qkv:
            cur = self.mm(self.weight("wqkv", il), x, q_w + 2 * kv_w)
            if s.layer_norm:
                cur = self.same("add", (cur, self.weight("bqkv", il)))
            parts = []
            for width, offs in ((q_w, 0), (kv_w, q_w), (kv_w, q_w + kv_w)):
                v = self.view(cur, (width, t), offs * F32, contiguous=False)
                parts.append(self.op("cont", (v,), (width, t)) if self.legacy else v)
            q, k, v = parts
        else:
            q = self.mm(self.weight("wq", il), x, q_w)
            k = self.mm(self.weight("wk", il), x, kv_w)
            v = self.mm(self.weight("wv", il), x, kv_w)
        q3 = self.view(q, (s.head_dim, s.n_head, t), op="reshape") if q.view_src is None else q
        k3 = self.view(k, (s.head_dim, s.n_head_kv, t), op="reshape") if k.view_src is None else k
        q = self.op("rope", (q3, pos), (s.head_dim, s.n_head, t))
        k = self.op("rope", (k3, pos), (s.head_dim, s.n_head_kv, t))
        if v.view_src is not None and not self.legacy:
            v = self.op("cont", (v,), (kv_w, t))
        return q, k, v

    def ffn(self, il: int, x: Tensor) -> Tensor:
        s, t = self.s, self.t
        if s.n_expert:
            return self.moe(il, x)
        if s.fused_qkv and s.gated:  # Phi-3/4: ffn_up holds gate and up, split by views (LLM_FFN_SWIGLU)
            up = self.mm(self.weight("ffn_up", il), x, 2 * s.n_ff)
            if self.glu:
                cur = self.op("glu", (up,), (s.n_ff, t))
            else:
                x0 = self.op("cont", (self.view(up, (s.n_ff, t), contiguous=False),), (s.n_ff, t))
                x1 = self.op("cont", (self.view(up, (s.n_ff, t), s.n_ff * F32, contiguous=False),), (s.n_ff, t))
                cur = self.same("mul", (self.same("unary", (x0,)), x1))
        elif s.gated:
            up = self.mm(self.weight("ffn_up", il), x, s.n_ff)
            gate = self.mm(self.weight("ffn_gate", il), x, s.n_ff)
            cur = self.same("glu", (gate, up)) if self.glu else self.same("mul", (self.same("unary", (gate,)), up))
        else:
            up = self.mm(self.weight("ffn_up", il), x, s.n_ff)
            if s.layer_norm:
                up = self.same("add", (up, self.weight("ffn_up_b", il)))
            cur = self.same("unary", (up,))
        cur = self.mm(self.weight("ffn_down", il), cur, s.n_embd)
        if s.layer_norm:
            cur = self.same("add", (cur, self.weight("ffn_down_b", il)))
        return cur

    def moe(self, il: int, x: Tensor) -> Tensor:
        """``llm_build_moe_ffn``: router logits and soft-max, top-k, expert weights, the three expert matmuls over
        ``n_expert_used`` rows per token, the weighted sum of the expert outputs."""
        s, t, k = self.s, self.t, self.s.n_expert_used
        logits = self.mm(self.weight("ffn_gate_inp", il), x, s.n_expert)
        probs = self.same("soft_max", (logits,))
        order = self.op("argsort", (probs,), (s.n_expert, t), 4)
        sel = self.view(order, (k, t), contiguous=False)
        weights = self.op("get_rows", (self.view(probs, (1, s.n_expert, t), op="reshape"), sel), (1, k, t))
        x3 = self.view(x, (s.n_embd, 1, t), op="reshape")
        up = self.op("mul_mat_id", (self.weight("ffn_up_exps", il), x3, sel), (s.n_ff_expert, k, t))
        gate = self.op("mul_mat_id", (self.weight("ffn_gate_exps", il), x3, sel), (s.n_ff_expert, k, t))
        par = self.same("glu", (gate, up)) if self.glu else self.same("mul", (self.same("unary", (gate,)), up))
        experts = self.op("mul_mat_id", (self.weight("ffn_down_exps", il), par, sel), (s.n_embd, k, t))
        experts = self.same("mul", (experts, weights))
        out = self.op("add", (self.view(experts, (s.n_embd, t), contiguous=False),
                              self.view(experts, (s.n_embd, t), s.n_embd * F32, contiguous=False)), (s.n_embd, t))
        for i in range(2, k):
            out = self.same("add", (out, self.view(experts, (s.n_embd, t), i * s.n_embd * F32, contiguous=False)))
        if s.n_shared_expert:
            sh_w = s.n_ff_expert * s.n_shared_expert
            up_s = self.mm(self.weight("ffn_up_shexp", il), x, sh_w)
            gate_s = self.mm(self.weight("ffn_gate_shexp", il), x, sh_w)
            act = self.same("glu", (gate_s, up_s)) if self.glu else self.same("mul", (self.same("unary", (gate_s,)), up_s))
            sh = self.mm(self.weight("ffn_down_shexp", il), act, s.n_embd)
            out = self.same("add", (out, sh))
        return out

    def build(self) -> Graph:
        s, t = self.s, self.t
        tokens = self.input("inp_tokens", (t,), 4)
        inp = self.op("get_rows", (self.weight("token_embd", None), tokens), (s.n_embd, t))
        pos = self.input("inp_pos", (t,), 4)
        masks = []
        for cells in (self.n_kv, self.n_kv_swa if self.swa_layers else 0):
            if cells:
                mask_in = self.input("KQ_mask", (cells, -(-t // KQ_MASK_PAD) * KQ_MASK_PAD))
                masks.append(self.op("cpy", (mask_in,), _shape(mask_in), 2) if self.fa else mask_in)
        mask, mask_swa = masks[0], masks[-1]
        out_ids = self.input("inp_out_ids", (t,), 4)
        cur = inp
        for il in range(s.n_layer):
            layer_in = cur
            h = self.norm(cur, "attn_norm", il)
            q, k, v = self.qkv(il, h, pos)
            attn = self.attention(il, q, k, v, mask_swa if il in self.swa_layers else mask)
            if s.layer_norm:
                attn = self.same("add", (attn, self.weight("bo", il)))
            if il == s.n_layer - 1:
                attn = self.op("get_rows", (attn, out_ids), _shape(attn))
                layer_in = self.op("get_rows", (layer_in, out_ids), _shape(layer_in))
            if s.parallel_residual:
                f = self.ffn(il, self.norm(layer_in, "ffn_norm", il))
                cur = self.same("add", (self.same("add", (f, attn)), layer_in))
            else:
                ffn_inp = self.same("add", (attn, layer_in))
                f = self.ffn(il, self.norm(ffn_inp, "ffn_norm", il))
                cur = self.same("add", (f, ffn_inp))
        cur = self.norm(cur, "output_norm", None)
        logits = self.mm(self.weight("output", None), cur, s.n_vocab)
        self.g.expand(logits)
        return self.g


def _prod(shape: tuple[int, ...]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _rows(shape: tuple[int, ...]) -> int:
    return _prod(shape[1:]) if len(shape) > 1 else 1


def _rows_of(x: Tensor) -> int:
    return _prod(_shape(x)[1:])


def _shape(x: Tensor) -> tuple[int, ...]:
    shape = x.layout[1]
    assert isinstance(shape, tuple)
    return shape


def build_graph(shape: GraphShape, n_tokens: int, n_kv: int, flash_attn: bool, layer_devices: dict[int, str],
                output_device: str, kv_on_gpu: bool, build: int, weight_bytes: dict[str, int],
                kv_bytes: tuple[float, float] = (2, 2), swa_layers: frozenset[int] = frozenset(),
                n_kv_swa: int = 0) -> Graph:
    """The reserve graph of one micro-batch of ``n_tokens`` over ``n_kv`` cache cells (module docstring).

    ``layer_devices``: the backend of each offloaded layer (``gpu``, ``gpu1`` ...; absent: the host);
    ``output_device`` the output layer's; ``weight_bytes`` each tensor's bytes by GGUF name (a GPU op on a host
    weight copies it); ``kv_bytes`` the bytes per cached K and V value (f16: 2, q8_0: 34/32); ``swa_layers``
    the sliding-window layers of an interleaved-SWA cache, which read ``n_kv_swa`` cells through their own mask."""
    return _Builder(shape, n_tokens, n_kv, flash_attn, layer_devices, output_device, kv_on_gpu, build,
                    weight_bytes, kv_bytes, swa_layers, n_kv_swa).build()
