"""Thirtieth pass (issue 28, fresh batch 33): what the text itself says about where the memory ran out.

* The shell's "Killed" line under another locale (glibc's translated strsignal(SIGKILL)): the kernel's OOM killer on
  host RAM, as the English line is.
* A device allocation call answered "not supported" (cudaErrorNotSupported), not "out of memory": the driver or the
  platform refused the call (gpudesk.oom.rules.refused_call).

Every text is a real message quoted from the public thread named in its comment. Negative cases check that each
reading needs its own words."""

from __future__ import annotations

from helpers.oom_top import top_cause as _top

from gpudesk.oom import diagnose_text


# nerfstudio-project/nerfstudio#2016 (a French shell: "Processus arrêté" is glibc's fr translation of "Killed").
KILLED_FR = "Setting up training dataset...\nCaching all 373 images.\nProcessus arrêté"


def test_translated_killed_line_is_host_ram() -> None:
    assert _top(KILLED_FR) == ("not_capacity", True, "host_ram")
    cause = diagnose_text(KILLED_FR).causes[0]
    assert cause.evidence["not_capacity_kind"] == "oom_killer"
    assert "dmesg" in cause.evidence["check_command"]
    # The same words for another language's shell (glibc de, ru), as the shell writes them: a line of their own.
    for line in ("Getötet", "Убито"):
        assert _top("Loading checkpoint shards...\n" + line) == ("not_capacity", True, "host_ram"), line


def test_translated_killed_word_inside_a_sentence_is_not_a_kill() -> None:
    # The word in prose is not the shell's report of a signal.
    text = "Setting up training dataset...\nLe processus arrêté par l'utilisateur a été relancé"
    assert _top(text)[0] != "not_capacity"


# kokkos/kokkos#6865 (an A100 MIG slice in a virtual machine).
KOKKOS_NOT_SUPPORTED = (
    "terminate called after throwing an instance of 'std::runtime_error'\n  what():  Kokkos failed to allocate memory "
    "for label \"Kokkos::InternalScratchSpace\".  Allocation using MemorySpace named \"Cuda\" failed with the following "
    "error:  Allocation of size 64.12 K failed because of an unknown error.  (The allocation mechanism was cudaMalloc(). "
    " The Cuda allocation returned the error code \"cudaErrorNotSupported\".)")


def test_allocation_call_not_supported_is_not_capacity() -> None:
    assert _top(KOKKOS_NOT_SUPPORTED) == ("not_capacity", True, "free_exceeds_request")
    cause = diagnose_text(KOKKOS_NOT_SUPPORTED).causes[0]
    assert cause.evidence["not_capacity_kind"] == "call_not_supported"
    assert "MIG" in cause.fix and "virtual machine" in cause.fix
    assert cause.evidence["requested_bytes"] < 70_000


def test_allocation_call_out_of_memory_stays_a_capacity_reading() -> None:
    # The same wrapper with the runtime's out-of-memory code: a real shortage, not a refused call.
    text = KOKKOS_NOT_SUPPORTED.replace("cudaErrorNotSupported", "cudaErrorMemoryAllocation")
    top = diagnose_text(text).causes[0]
    assert top.evidence.get("not_capacity_kind") != "call_not_supported"
