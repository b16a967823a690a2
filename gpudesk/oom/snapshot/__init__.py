"""Open and explain PyTorch CUDA memory snapshots offline (issue 17)."""
