"""LoRA target module names of each model family, mapped onto the projection shapes of the config.

PEFT matches ``target_modules`` against the model's own module names (a name matches every module whose dotted path
ends in it: ``LoraModel._check_target_module_exists``, https://github.com/huggingface/peft/blob/v0.13.2/src/peft/tuners/tuners_utils.py),
so a ChatGLM, Baichuan or Qwen v1 user types ``query_key_value``, ``W_pack`` or ``c_attn``: the names PEFT itself
picks for those model types (``TRANSFORMERS_MODELS_TO_LORA_TARGET_MODULES_MAPPING``,
https://github.com/huggingface/peft/blob/v0.13.2/src/peft/utils/constants.py). This module maps each name onto the
roles the memory formulas know (Llama's ``q_proj`` ... ``down_proj``) plus two fused projections, whose one adapter
pair spans the fused output: ``r * (d_in + d_out)`` with ``d_out`` the sum of the parts (Hu et al. 2021,
arXiv 2106.09685, section 4.1):

- ``qkv_proj``: Q, K and V as one Linear ``hidden -> (heads + 2 * kv_heads) * head_dim``: ChatGLM/Falcon/BLOOM/GPT-NeoX
  ``query_key_value``, GPT-2 and Qwen v1 ``c_attn``, Baichuan ``W_pack``, InternLM2 ``wqkv``, MPT ``Wqkv``, Phi-3
  ``qkv_proj``;
- ``gate_up_proj``: gate and up as one Linear ``hidden -> 2 * ffn`` (ChatGLM2/3 ``dense_h_to_4h``, whose SwiGLU
  splits the output in two; Phi-3 ``gate_up_proj``); in a model without a gated MLP ``dense_h_to_4h`` is the plain
  up projection (Falcon, BLOOM, GPT-NeoX).

A name several modules of a block end in adapts all of them: GPT-2's and Qwen v1's ``c_proj`` is both the attention
output (``attn.c_proj``) and the MLP output (``mlp.c_proj``). Names whose role depends on the family follow the
config's ``model_type``: Qwen v1's MLP is ``w1(x) * silu(w2(x))`` (``QWenMLP``,
https://huggingface.co/Qwen/Qwen-7B/blob/main/modeling_qwen.py), so ``w1`` is the up and ``w2`` the gate projection,
while InternLM2 (``InternLM2MLP``: ``w2(act(w1(x)) * w3(x))``) and Mixtral's experts use ``w2`` for the down
projection; T5's ``q``/``k``/``v``/``o`` and ``wi``/``wo`` (``T5Attention``, ``T5DenseGatedActDense``).
"""

from __future__ import annotations

from gpudesk.i18n import _
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.shapes import FUSED_QKV_MODEL_TYPES, ModelSpec

LLAMA_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
#: One adapter over a fused projection (module docstring).
FUSED_QKV = "qkv_proj"
FUSED_GATE_UP = "gate_up_proj"
ROLES = (*LLAMA_MODULES, FUSED_QKV, FUSED_GATE_UP)
#: The roles inside an MLP block (an MoE layer has one such block per expert, :func:`mlp_copies`).
MLP_ROLES = frozenset({"gate_proj", "up_proj", "down_proj", FUSED_GATE_UP})
TARGET_ALIASES: dict[str, tuple[str, ...]] = {
    "all-linear": LLAMA_MODULES,
    "attention": ("q_proj", "k_proj", "v_proj", "o_proj"),
    "mlp": ("gate_proj", "up_proj", "down_proj"),
    "default": ("q_proj", "v_proj"),  # PEFT's default target modules for Llama
}
#: Module names of other families (lower case: matching ignores case) -> the roles they adapt.
FAMILY_MODULES: dict[str, tuple[str, ...]] = {
    "query_key_value": (FUSED_QKV,), "c_attn": (FUSED_QKV,), "w_pack": (FUSED_QKV,), "wqkv": (FUSED_QKV,),
    "dense": ("o_proj",), "out_proj": ("o_proj",), "wo": ("o_proj",),
    "c_proj": ("o_proj", "down_proj"),
    "dense_h_to_4h": (FUSED_GATE_UP,), "dense_4h_to_h": ("down_proj",),
    "fc1": ("up_proj",), "c_fc": ("up_proj",), "fc2": ("down_proj",),
    "w1": ("gate_proj",), "w3": ("up_proj",), "w2": ("down_proj",),
}
_T5_MODULES: dict[str, tuple[str, ...]] = {
    "q": ("q_proj",), "k": ("k_proj",), "v": ("v_proj",), "o": ("o_proj",),
    "wi": ("up_proj",), "wi_0": ("gate_proj",), "wi_1": ("up_proj",), "wo": ("down_proj",),
}
#: ``model_type`` -> the names whose role differs from :data:`FAMILY_MODULES` in that architecture.
MODEL_TYPE_MODULES: dict[str, dict[str, tuple[str, ...]]] = {
    "qwen": {"w1": ("up_proj",), "w2": ("gate_proj",)},
    "t5": _T5_MODULES, "mt5": _T5_MODULES,
}


#: ``model_type`` values whose checkpoints hold Q, K and V as one Linear besides :data:`FUSED_QKV_MODEL_TYPES`
#: (ChatGLM ``query_key_value``, Qwen v1 ``c_attn``, Baichuan ``W_pack``, InternLM2 ``wqkv``), and those whose gate
#: and up projections are one Linear (ChatGLM2/3 ``dense_h_to_4h``, Phi-3 ``gate_up_proj``).
FUSED_ATTENTION_MODEL_TYPES = FUSED_QKV_MODEL_TYPES | {"chatglm", "qwen", "baichuan", "internlm2"}
FUSED_GATE_UP_MODEL_TYPES = frozenset({"chatglm", "phi3"})


def _fused_alias(roles: tuple[str, ...], spec: ModelSpec | None) -> tuple[str, ...]:
    """An alias over a model whose checkpoint fuses projections: PEFT's ``all-linear`` (and the names that make up
    ``attention``/``mlp``) find the fused Linear, one adapter over it."""
    if spec is None:
        return roles
    out = list(roles)
    if (spec.fused_qkv or spec.model_type in FUSED_ATTENTION_MODEL_TYPES) and {"q_proj", "k_proj", "v_proj"} <= set(out):
        at = out.index("q_proj")
        out = [n for n in out if n not in ("q_proj", "k_proj", "v_proj")]
        out.insert(at, FUSED_QKV)
    if spec.model_type in FUSED_GATE_UP_MODEL_TYPES and {"gate_proj", "up_proj"} <= set(out):
        at = out.index("gate_proj")
        out = [n for n in out if n not in ("gate_proj", "up_proj")]
        out.insert(at, FUSED_GATE_UP)
    return tuple(out)


def _roles_of(key: str, spec: ModelSpec | None) -> tuple[str, ...] | None:
    model_type = spec.model_type if spec is not None else None
    if key in TARGET_ALIASES:
        return _fused_alias(TARGET_ALIASES[key], spec)
    if key in ROLES:
        return (key,)
    own = MODEL_TYPE_MODULES.get(model_type or "", {})
    return own.get(key) or FAMILY_MODULES.get(key)


def resolve_targets(targets: str | tuple[str, ...] | list[str], spec: ModelSpec | None = None) -> tuple[str, ...]:
    """Expand aliases (``all-linear``, ``attention``, ``mlp``, ``default``) and family module names into roles.

    With ``spec``, names follow its ``model_type``, an alias adapts the fused projections of a model that has them
    (``all-linear`` on ChatGLM: ``query_key_value``, ``dense``, ``dense_h_to_4h``, ``dense_4h_to_h``) and, in a model without a gated MLP, a fused gate/up projection is
    the plain up projection and ``gate_proj`` adapts nothing.

    Raises:
        SizingError: empty list or an unknown module name.
    """
    items = [targets] if isinstance(targets, str) else list(targets)
    out: list[str] = []
    for item in items:
        key = str(item).strip().lower()
        roles = _roles_of(key, spec)
        if roles is None:
            raise SizingError("lora_targets", _("unknown module {module!r}; use {modules} or {aliases}.").format(
                module=item, modules=", ".join((*LLAMA_MODULES, *FAMILY_MODULES)), aliases=", ".join(TARGET_ALIASES)))
        for name in roles:
            if spec is not None and not spec.gated:
                if name == "gate_proj":
                    continue
                name = "up_proj" if name == FUSED_GATE_UP else name
            if name not in out:
                out.append(name)
    if not out:
        raise SizingError("lora_targets", _("name at least one module to adapt (e.g. q_proj, v_proj or all-linear)."))
    return tuple(out)


def module_dims(spec: ModelSpec, name: str, ffn_width: int | None = None) -> tuple[int, int]:
    """``(d_in, d_out)`` of the projection a role names, from the config's shape; ``ffn_width`` sizes the MLP roles
    of an MLP narrower or wider than ``ffn_size`` (an MoE layer's routed or shared expert, :func:`mlp_copies`)."""
    dims = spec.transformer_dims
    h = dims.hidden_size
    q = dims.num_attention_heads * spec.head_dim_resolved
    kv = spec.kv_heads_resolved * spec.head_dim_resolved
    ffn = ffn_width or spec.ffn_size or 4 * h
    return {
        "q_proj": (h, q), "k_proj": (h, kv), "v_proj": (h, kv), "o_proj": (q, h),
        "gate_proj": (h, ffn), "up_proj": (h, ffn), "down_proj": (ffn, h),
        FUSED_QKV: (h, q + 2 * kv), FUSED_GATE_UP: (h, 2 * ffn),
    }[name]


def mlp_copies(spec: ModelSpec) -> tuple[tuple[int, int, bool], ...]:
    """The model's MLP blocks an MLP target name adapts, as ``(blocks, width, routed)``: a dense model has one block
    of ``ffn_size`` a layer; an MoE model one per routed expert of ``moe_ffn_size`` in each MoE layer, one shared MLP
    there when it has shared experts, and one ``ffn_size`` MLP in each dense layer.

    A LoRA target names a module class / suffix, and every expert is such a module: PEFT matches ``gate_proj`` etc.
    against each expert's own ``nn.Linear`` of a transformers 4.x MoE block (experts as a ``ModuleList``, module
    docstring), and ms-swift's Megatron ``all-linear`` takes the experts' ``TEGroupedLinear`` fc1 / fc2
    (``find_all_linears``, modelscope/ms-swift swift/megatron/utils/utils.py at 3602360a5) and gives them one adapter
    pair per local expert (``num_gemms=self.base_layer.num_gemms``, swift/megatron/tuners/lora.py lines 102-150 at
    710553d85). ``routed``: the blocks expert parallelism splits (gpudesk.sizing.memory_lora).
    """
    layers = spec.transformer_dims.layers
    ffn = spec.ffn_size or 4 * spec.transformer_dims.hidden_size
    if not spec.moe_experts:
        return ((layers, ffn, False),)
    moe_layers = min(layers, spec.moe_layers if spec.moe_layers is not None else layers)
    width = spec.moe_ffn_size or ffn
    out = [(moe_layers * spec.moe_experts, width, True)]
    if spec.moe_shared_experts:
        out.append((moe_layers, spec.moe_shared_ffn_size or spec.moe_shared_experts * width, False))
    if layers > moe_layers:
        out.append((layers - moe_layers, ffn, False))
    return tuple(out)
