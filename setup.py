"""Package layout that pyproject.toml cannot express: ``resources/`` ships inside the wheel as ``gpudesk/resources``.

``resources/`` (examples, demo recording, icons, translations, notices, self-test inputs, desktop entry) is the one
place these files live in the repository; ``package_dir`` maps it into the ``gpudesk`` package, so wheels and
sdists carry it without a copy to keep in sync. ``gpudesk.paths.resources_dir()`` finds it in either place.
Its folders are data-only namespace packages (no ``__init__.py``). Translation sources (``*.ts``) stay out: the
app loads the compiled ``*.qm`` files. Everything else about the project is in pyproject.toml.
"""

from setuptools import find_namespace_packages, find_packages, setup

RESOURCES_PACKAGE = "gpudesk.resources"
RESOURCES_DIR = "resources"
RESOURCE_PACKAGES = [RESOURCES_PACKAGE] + [f"{RESOURCES_PACKAGE}.{name}" for name in find_namespace_packages(RESOURCES_DIR)]

setup(
    packages=find_packages(include=["gpudesk", "gpudesk.*"]) + RESOURCE_PACKAGES,
    package_dir={RESOURCES_PACKAGE: RESOURCES_DIR},
    package_data={
        "": ["*.db", "*.json", "*.py.txt", "*.qm", "*.mo"],
        # The core's gettext catalogs: gpudesk/locale/<lang>/LC_MESSAGES is no package (no __init__.py), so the
        # pattern above never reaches it; gpudesk.i18n loads gpudesk.mo from there.
        "gpudesk": ["locale/*/LC_MESSAGES/*.mo"],
        **{name: ["*"] for name in RESOURCE_PACKAGES},
    },
    exclude_package_data={name: ["*.ts"] for name in RESOURCE_PACKAGES},
)
