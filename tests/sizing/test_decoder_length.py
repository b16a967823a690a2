"""An encoder-decoder's decoder at its own length, with cross-attention over the encoder output (T5, BART)."""

import pytest

from conftest import FIXTURES
from gpudesk.cli import main
from gpudesk.sizing import MemoryWorkload, SizingError, estimate_memory, spec_from_hf_config
from gpudesk.sizing.decoder_length import cross_attention_bytes_per_layer
from gpudesk.sizing.validation import case_workload

CONFIGS = FIXTURES / "sizing" / "configs"
T5 = spec_from_hf_config(CONFIGS / "t5-small.config.json")
BART = spec_from_hf_config(CONFIGS / "bart-large.config.json")
L3 = spec_from_hf_config(CONFIGS / "llama-3-8b.config.json")


def _parts(spec=T5, **kw) -> dict[str, float]:
    base = dict(mode="train", precision="fp32", optimizer="adamw", seq_len_tokens=1024, micro_batch_size=32,
                flash_attention=False)
    return dict(estimate_memory(spec, MemoryWorkload(**{**base, **kw})).breakdown)


def test_configs_give_both_layer_counts():
    assert (T5.layers, T5.decoder_layers) == (12, 6)  # t5-small: num_layers 6, num_decoder_layers 6
    assert (BART.layers, BART.decoder_layers) == (24, 12)


def test_logits_follow_the_decoder_length():
    full, short = _parts(), _parts(decoder_seq_len_tokens=128)
    assert short["logits"] == pytest.approx(full["logits"] / 8, rel=1e-9)
    assert _parts(decoder_seq_len_tokens=1024) == full  # the default is the encoder length


def test_cross_attention_scores_span_target_by_source():
    # eager fp32: softmax output and dropped-out weights at 4 bytes plus a 1-byte mask over heads x target x source
    one = cross_attention_bytes_per_layer(1024, 128, 1, 512, 8, flash_attention=False, bytes_per_element=4.0)
    two = cross_attention_bytes_per_layer(2048, 128, 1, 512, 8, flash_attention=False, bytes_per_element=4.0)
    assert two - one == pytest.approx(9 * 8 * 128 * 1024 + 2 * 4 * 1024 * 512, rel=1e-9)
    flash = cross_attention_bytes_per_layer(1024, 128, 1, 512, 8, flash_attention=True, bytes_per_element=4.0)
    # a fused kernel keeps fp32 log-sum-exp rows (heads x target) instead of the target x source scores
    assert one - flash == pytest.approx(9 * 8 * 128 * 1024 - 4 * 8 * 128, rel=1e-9)


def test_short_decoder_shrinks_activations_but_keeps_the_encoder():
    full, short = _parts(), _parts(decoder_seq_len_tokens=128)
    assert short["activations"] < full["activations"] / 2
    # the six encoder layers alone at 1024 tokens stay: more than a 1024-token decoder-free share
    assert short["activations"] > _parts(seq_len_tokens=128)["activations"]


def test_refused_for_a_decoder_only_model_and_outside_full_training():
    with pytest.raises(SizingError) as err:
        _parts(L3, precision="bf16", seq_len_tokens=512, micro_batch_size=1, decoder_seq_len_tokens=128)
    assert err.value.field == "decoder_seq_len_tokens"
    with pytest.raises(SizingError) as err:
        _parts(BART, mode="lora", decoder_seq_len_tokens=128)
    assert err.value.field == "decoder_seq_len_tokens"
    with pytest.raises(SizingError):
        _parts(decoder_seq_len_tokens=0)


def test_harness_and_cli_read_the_setting(capsys):
    assert case_workload({"method": "full"}).decoder_seq_len_tokens is None
    assert case_workload({"method": "full", "decoder_seq_len_tokens": 128}).decoder_seq_len_tokens == 128
    args = ["estimate", "memory", "--config", str(CONFIGS / "t5-small.config.json"), "--mode", "train",
            "--precision", "fp32", "--optimizer", "adamw", "--seq", "1024", "--batch", "32", "--no-flash", "--json"]
    assert main(args) == 0
    full = capsys.readouterr().out
    assert main(args + ["--decoder-seq", "128"]) == 0
    short = capsys.readouterr().out
    assert short != full
    assert main(args[:-1] + ["--mode", "lora", "--decoder-seq", "128"]) != 0
    assert "--decoder-seq" in capsys.readouterr().err
