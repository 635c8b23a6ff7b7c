"""Evaluate a trained mmidc checkpoint on a config's test split: the
command of :mod:`mmidc.cli.test` (its options: ``python tools/test.py --help``)."""
from mmidc.cli.test import *  # noqa: F401,F403
from mmidc.cli.test import main

if __name__ == '__main__':
    main()
