"""Caption the difference between two images, or many pairs: the command of
:mod:`mmidc.cli.caption_pair` (its options: ``python tools/caption_pair.py
--help``)."""
import sys

from mmidc.cli.caption_pair import *  # noqa: F401,F403
from mmidc.cli.caption_pair import main

if __name__ == '__main__':
    sys.exit(main())
