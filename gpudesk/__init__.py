"""gpudesk: choose, monitor and debug GPUs for ML work.

The version below is the only place it is written; packaging and ``--version`` read it from here.
"""

__version__ = "0.1.0"
APP_NAME = "gpudesk"
