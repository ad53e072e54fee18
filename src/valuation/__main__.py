import sys

from valuation.cli.main import main

sys.exit(main())
