"""GpudeskError.user_text: one template per combination of parts, so a language places them itself."""

from __future__ import annotations

import pytest

from gpudesk import i18n
from gpudesk.errors import GpudeskError


@pytest.fixture
def chinese():
    before = i18n.current_language()
    i18n.set_language("zh_CN")
    yield
    i18n.set_language(before)


def test_user_text_in_english():
    error = GpudeskError("Could not read the recording.", detail="disk I/O error", remedy="Check the disk.")
    assert error.user_text() == "Could not read the recording. (disk I/O error) Check the disk."
    assert GpudeskError("No GPU.", remedy="Install the driver.").user_text() == "No GPU. Install the driver."
    assert GpudeskError("No GPU.", detail="NVML_ERROR_LIB_RM_VERSION_MISMATCH").user_text() == \
        "No GPU. (NVML_ERROR_LIB_RM_VERSION_MISMATCH)"
    # A detail already in the message is not repeated.
    assert GpudeskError("Bad file: not JSON.", detail="not JSON").user_text() == "Bad file: not JSON."


def test_user_text_uses_chinese_punctuation(chinese):
    error = GpudeskError("无法读取记录。", detail="disk I/O error", remedy="请检查磁盘。")
    assert error.user_text() == "无法读取记录。（disk I/O error）请检查磁盘。"
    assert GpudeskError("没有 GPU。", remedy="请安装驱动。").user_text() == "没有 GPU。请安装驱动。"
