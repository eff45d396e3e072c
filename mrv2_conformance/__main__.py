"""``python -m mrv2_conformance``: the same as the ``mrv2-conformance`` command."""

import sys

from mrv2_conformance.cli import main

sys.exit(main())
