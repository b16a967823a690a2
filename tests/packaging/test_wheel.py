"""The wheel and sdist carry resources/ (examples, demo, icons, translations, notices, self-test inputs).

The build tests run setuptools' PEP 517 hooks on a copy of the project files (no network, a few seconds) and are
part of ``make test``, and so is one install: the wheel alone (``pip --no-deps --no-index``) in a fresh venv
that borrows the test interpreter's dependencies, where ``gpudesk --lang zh_CN`` must print Chinese from the
shipped core catalog (about 10 s with the build). The full install tests (``--run-packaging``) put the wheel
into a fresh venv outside the repository, with runtime dependencies only, and into pipx, then run
``gpudesk --self-test`` there and check what a user of that install sees: the example profiles, the demo recording
and the Chinese translation.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from gpudesk import __version__, selftest

REPO = Path(__file__).resolve().parents[2]
RESOURCES = REPO / "resources"
PROJECT_FILES = ("gpudesk", "resources", "setup.py", "pyproject.toml", "README.md", "LICENSE", "NOTICE")
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")


def shipped_resources() -> list[str]:
    """Every file of resources/ the app may read, as its path inside the installed package."""
    return sorted(f"gpudesk/resources/{p.relative_to(RESOURCES).as_posix()}" for p in RESOURCES.rglob("*")
                  if p.is_file() and p.suffix != ".ts" and "__pycache__" not in p.parts)


def run_hook(source: Path, hook: str, out: Path) -> Path:
    """Run setuptools' PEP 517 ``hook`` (build_wheel / build_sdist) in ``source``; the built file's path."""
    code = f"import sys; from setuptools import build_meta; print(build_meta.{hook}(sys.argv[1]))"
    result = subprocess.run([sys.executable, "-c", code, str(out)], cwd=source, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return out / result.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def project_copy(tmp_path_factory) -> Path:
    """The files a source checkout needs to build, copied away from the repository (and its resources/)."""
    copy = tmp_path_factory.mktemp("project") / "gpudesk-src"
    copy.mkdir()
    for name in PROJECT_FILES:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=IGNORE)
        else:
            shutil.copy2(source, copy / name)
    return copy


@pytest.fixture(scope="module")
def wheel(project_copy, tmp_path_factory) -> Path:
    return run_hook(project_copy, "build_wheel", tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def sdist(project_copy, tmp_path_factory) -> Path:
    return run_hook(project_copy, "build_sdist", tmp_path_factory.mktemp("sdist"))


def package_data_files() -> list[str]:
    """Every data file inside gpudesk/ the app reads at run time (the catalog, the compiled .mo catalogs): all but
    Python sources and the translation sources (.po, .pot), which the wheel leaves out."""
    package = REPO / "gpudesk"
    return sorted(f"gpudesk/{p.relative_to(package).as_posix()}" for p in package.rglob("*")
                  if p.is_file() and p.suffix not in (".py", ".pyc", ".po", ".pot") and "__pycache__" not in p.parts)


def test_the_wheel_carries_every_resource_inside_the_package(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in shipped_resources() + package_data_files() if name not in names]
    assert not missing
    assert {"gpudesk/catalog/catalog.db", "gpudesk/locale/zh_CN/LC_MESSAGES/gpudesk.mo"} <= set(package_data_files())
    assert "gpudesk/catalog/catalog.db" in names
    assert "gpudesk/resources/translations/gpudesk_zh_CN.qm" in names
    assert "gpudesk/locale/zh_CN/LC_MESSAGES/gpudesk.mo" in names  # the core's messages (CLI, plan, findings)
    assert not [n for n in names if n.startswith(("resources/", "tests/", "packaging/")) or n.endswith(".ts")]
    assert {f"gpudesk-{__version__}.dist-info/licenses/{name}" for name in ("LICENSE", "NOTICE")} <= names


def test_a_wheel_built_from_the_sdist_is_the_same(sdist, tmp_path):
    with tarfile.open(sdist) as archive:
        members = archive.getnames()
        archive.extractall(tmp_path, filter="data")
    top = f"gpudesk-{__version__}"
    assert f"{top}/resources/examples/article-13b-finetune.toml" in members and f"{top}/setup.py" in members
    rebuilt = run_hook(tmp_path / top, "build_wheel", tmp_path / "out")
    assert set(zipfile.ZipFile(rebuilt).namelist()) >= set(shipped_resources())


# --- installed into a fresh venv, offline (part of `make test`) -------------------------------------------------

def site_packages_of(python: str) -> str:
    """The purelib folder of the interpreter ``python`` (a venv's own site-packages)."""
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout.strip()


@pytest.fixture(scope="module")
def installed_venv(wheel, tmp_path_factory) -> Path:
    """A fresh venv holding only the built wheel (``pip --no-deps --no-index``: no network); the runtime
    dependencies come from the test interpreter's site-packages, appended by a ``.pth`` line after the venv's own
    folder, so ``gpudesk`` resolves to the installed wheel and never to this checkout (an editable install's
    finder is not loaded: a plain path line in a .pth runs no code)."""
    venv = tmp_path_factory.mktemp("wheel-venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = str(venv / "bin" / "python")
    install = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--quiet", "--no-deps",
                              "--no-index", "--disable-pip-version-check", str(wheel)],
                             capture_output=True, text=True, timeout=300, check=False)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    own = Path(site_packages_of(python))
    (own / "zz_test_dependencies.pth").write_text(site_packages_of(sys.executable) + "\n", encoding="utf-8")
    return venv


def test_the_installed_wheel_prints_chinese_with_lang_zh_cn(installed_venv, tmp_path):
    """`gpudesk --lang zh_CN` from the wheel speaks Chinese: the core gettext catalog (gpudesk.mo) was shipped
    and is found inside the installed package, not in this checkout."""
    env = user_env(tmp_path)
    for name in ("LANG", "LC_ALL", "LANGUAGE", "GPUDESK_LANG"):  # only --lang chooses
        env.pop(name, None)
    where = subprocess.run([str(installed_venv / "bin" / "python"), "-c", "import gpudesk; print(gpudesk.__file__)"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
    assert where.returncode == 0, where.stderr
    assert where.stdout.strip().startswith(str(installed_venv)), where.stdout  # the wheel, not the checkout
    gpudesk = str(installed_venv / "bin" / "gpudesk")
    chinese = subprocess.run([gpudesk, "--lang", "zh_CN", "catalog", "--help"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=False)
    assert chinese.returncode == 0, chinese.stdout + chinese.stderr
    assert "所有 GPU，每行一块" in chinese.stdout and "all GPUs, one per line" not in chinese.stdout
    english = subprocess.run([gpudesk, "--lang", "en", "catalog", "--help"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=False)
    assert english.returncode == 0 and "all GPUs, one per line" in english.stdout, english.stdout + english.stderr
    listing = subprocess.run([gpudesk, "--lang", "zh_CN", "catalog", "list"], env=env, cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, check=False)
    assert listing.returncode == 0, listing.stdout + listing.stderr
    assert "h100-sxm" in listing.stdout and "价格即规划器使用的价格" in listing.stdout  # catalog.db and .mo


CORE_CHECKS = """
from gpudesk import selftest
for result in selftest.run_checks([(name, check) for name, check in selftest.CHECKS if name != "window"]):
    print(result.line())
"""


def test_the_installed_wheel_passes_the_core_self_test_checks(installed_venv, tmp_path):
    """The self-test's Qt-free checks (the window check runs in tests/test_selftest.py) on the installed wheel: its
    languages check reads the catalogs inside the installed package, so a wheel without them fails here."""
    result = subprocess.run([str(installed_venv / "bin" / "python"), "-c", CORE_CHECKS], env=user_env(tmp_path),
                            cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == len(selftest.CHECKS) - 1 and all(line.startswith("ok   ") for line in lines), result.stdout
    assert f"source/pip install at {installed_venv}" in result.stdout  # the wheel's files, not this checkout's
    assert "ok   languages: core messages and window translation installed for zh_CN" in lines


# --- installed, outside the repository (--run-packaging: pip resolves the runtime dependencies) ---------------

CHECK_INSTALL = """
import importlib.util, os, sys
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication
from gpudesk import paths
from gpudesk.telemetry.formats import dmon_import
from gpudesk.ui.app import install_translators
app = QApplication([])
loaded = install_translators(app)
print("resources", paths.resources_dir())
print("examples", len(list(paths.examples_dir().glob("*.toml"))))
print("demo", dmon_import.demo_path().is_file())
print("translated", QCoreApplication.translate("MainWindow", "Plan") == "\u89c4\u5212")  # 规划
from gpudesk import i18n
i18n.set_language("zh_CN")
print("core-translated", i18n._("Summary") == "\u6458\u8981")  # 摘要
print("test-extra", [m for m in ("pytest", "torch") if importlib.util.find_spec(m)])
"""


def user_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUDESK_") and k != "PYTHONPATH"}
    env.update(HOME=str(tmp_path / "home"), XDG_DATA_HOME=str(tmp_path / "xdg-data"), QT_QPA_PLATFORM="offscreen")
    return env


def assert_self_test_passes(gpudesk: Path, env: dict[str, str], cwd: Path) -> None:
    result = subprocess.run([str(gpudesk), "--self-test"], env=env, cwd=cwd, capture_output=True, text=True,
                            timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"self-test: {len(selftest.CHECKS)} passed, 0 failed" in result.stdout
    assert "source/pip install at" in result.stdout and str(REPO) not in result.stdout


@pytest.mark.packaging
def test_the_wheel_in_a_fresh_venv_passes_the_self_test_and_is_complete(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = user_env(tmp_path)
    install = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False)
    assert install.returncode == 0, install.stderr[-3000:]
    assert_self_test_passes(venv / "bin" / "gpudesk", env, tmp_path)
    env_zh = dict(env, LANG="zh_CN.UTF-8", LC_ALL="zh_CN.UTF-8", LANGUAGE="zh_CN")  # Qt reads the system locale
    result = subprocess.run([str(venv / "bin" / "python"), "-c", CHECK_INSTALL], env=env_zh, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    seen = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert seen["resources"].endswith("site-packages/gpudesk/resources")
    assert seen["examples"] == str(len(list((RESOURCES / "examples").glob("*.toml"))))
    assert seen["demo"] == "True" and seen["translated"] == "True" and seen["core-translated"] == "True"
    assert seen["test-extra"] == "[]"
    assert_lang_zh_cn(venv / "bin" / "gpudesk", env, tmp_path, Path(seen["resources"]))


def assert_lang_zh_cn(gpudesk: Path, env: dict[str, str], cwd: Path, resources: Path) -> None:
    """``gpudesk --lang zh_CN`` of the installed wheel speaks Chinese: the parser's help, and a finding-bearing
    ``monitor analyze`` of the shipped demo (the core catalog, gpudesk.mo, must be in the wheel for both)."""
    help_run = subprocess.run([str(gpudesk), "--lang", "zh_CN", "--help"], env=env, cwd=cwd, capture_output=True,
                              text=True, timeout=120, check=False)
    assert help_run.returncode == 0, help_run.stderr
    assert help_run.stdout.startswith("用法：gpudesk") and "不带命令时打开窗口" in help_run.stdout
    demo = resources / "demo" / "demo-training-dmon.txt"
    analyze = subprocess.run([str(gpudesk), "--lang", "zh_CN", "monitor", "analyze", str(demo)], env=env, cwd=cwd,
                             capture_output=True, text=True, timeout=120, check=False)
    assert analyze.returncode == 0, analyze.stderr
    assert "5 分钟" in analyze.stdout and "中位数" in analyze.stdout, analyze.stdout[:2000]


@pytest.mark.packaging
@pytest.mark.skipif(shutil.which("pipx") is None, reason="needs pipx (Debian: apt-get install pipx)")
def test_pipx_install_of_the_wheel_passes_the_self_test(wheel, tmp_path):
    env = user_env(tmp_path)
    env.update(PIPX_HOME=str(tmp_path / "pipx"), PIPX_BIN_DIR=str(tmp_path / "bin"))
    install = subprocess.run(["pipx", "install", str(wheel)], env=env, cwd=tmp_path, capture_output=True,
                             text=True, timeout=900, check=False)
    assert install.returncode == 0, install.stdout[-2000:] + install.stderr[-3000:]
    assert_self_test_passes(tmp_path / "bin" / "gpudesk", env, tmp_path)
