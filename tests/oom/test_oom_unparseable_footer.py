"""qa51 D12: the "no out-of-memory message" footer reads as one sentence after "Also:" (en and zh_CN)."""

from __future__ import annotations

from gpudesk.cli import main


def test_also_line_has_no_dangling_or(tmp_path, capsys):
    log = tmp_path / "noise.log"
    log.write_text("epoch 1 loss 0.5\nepoch 2 loss 0.4\n", encoding="utf-8")
    for argv, bad in ((["oom", "diagnose", str(log)], "Also: Or"), (["--lang", "zh_CN", "oom", "diagnose", str(log)],
                                                                     "另外：或者")):
        assert main(argv) == 1
        out = capsys.readouterr().out
        assert bad not in out and ("Also:" in out or "另外：" in out), out
