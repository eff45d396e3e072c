"""Unpack the vllm-ascend source snapshot for the tox envs and the tests.

    python -m mrv2_conformance.adapters._ascend.snapshot DEST

Finds ``vllm-ascend-*.tar.gz`` (a ``git archive`` of the plugin) at
``$MRV2_VLLM_ASCEND_SNAPSHOT``, else in ``shared/vendor/`` beside the suite's clone or
beside the clone it was cloned from, unpacks it into ``DEST`` (replacing an earlier
unpack) and prints the checkout's path, the value for ``MRV2_VLLM_ASCEND_SRC``. A
backend team points ``MRV2_VLLM_ASCEND_SRC`` at its own tree instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

from mrv2_conformance import suite_root

SNAPSHOT_ENV_VAR = "MRV2_VLLM_ASCEND_SNAPSHOT"


class SnapshotError(Exception):
    pass


def _origin(root: Path) -> Path | None:
    try:
        url = subprocess.run(["git", "-C", str(root), "remote", "get-url", "origin"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(url) if url and Path(url).is_dir() else None


def find() -> Path:
    explicit = os.environ.get(SNAPSHOT_ENV_VAR)
    if explicit:
        if not Path(explicit).is_file():
            raise SnapshotError(f"{SNAPSHOT_ENV_VAR}={explicit}: no such file")
        return Path(explicit)
    root = suite_root()
    places = [root.parent / "shared" / "vendor"]
    origin = _origin(root)
    if origin is not None:
        places.append(origin.resolve().parent / "shared" / "vendor")
    for place in places:
        found = sorted(place.glob("vllm-ascend-*.tar.gz"))
        if found:
            return found[-1]
    raise SnapshotError(f"no vllm-ascend-*.tar.gz in {', '.join(map(str, places))}; set "
                        f"{SNAPSHOT_ENV_VAR} to the snapshot, or MRV2_VLLM_ASCEND_SRC to a "
                        f"checkout")


def unpack(archive: Path, dest: Path) -> Path:
    """The archive's single top folder, unpacked under ``dest``."""
    with tarfile.open(archive) as tar:
        tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
        if len(tops) != 1:
            raise SnapshotError(f"{archive}: expected one top folder, found {sorted(tops)}")
        checkout = dest / tops.pop()
        shutil.rmtree(checkout, ignore_errors=True)
        dest.mkdir(parents=True, exist_ok=True)
        tar.extractall(dest, filter="data")
    if not (checkout / "vllm_ascend" / "worker" / "v2").is_dir():
        raise SnapshotError(f"{archive}: no vllm_ascend/worker/v2 in it")
    return checkout


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m mrv2_conformance.adapters._ascend.snapshot DEST",
              file=sys.stderr)
        return 2
    try:
        print(unpack(find(), Path(args[0])))
    except (SnapshotError, OSError, tarfile.TarError) as exc:
        print(f"cannot unpack the vllm-ascend snapshot: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
