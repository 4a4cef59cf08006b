"""`python serve.py ...` from a checkout: the same as the installed `ambient-notes` command."""

import sys

from backend.cli import main

if __name__ == "__main__":
    sys.exit(main())
