"""A measured row's forced router balance (Megatron-Core --moe-router-force-load-balancing) reaches the setup."""

from __future__ import annotations

import pytest

from gpudesk.catalog import open_catalog
from gpudesk.sizing.errors import SizingError
from gpudesk.sizing.speed_train_cases import case_setup


def test_a_row_says_whether_routing_was_forced_to_balance() -> None:
    catalog = open_catalog()
    gpu = catalog.find_gpu("b200")
    row = {"gpus": 8, "seq_len": 4096, "global_batch": 64, "ep": 8, "framework": "megatron-lm"}
    assert case_setup(row, catalog, gpu).moe_force_balance is False
    assert case_setup({**row, "moe_force_balance": True}, catalog, gpu).moe_force_balance is True
    assert case_setup({**row, "moe_force_balance": False}, catalog, gpu).moe_force_balance is False


def test_a_row_with_a_balance_that_is_not_true_or_false_is_refused() -> None:
    catalog = open_catalog()
    gpu = catalog.find_gpu("b200")
    row = {"gpus": 8, "seq_len": 4096, "global_batch": 64, "ep": 8, "moe_force_balance": "yes"}
    with pytest.raises(SizingError):
        case_setup(row, catalog, gpu)
