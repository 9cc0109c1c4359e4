import sys

from lab.cli import main

sys.exit(main())
