"""The CLI reports an unusable user data folder as one clear line where a command needs it."""

from __future__ import annotations

from gpudesk import paths
from gpudesk.cli import main


def test_a_command_needing_the_data_folder_gives_a_clear_error(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file.md"
    blocker.write_text("# notes\n", encoding="utf-8")
    monkeypatch.setenv(paths.ENV_DATA_DIR, str(blocker / "data"))
    assert main(["monitor", "thresholds"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert "cannot be created" in err and "GPUDESK_DATA_DIR" in err
