"""``python -m controller.cli``: the ``croupier`` command."""

import sys

from controller.cli.main import main

sys.exit(main())
