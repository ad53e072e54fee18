import sys

from valuation.cli.main import main
from valuation.db.safe_files import private_files

private_files()          # what the command creates (a database, a backup) is its owner's only
sys.exit(main())
