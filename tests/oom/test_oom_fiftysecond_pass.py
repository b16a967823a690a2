"""Fifty-second pass (issue 28): limits that are not the device's memory, and figures said in other words.

* TensorFlow.js's WebGL backend refusing a texture ("Requested texture size [WxH] greater than WebGL maximum on this
  browser / GPU [MxM]", tfjs-backend-webgl/src/webgl_util.ts validateTextureSize): a per-texture dimension limit of
  the browser's GL context (MAX_TEXTURE_SIZE), ``buffer_limit``, not video memory.
* A Tenstorrent Tensix core's L1 (on-chip SRAM): tt-metal's check of a program's circular buffers ("... grow to N B
  which is beyond max L1 size of M B", "... clash with L1 buffers"), tt-mlir's L1 plan ("required L1 memory usage N
  exceeds memory capacity M") and an L1 bank share that is not fragmentation are the on-chip limit (``shared_memory``
  with a DRAM-placement check), whatever the chip's DRAM. L1 fragmentation figures and DRAM shares keep their
  readings.
* MindSpore's pool refusal ("TotalUsedMemStatistics : U plus TotalUsedByEventMemStatistics : E and plus alloc size : R
  is more than total mem size : T"): what the pool had left, T - U - E, is the free figure.
* The AWS Neuron compiler's "[XCG815] Estimated peak HBM usage (P) exceeds LGB": the compiled graph's peak against a
  NeuronCore's memory, a whole-program shortage (not one allocation).
* PyTorch's figures retold on one line ("GPU has 79.19 GiB total, 6.68 GiB free"), and a request set in Markdown bold.

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own evidence."""

from __future__ import annotations

from gpudesk.oom import diagnose_text

# tensorflow/tfjs#689 (a commenter's regular Firefox, MAX_TEXTURE_SIZE 2048; other browsers load the model).
TFJS_FIREFOX = ("Error: Requested texture size [2795x2795] greater than WebGL maximum on this browser / GPU "
                "[2048x2048].")
# tensorflow/tfjs#920 (an Embedding of 71194 x 32 laid out as a narrow texture; Chrome 70's limit is 16384).
TFJS_NARROW = ("Error: Requested texture size [35597x64] greater than WebGL maximum on this browser / GPU "
               "[16384x16384]")
# PacktPublishing/hands-on-music-generation-with-magenta#3 (Magenta.js conv2d im2row in Chromium).
MAGENTA = ("Uncaught (in promise) Error: Requested texture size [4344x4345] greater than WebGL maximum on this "
           "browser / GPU [4096x4096].\n    at de (magentamusic.min.js:22)\n"
           "    at t.createPackedMatrixTexture (magentamusic.min.js:22)\n"
           "    at t.acquireTexture (magentamusic.min.js:22)\n    at e.conv2dWithIm2Row (magentamusic.min.js:22)")
# tenstorrent/tt-inference-server#277 (Llama-3.1-8B benchmark beyond the model's 4k context on an N150).
TT_CB_BEYOND = ("RuntimeError: TT_THROW @ /tt-metal/tt_metal/impl/program/program.cpp:868: tt::exception\ninfo:\n"
                "Statically allocated circular buffers on core range [(x=0,y=0) - (x=7,y=7)] grow to 1661920 B which "
                "is beyond max L1 size of 1499136 B")
# tenstorrent/tt-metal#28835 (circular buffers growing down meet L1 buffers growing up).
TT_CB_CLASH = ("E       Statically allocated circular buffers in program 77 clash with L1 buffers on core range "
               "[(x=0,y=0) - (x=7,y=7)]. L1 buffer allocated at 974336 and static circular buffer region ends at "
               "1089536")
# tenstorrent/tt-mlir#7937 (D2M compiler: a 19456x2560 transpose planned into one core's L1).
TT_MLIR_L1 = ("        can't find feasible allocation because all 5 var(s) are bound\n"
              "        error: 'func.func' op required L1 memory usage 6225920 exceeds memory capacity 1395424 "
              "(usable space is [103712, 1499136))")
# tenstorrent/tt-metal#14840 (ttnn.mul on [6, 16, 384, 384] in L1; "the tests pass with DRAM memory config").
TT_L1_BANKS = ("E       RuntimeError: TT_THROW @ ../tt_metal/impl/allocator/allocator.cpp:142: tt::exception\n"
               "E       info:\n"
               "E       Out of Memory: Not enough space to allocate 56623104 B L1 buffer across 56 banks, where each "
               "bank needs to store 1011712 B\nE       backtrace:")
# tenstorrent/tt-xla#4394 (L1 with the allocator's figures: free in total, not in one block).
TT_L1_FRAGMENTED = ("TT_FATAL: Out of Memory: Not enough space to allocate 26542080 B L1 buffer across 48 banks, where "
                    "each bank needs to store 552960 B, but bank size is 1329888 B (allocated: 417792 B, free: "
                    "912096 B, largest free block: 522240 B)")
# tenstorrent/tt-metal#34309 (DeepSeek-V3 MoE prefill at 64k-128k on a Galaxy: DRAM, the working set).
TT_DRAM = ("Out of Memory: Not enough space to allocate 7516192768 B DRAM buffer across 12 banks, where each bank "
           "needs to store 626350080 B, but bank size is only 1071821792 B")
# candle-org/MindAct#1761 (gemma-7b in float32 on an Ascend NPU).
MINDSPORE_POOL = (
    "[ERROR] PRE_ACT(54175,fffdbcff91e0,python):2024-10-22-11:24:55.301.443 [mindspore/ccsrc/backend/common/mem_reuse/"
    "mem_dynamic_allocator.cc:392] AddMemBlockAndMemBufByEagerFree] TotalUsedMemStatistics : 29356337664 plus "
    "TotalUsedByEventMemStatistics : 0 and plus alloc size : 301990400 is more than total mem size : 29464985600.")
# philschmid/huggingface-inferentia2-samples#12 (Llama 3 70B recompiled for Inferentia2).
NEURON_PEAK = (
    "2024-06-01 03:27:57.000941:  7571  ERROR ||NEURON_CC_WRAPPER||: Failed compilation with ['neuronx-cc', 'compile', "
    "'--target=trn1', '--framework=XLA', '--model-type=transformer', '--auto-cast=none', '--verbose=35']: "
    "2024-06-01T03:27:57Z [XCG815]  Estimated peak HBM usage (19.000523) exceeds 16GB. Neff won't be able to load on "
    "chip - Please open a support ticket at https://github.com/aws-neuron/aws-neuron-sdk/issues/new")
# karpathy/nanochat#443 (torch.compile'd d20 training on an H100 80GB; the figures as the reporter posted them).
NANOCHAT = (
    "File \"/tmp/torchinductor_ubuntu/.../c45x....py\", line 5269, in call\n"
    "    buf706 = empty_strided_cuda((65536, 65536), (65536, 1), torch.bfloat16)\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 8.00 GiB. \n"
    "GPU has 79.19 GiB total, 6.68 GiB free, 72.48 GiB in use by this process.")
# chatchat-space/Langchain-Chatchat#33 (the request set in Markdown bold by the reporter).
BOLD_REQUEST = ("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate **10.36 GiB** (GPU 0; 14.76 GiB "
                "total capacity; 4.54 GiB already allocated; 9.01 GiB free; 4.93 GiB reserved in total by PyTorch)")


def test_webgl_texture_size_is_the_per_texture_limit() -> None:
    for text in (TFJS_FIREFOX, TFJS_NARROW, MAGENTA):
        d = diagnose_text(text)
        assert d.found_oom
        top = d.causes[0]
        assert top.id == "not_capacity"
        assert top.evidence["deciding_check"] == "buffer_limit"
        assert "WEBGL_MAX_TEXTURE_SIZE" in top.evidence["check_command"]
    narrow = diagnose_text(TFJS_NARROW).causes[0]
    assert "35597x64" in narrow.explanation and "16384" in narrow.explanation


def test_webgl_words_need_the_maximum() -> None:
    # tfjs's other texture error ("is invalid": a zero or negative side, validateTextureSize) is not the limit.
    assert not diagnose_text("Error: Requested texture size [0x4] is invalid.").found_oom
    # Another runtime's buffer limit keeps its own check.
    other = diagnose_text("Buffer size 300000000 is greater than the maximum buffer size (268435456)")
    assert "WEBGL" not in other.causes[0].evidence["check_command"]


def test_tenstorrent_circular_buffers_are_the_core_l1() -> None:
    for text in (TT_CB_BEYOND, TT_CB_CLASH, TT_MLIR_L1):
        d = diagnose_text(text)
        assert d.found_oom
        top = d.causes[0]
        assert top.id == "not_capacity"
        assert top.evidence["deciding_check"] == "shared_memory"
        assert "DRAM_MEMORY_CONFIG" in top.evidence["check_command"]


def test_l1_bank_share_without_fragmentation_is_the_core_l1() -> None:
    top = diagnose_text(TT_L1_BANKS).causes[0]
    assert top.id == "not_capacity"
    assert top.evidence["deciding_check"] == "shared_memory"
    assert top.evidence["bank_region"] == "L1"


def test_l1_fragmentation_and_dram_keep_their_readings() -> None:
    assert diagnose_text(TT_L1_FRAGMENTED).causes[0].id == "fragmentation"
    dram = diagnose_text(TT_DRAM).causes[0]
    assert dram.id != "not_capacity"
    # A GPU's triton shared-memory limit keeps the kernel-config check.
    triton = diagnose_text("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, "
                           "Hardware limit: 101376.")
    assert "DRAM_MEMORY_CONFIG" not in triton.causes[0].evidence["check_command"]


def test_mindspore_pool_left_over_is_the_free_figure() -> None:
    d = diagnose_text(MINDSPORE_POOL)
    assert d.report.parsed["free_bytes"] == 29464985600 - 29356337664
    assert d.causes[0].id == "genuine_shortage"


def test_neuron_compiler_peak_is_a_whole_program_shortage() -> None:
    d = diagnose_text(NEURON_PEAK)
    assert d.found_oom
    assert d.causes[0].id == "genuine_shortage"
    assert "requested_bytes" not in d.report.parsed
    # A peak under the limit is no refusal.
    assert not diagnose_text("Estimated peak HBM usage (12.5) exceeds 16GB").found_oom


def test_total_and_free_retold_on_one_line_are_read() -> None:
    d = diagnose_text(NANOCHAT)
    assert d.report.parsed["free_bytes"] < d.report.parsed["total_capacity_bytes"]
    assert d.causes[0].id == "genuine_shortage"


def test_markdown_bold_request_is_read() -> None:
    d = diagnose_text(BOLD_REQUEST)
    assert abs(d.report.parsed["requested_bytes"] - 10.36 * 1024**3) < 0.01 * 1024**3
