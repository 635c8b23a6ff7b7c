"""Train an mmidc model (adaptation or captioning stage) with MMEngine: the
command of :mod:`mmidc.cli.train` (its options: ``python tools/train.py --help``)."""
from mmidc.cli.train import *  # noqa: F401,F403
from mmidc.cli.train import main

if __name__ == '__main__':
    main()
