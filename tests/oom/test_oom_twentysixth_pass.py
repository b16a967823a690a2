"""Twenty-sixth pass (issue 28): the two weakest causes over the labelled sets, memory held by another process and
memory kept over the run (a leak), read only where the text holds the evidence.

* Memory the user saw growing until the process was killed (SIGKILL): the growth is the cause, the OOM killer where
  it ended (a leak, with the host-RAM check).
* TensorFlow's BFC allocator hint "If the cause is memory fragmentation maybe ... TF_GPU_ALLOCATOR=cuda_malloc_async"
  is printed in every out-of-memory warning: boilerplate, not a fragmentation finding.
* Darknet failing at layer 0 of its layer table: the network's first device allocation (and the context's), so the
  GPU was held before the job had anything on it (another process).
* The validation or test pass named in the user's words ("during test", 验证时), PyTorch or no framework named, no
  figures: memory kept across that pass (a leak).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words or figures."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# VISION-SJTU/DiffusionTrack#2 (title and the reporter's words).
GROWTH_THEN_KILLED = ("训练时内存占用一直增加\n作者大大，我在单gpu服务器上训练模型的时候，内存占用一直增加，直到最后进程会被kill掉，"
                      "请问这是怎么回事？我应该如何修改代码呢？")


def test_growth_seen_until_killed_is_a_leak_with_the_host_ram_check() -> None:
    assert _top(GROWTH_THEN_KILLED) == ("leak", True, "host_ram")
    cause = diagnose_text(GROWTH_THEN_KILLED).causes[0]
    assert cause.evidence["described_as"] == "内存占用一直增加"
    assert "loss.item()" in cause.fix
    assert "kept growing" in cause.explanation
    # The OOM killer stays as the second reading.
    assert [c.id for c in diagnose_text(GROWTH_THEN_KILLED).causes[:2]] == ["leak", "not_capacity"]


def test_a_kill_without_growth_stays_host_ram() -> None:
    # The same kill with no growth said (the words taken out): the host's OOM killer, not a leak.
    text = "作者大大，我在单gpu服务器上训练模型的时候，进程会被kill掉，请问这是怎么回事？"
    top, _found, check = _top(text)
    assert top == "not_capacity" and check == "host_ram"
    # Growth said with no kill keeps the words-only reading (0.65), below a kill.
    grown = diagnose_text("训练时显存占用一直增加，最后 CUDA out of memory").causes
    assert grown[0].id == "leak" and grown[0].confidence == 0.65


# GoogleCloudPlatform/practical-ml-vision-book#6.
TF_BFC_HINT = ("2021-12-03 08:48:43.805276: W tensorflow/core/common_runtime/bfc_allocator.cc:457] Allocator (GPU_0_bfc) "
               "ran out of memory trying to allocate 73.50MiB (rounded to 77070336)requested by op Mul\n"
               "If the cause is memory fragmentation maybe the environment variable "
               "'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation. ")


def test_tensorflows_fragmentation_hint_is_not_a_finding() -> None:
    causes = diagnose_text(TF_BFC_HINT).causes
    assert causes[0].id != "fragmentation"
    assert all(c.evidence.get("described_as") != "fragmentation" for c in causes)


def test_fragmentation_in_the_users_own_words_still_reads() -> None:
    text = TF_BFC_HINT + "\nThe BFC arena fragments after a few hundred steps of varying input shapes."
    causes = diagnose_text(text).causes
    said = [c for c in causes if c.id == "fragmentation"]
    assert said and said[0].evidence["described_as"] == "fragments"


# pjreddie/darknet#304.
DARKNET_LAYER_0 = ("layer     filters    size              input                output\n"
                   "    0 CUDA Error: out of memory\n"
                   "darknet: ./src/cuda.c:36: check_error: Assertion `0' failed.\n"
                   "Aborted (core dumped)")
# madhawav/YOLO3-4-Py#108: the same error at layer 102, the network's own size.
DARKNET_LAYER_102 = ("102 CUDA Error: out of memory\n"
                     "python3: ./src/cuda.c:36: check_error: Assertion `0' failed.\n"
                     "Abortado (`core' generado)")


def test_darknet_failing_at_its_first_layer_is_another_holder() -> None:
    assert _top(DARKNET_LAYER_0) == ("other_process", True, "other_process")
    causes = diagnose_text(DARKNET_LAYER_0).causes
    assert causes[0].confidence == 0.6
    assert "CUDA_VISIBLE_DEVICES" in causes[0].fix or "nvidia-smi" in causes[0].fix
    assert causes[1].id == "genuine_shortage"


def test_darknet_failing_at_a_later_layer_is_not_read_so() -> None:
    assert _top(DARKNET_LAYER_102)[0] == "genuine_shortage"
    layer_1 = DARKNET_LAYER_0.replace("    0 CUDA", "    0 conv     32  3 x 3 / 1   416 x 416 x   3   ->   416 x 416 x  32"
                                      "  0.299 BFLOPs\n    1 CUDA")
    assert _top(layer_1)[0] == "genuine_shortage"


# jiyanggao/Video-Person-ReID#5 (title and the reporter's words).
DURING_TEST = ("out of memory problem\nHi,\n\nThanks for your work. I got out of memory problem during test. I then "
               "printed out the shapes of images and found that it crashed when I got imgs.shape=[65, 4, 3, .., ..] and "
               "it seems like I need to process 65 * 4 images on the GPU card in one shot. I guess this is  a problem "
               "even I've got 12GB GPU memory.")


def test_the_test_pass_in_words_reads_as_memory_kept_across_it() -> None:
    assert _top(DURING_TEST)[0] == "leak"
    cause = diagnose_text(DURING_TEST).causes[0]
    assert cause.evidence["frame"] == "during test"
    assert "torch.no_grad()" in cause.fix
    assert _top("训练没问题，验证的时候显存不够 out of memory")[0] == "leak"


def test_the_test_pass_words_need_pytorch_or_no_framework_and_no_figures() -> None:
    # A test harness's words (microsoft/onnxruntime#16305, gtest), TensorFlow's evaluation, and a PyTorch message whose
    # figures measure the request: none is read as the pass keeping memory.
    gtest = ("C++ exception with description \"Non-zero status code returned while running FusedMatMul node. Status "
             "Message: bad allocation\" thrown in the test body.")
    assert _top(gtest)[0] != "leak"
    assert _top("tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM during evaluation")[0] != "leak"
    figures = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 10.76 GiB total capacity; 8.10 GiB "
               "already allocated; 1.20 GiB free; 8.30 GiB reserved in total by PyTorch) during validation")
    assert _top(figures)[0] == "genuine_shortage"
    assert _top("out of memory problem in the test set of 5000 clips")[0] != "leak"
