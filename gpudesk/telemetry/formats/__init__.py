"""Text formats of GPU monitoring tools read into the one history shape (nvidia-smi dmon, dcgmi dmon, nvidia-smi/hl-smi CSV, rocm-smi, amd-smi, npu-smi), and the one path that opens a log file."""
