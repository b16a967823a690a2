"""Small real GGUF files written with the gguf package's writer (the format llama.cpp and Ollama load)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_gguf(path: Path, *, layers: int = 2, width: int = 256, heads: int = 4, kv_heads: int = 2,
               ffn: int = 512, vocab: int = 64, qtype: str = "Q8_0") -> Path:
    import gguf

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("tiny-test")
    w.add_context_length(2048)
    w.add_block_count(layers)
    w.add_embedding_length(width)
    w.add_feed_forward_length(ffn)
    w.add_head_count(heads)
    w.add_head_count_kv(kv_heads)
    w.add_rope_freq_base(500000.0)
    w.add_token_list([f"t{i}" for i in range(vocab)])
    q = gguf.GGMLQuantizationType[qtype]
    block, size = gguf.GGML_QUANT_SIZES[q]

    def add(name: str, rows: int, cols: int, quant: bool = True) -> None:
        if quant:
            data = np.zeros((rows, cols // block * size), dtype=np.uint8)
            w.add_tensor(name, data, raw_dtype=q)
        else:
            w.add_tensor(name, np.zeros((cols,), dtype=np.float32))

    add("token_embd.weight", vocab, width)
    hd = width // heads
    for i in range(layers):
        add(f"blk.{i}.attn_norm.weight", 1, width, quant=False)
        add(f"blk.{i}.attn_q.weight", width, width)
        add(f"blk.{i}.attn_k.weight", kv_heads * hd, width)
        add(f"blk.{i}.attn_v.weight", kv_heads * hd, width)
        add(f"blk.{i}.attn_output.weight", width, width)
        add(f"blk.{i}.ffn_gate.weight", ffn, width)
        add(f"blk.{i}.ffn_up.weight", ffn, width)
        add(f"blk.{i}.ffn_down.weight", width, ffn)
    add("output_norm.weight", 1, width, quant=False)
    add("output.weight", vocab, width)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path
