"""``python -m tfgpu``."""

import sys

from tfgpu.cli.main import main

sys.exit(main())
