"""Bad input: empty, binary, other languages, tracebacks around the message, nothing recognisable."""

from __future__ import annotations

import pytest
from oom_support import load_cases

from gpudesk.oom import OomInputError, diagnose_text, parse_text

CASES = load_cases()


@pytest.mark.parametrize("data", ["", "   \n\t  ", b"", b"\n\n"])
def test_empty_input_is_refused(data):
    with pytest.raises(OomInputError, match="empty"):
        parse_text(data)


def test_binary_input_is_refused():
    with pytest.raises(OomInputError, match="binary"):
        parse_text(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(OomInputError, match="binary"):
        parse_text(bytes(range(1, 32)) * 20)


def test_wrong_type_is_refused():
    with pytest.raises(OomInputError, match="Expected text"):
        parse_text(12345)  # type: ignore[arg-type]


def test_utf16_and_ansi_colours_are_read():
    text = "\x1b[31m" + CASES[1]["message"] + "\x1b[0m"
    r = parse_text(text.encode("utf-16"))
    assert r.kind == "pytorch_oom" and r.requested_bytes == 50 * 1024**2


def test_message_inside_traceback_and_other_language():
    text = (
        "训练开始了，第 3 个 epoch 出错：\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 88, in <module>\n'
        "    loss.backward()\n"
        '  File "/usr/lib/python3/site-packages/torch/_tensor.py", line 487, in backward\n'
        + CASES[7]["message"] + "\n"
        "显存明明够用，为什么？\r\n"
    )
    plain = diagnose_text(CASES[7]["message"])
    mixed = diagnose_text(text)
    assert mixed.report.parsed == plain.report.parsed
    assert [c.id for c in mixed.causes] == [c.id for c in plain.causes]
    assert mixed.report.text.startswith("训练开始了")  # nothing the user pasted is lost


def test_unrecognised_text_is_unparseable_but_kept():
    text = "Segmentation fault (core dumped)\nsomething about torch went wrong"
    d = diagnose_text(text)
    assert [c.id for c in d.causes] == ["unparseable"]
    assert d.report.framework == "pytorch"
    assert d.report.text == text
    assert d.causes[0].evidence["characters"] == len(text)


def test_garbled_message_gives_partial_result():
    d = diagnose_text("CUDA out of memory. Tried to allocate ??? GPU ## has a total capacity of lots")
    assert d.report.kind == "pytorch_oom"
    assert "total capacity" in d.report.missing and "requested size ('Tried to allocate ...')" in d.report.missing
    assert d.causes[0].id == "unparseable" and "missing" in d.causes[0].evidence


def test_two_messages_first_is_diagnosed():
    text = CASES[9]["message"] + "\n" + CASES[7]["message"]
    r = parse_text(text)
    assert r.parsed["oom_messages"] == 2
    assert r.device_index == 2 and r.requested_bytes == round(14.06 * 1024**3)
    # the second message (GPU 0) adds its GPU's figures
    assert [d.index for d in r.devices] == [2, 0]
    assert r.devices[1].allocated_bytes == round(19.75 * 1024**3)


def test_several_ranks_show_imbalance():
    # fairseq#2442 reported one rank's OOM; here the same message is joined by a lighter rank's (GPU 1).
    heavy = CASES[15]["message"].split("\n")[0]
    light = heavy.replace("GPU 0;", "GPU 1;").replace("26.00 GiB already allocated", "14.00 GiB already allocated")
    d = diagnose_text(heavy + "\n" + light)
    assert "multi_gpu_imbalance" in [c.id for c in d.causes]


def test_zero_total_capacity_is_garbage_not_a_crash():
    # QA: "0 bytes total capacity" (a garbage value) raised ZeroDivisionError in genuine_shortage.
    d = diagnose_text("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 0 bytes "
                      "total capacity; 9.50 GiB already allocated; 0 bytes free; 9.80 GiB reserved in total by PyTorch)")
    assert d.report.device.total_bytes is None and "total capacity" in d.report.missing
    assert any("reads 0 bytes" in note for note in d.report.notes)
    assert d.causes and all(c.id != "single_allocation_exceeds_capacity" for c in d.causes)


def test_garbage_value_note_has_units():
    d = diagnose_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
                      "capacity of 23.64 GiB of which 1.2 GiB is free. Including non-PyTorch memory, this process has "
                      "98.00 GiB memory in use. Of the allocated memory 20.00 GiB is allocated by PyTorch, and 100.00 "
                      "MiB is reserved by PyTorch but unallocated.")
    note = next(n for n in d.report.notes if "larger than the total capacity" in n)
    assert "(98.00 GiB)" in note and "(23.64 GiB)" in note and "bytes" not in note
