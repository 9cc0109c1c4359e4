import sys

from lab.cli.main import main

sys.exit(main())
