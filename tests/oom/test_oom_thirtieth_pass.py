"""Thirtieth pass (issue 28, fresh batch 33): what the text itself says about where the memory ran out.

* The shell's "Killed" line under another locale (glibc's translated strsignal(SIGKILL)): the kernel's OOM killer on
  host RAM, as the English line is.

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
