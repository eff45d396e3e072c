"""Fetch a released vllm-ascend sdist from the registry for the tox envs.

    python -m mrv2_conformance.adapters._ascend.release DEST

Downloads ``vllm_ascend-<version>.tar.gz`` (the pinned release, checked against its
pinned sha256) into ``DEST`` and prints its path, the value for
``MRV2_VLLM_ASCEND_SNAPSHOT`` (``snapshot.py`` unpacks it). pip cannot fetch it: pip
prepares an sdist's metadata, and this one's build requires triton-ascend, which is not
on the registry (and ``SOC_VERSION``). Nothing is built; the port runs from its source.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import urllib.request
from pathlib import Path

VERSION = "0.23.0.post1"
FILENAME = f"vllm_ascend-{VERSION}.tar.gz"
SHA256 = "a3b9f4a5dd7aa50c37e03d1f35937c4ae5aeacc49b734cac74d59ce5757738e1"
INDEX = os.environ.get("MRV2_PYPI_SIMPLE", "https://pypi.org/simple")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fetch(dest: Path) -> Path:
    target = dest / FILENAME
    if target.is_file() and _digest(target) == SHA256:
        return target
    with urllib.request.urlopen(f"{INDEX}/vllm-ascend/", timeout=60) as page:
        html = page.read().decode()
    found = re.search(rf'href="([^"#]*/{re.escape(FILENAME)})#sha256=([0-9a-f]+)"', html)
    if found is None:
        raise OSError(f"{INDEX}/vllm-ascend/ lists no {FILENAME}")
    if found.group(2) != SHA256:
        raise OSError(f"{FILENAME}: the index lists sha256 {found.group(2)}, pinned {SHA256}")
    dest.mkdir(parents=True, exist_ok=True)
    part = target.with_suffix(".part")
    with urllib.request.urlopen(found.group(1), timeout=300) as src:
        part.write_bytes(src.read())
    if _digest(part) != SHA256:
        part.unlink()
        raise OSError(f"{FILENAME}: downloaded file does not have the pinned sha256")
    part.replace(target)
    return target


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m mrv2_conformance.adapters._ascend.release DEST", file=sys.stderr)
        return 2
    try:
        print(fetch(Path(args[0])))
    except OSError as exc:
        print(f"cannot fetch vllm-ascend {VERSION}: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
