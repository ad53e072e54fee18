import sys

from valuation.cli import main

sys.exit(main())
