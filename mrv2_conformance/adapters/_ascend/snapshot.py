"""Unpack the vllm-ascend source snapshot for the tox envs and the tests.

    python -m mrv2_conformance.adapters._ascend.snapshot DEST
    python -m mrv2_conformance.adapters._ascend.snapshot --check-untouched DEST

Finds ``vllm-ascend-*.tar.gz`` (a ``git archive`` of the plugin) at
``$MRV2_VLLM_ASCEND_SNAPSHOT``, else in ``shared/vendor/`` beside the suite's clone or
beside the clone it was cloned from, unpacks it into ``DEST`` (replacing an earlier
unpack) and prints the checkout's path, the value for ``MRV2_VLLM_ASCEND_SRC``. A
backend team points ``MRV2_VLLM_ASCEND_SRC`` at its own tree instead.
``--check-untouched`` (after a run) fails if the unpacked checkout differs from the
snapshot: the suite must never write into a checkout.
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
        url = subprocess.run(
            ["git", "-C", str(root), "remote", "get-url", "origin"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(url) if url and Path(url).is_dir() else None


def find() -> Path:
    explicit = os.environ.get(SNAPSHOT_ENV_VAR)
    if explicit:
        if not Path(explicit).is_file():
            raise SnapshotError(f"{SNAPSHOT_ENV_VAR}={explicit}: no such file")
        return Path(explicit)
    root = suite_root().parent  # the clone (the package's folder sits in it)
    places = [root.parent / "shared" / "vendor"]
    origin = _origin(root)
    if origin is not None:
        places.append(origin.resolve().parent / "shared" / "vendor")
    for place in places:
        found = sorted(place.glob("vllm-ascend-*.tar.gz"))
        if found:
            return found[-1]
    raise SnapshotError(
        f"no vllm-ascend-*.tar.gz in {', '.join(map(str, places))}; set "
        f"{SNAPSHOT_ENV_VAR} to the snapshot, or MRV2_VLLM_ASCEND_SRC to a "
        f"checkout"
    )


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


def changes(archive: Path, dest: Path) -> list[str]:
    """Paths under the unpacked checkout that the archive does not hold (written since)."""
    with tarfile.open(archive) as tar:
        names = {m.name.rstrip("/") for m in tar.getmembers()}
    names |= {str(Path(n).parents[i]) for n in names for i in range(len(Path(n).parents) - 1)}
    top = next(iter(names)).split("/", 1)[0]
    return sorted(
        str(p.relative_to(dest))
        for p in (dest / top).rglob("*")
        if str(p.relative_to(dest)) not in names
    )


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    check = "--check-untouched" in args
    args = [a for a in args if a != "--check-untouched"]
    if len(args) != 1:
        print(
            "usage: python -m mrv2_conformance.adapters._ascend.snapshot [--check-untouched] DEST",
            file=sys.stderr,
        )
        return 2
    try:
        if check:
            written = changes(find(), Path(args[0]))
            if written:
                print(
                    f"written into the vllm-ascend checkout ({len(written)}): "
                    f"{', '.join(written[:5])}",
                    file=sys.stderr,
                )
                return 1
            return 0
        print(unpack(find(), Path(args[0])))
    except (SnapshotError, OSError, tarfile.TarError) as exc:
        print(f"cannot unpack the vllm-ascend snapshot: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
