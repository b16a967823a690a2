"""Entry script for the PyInstaller bundle: the same ``main`` as the ``gpudesk`` console script."""

import sys

from gpudesk.__main__ import main

if __name__ == "__main__":
    sys.exit(main())
