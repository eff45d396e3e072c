"""The installed suite, checked as a user meets it: ``python -m
mrv2_conformance.tests.installed`` from a directory outside any clone, in an
environment where the package was installed from its wheel (``tox -e installed``).

It checks that nothing generic was installed at the top level, that the
``mrv2-conformance`` command passes against the reference and fails against a broken
target with the contract message, and that the failure's reproduction command, pasted
into a shell in yet another directory, fails with the same message.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import mrv2_conformance

BROKEN = "mrv2_conformance.tests.mutants.m_idx_mapping_np_int32"
MESSAGE = "idx_mapping_np has dtype int32, expected intp (int64)"
GENERIC = ("impl", "strategies", "conformance", "adapters", "tests", "bench", "xfails")


def run(args: list[str], cwd: Path, shell: bool = False) -> subprocess.CompletedProcess:
    print(f"$ {args if shell else ' '.join(args)}", flush=True)
    proc = subprocess.run(args, cwd=cwd, shell=shell, capture_output=True, text=True, timeout=600)
    print(proc.stdout[-1500:] + proc.stderr[-800:], flush=True)
    return proc


def check(ok: bool, what: str) -> None:
    if not ok:
        sys.exit(f"installed suite: FAILED: {what}")
    print(f"ok: {what}", flush=True)


def main() -> None:
    where = Path(mrv2_conformance.__file__).resolve().parent
    check("site-packages" in where.parts, f"mrv2_conformance is the installed copy ({where})")
    check(
        all(importlib.util.find_spec(n) is None for n in GENERIC),
        f"no generic top-level name is importable ({', '.join(GENERIC)})",
    )
    found = shutil.which("mrv2-conformance")
    check(found is not None, "the mrv2-conformance command is on PATH")
    command = str(found)
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        here, elsewhere = Path(a), Path(b)
        ok = run([command, "-q", "-p", "no:xdist"], here)
        check(
            ok.returncode == 0 and "NON-CONFORMING" not in ok.stdout and "conforms" in ok.stdout,
            "the reference conforms",
        )
        report = here / "report.json"
        bad = run(
            [
                command,
                "-q",
                "-p",
                "no:xdist",
                "--target",
                BROKEN,
                "-m",
                "dtype_width",
                f"--conformance-report={report}",
            ],
            here,
        )
        check(
            bad.returncode == 1 and MESSAGE in bad.stdout and "Reproduce with:" in bad.stdout,
            "a broken target fails with the message and a reproduction command",
        )
        failed = [
            r
            for r in json.loads(report.read_text())["results"]
            if r["outcome"] == "failed" and MESSAGE in r["message"]
        ]
        check(
            bool(failed) and all(r["reproduction"] for r in failed),
            "the JSON report keeps each failure's reproduction command",
        )
        for rec in failed:
            again = run(rec["reproduction"].splitlines()[0], elsewhere, shell=True)
            check(
                again.returncode == 1 and MESSAGE in again.stdout,
                f"{rec['property']}: the pasted command fails with the same message",
            )
        md = run([sys.executable, "-m", "mrv2_conformance.plugin.report", str(report)], here)
        check(
            md.returncode == 0 and "**NON-CONFORMING**" in md.stdout,
            "the Markdown report says NON-CONFORMING",
        )


if __name__ == "__main__":
    main()
