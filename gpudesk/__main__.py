"""``gpudesk`` opens the window; ``gpudesk <command>`` runs headless (see ``gpudesk --help``)."""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        from gpudesk.ui.app import run_app  # Qt is imported only when the window is wanted

        return run_app()
    if args == ["--self-test"]:
        # The self-test also opens the window, so it sits above both the CLI and the UI in the layers.
        from gpudesk.selftest import run_selftest

        return run_selftest()
    from gpudesk.cli import main as cli_main

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
