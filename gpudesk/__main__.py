"""``gpudesk`` opens the window; ``gpudesk <command>`` runs headless (see ``gpudesk --help``).

``--lang zh_CN|en`` chooses the language of both: ``gpudesk --lang zh_CN`` opens the window in Chinese for this
run, ``gpudesk --lang zh_CN plan ...`` prints in Chinese.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gpudesk.i18n import LANGUAGES


def _window_language(args: list[str]) -> tuple[bool, str | None]:
    """(opens the window, its language) for ``[]``, ``["--lang", "zh_CN"]`` and ``["--lang=zh_CN"]``."""
    if not args:
        return True, None
    if len(args) == 2 and args[0] == "--lang":
        return True, args[1]
    if len(args) == 1 and args[0].startswith("--lang="):
        return True, args[0].partition("=")[2]
    return False, None


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    window, language = _window_language(args)
    if window and (language is None or language in LANGUAGES):
        from gpudesk.ui.app import run_app  # Qt is imported only when the window is wanted

        return run_app(language=language)
    if args == ["--self-test"]:
        # The self-test also opens the window, so it sits above both the CLI and the UI in the layers.
        from gpudesk.selftest import run_selftest

        return run_selftest()
    try:
        from gpudesk.cli import main as cli_main

        return cli_main(args)  # also reports an unknown --lang value
    except KeyboardInterrupt:  # Ctrl+C while the command's modules are still being imported
        sys.stderr.write("gpudesk: interrupted.\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
