"""``python -m mrv2_conformance.simdevice``: build (or find) the simulated device and
say where it is cached; exit 1 with one line where it cannot be built."""

from __future__ import annotations

import sys
import time


def main() -> int:
    from mrv2_conformance import simdevice

    start = time.monotonic()
    try:
        mod = simdevice.load()
    except simdevice.SimDeviceUnavailable as exc:
        print(f"simulated device unavailable: {exc}", file=sys.stderr)
        return 1
    print(
        f"{simdevice.NAME}: {mod.device_count()} devices, built in {simdevice.cache_dir()} "
        f"({time.monotonic() - start:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
