"""``gpudesk monitor`` errors keep the core error's remedy (``CliError.from_error``), not only its message."""

from __future__ import annotations

from gpudesk.cli import main


def test_export_of_an_unknown_recording_says_how_to_list_them(tmp_path, capsys):
    assert main(["monitor", "export", "42", str(tmp_path / "s.csv")]) == 2
    err = capsys.readouterr().err
    assert "No recording with id 42." in err
    assert "List them with 'gpudesk monitor analyze --list'." in err
    assert not (tmp_path / "s.csv").exists()
