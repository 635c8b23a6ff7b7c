"""Pretrain mmidc's tiny CLIP (``mmidc-tiny-clip``) with open_clip's trainer.

One command: writes the synthetic image-text corpus, trains the tiny CLIP with
``open_clip_train`` on CPU, resumes from its newest epoch checkpoint that loads
(one that does not is named and set aside) when run
again, and exports the final weights as a safetensors state dict with
open_clip's names (:mod:`projects.tiny_clip.pretraining`). From the
repository root::

    python -m projects.tiny_clip.pretrain               # work_dirs/tiny_clip
    python -m projects.tiny_clip.pretrain --epochs 8    # train on, resumed
                                                        # (a new cosine)

Outputs under ``--work-dir``: ``corpus/`` (images and ``corpus.csv``),
``logs/<name>/`` (open_clip_train's log and ``checkpoints/epoch_N.pt``) and
``mmidc-tiny-clip.safetensors``. A finished run is kept: running the same
command again only re-exports. Needs open_clip_train's packages
(``pip install "mmidc[clip-pretrain]"``: pandas, braceexpand, webdataset).
"""
import argparse
import sys

from projects.tiny_clip import TinyCLIPError
from projects.tiny_clip.pretraining import (MODEL_NAME, PretrainSettings,
                                            pretrain)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog='python -m projects.tiny_clip.pretrain',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('--work-dir', default='work_dirs/tiny_clip',
                        help='output folder (default: %(default)s)')
    parser.add_argument('--num-images', type=int, default=8000,
                        help='corpus size (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=0,
                        help='corpus and training seed (default: %(default)s)')
    parser.add_argument('--epochs', type=int, default=4,
                        help='epochs over the corpus (default: %(default)s)')
    parser.add_argument('--batch-size', type=int, default=128,
                        help='default: %(default)s')
    parser.add_argument('--lr', type=float, default=1e-3,
                        help='peak learning rate (default: %(default)s)')
    parser.add_argument('--wd', type=float, default=0.1,
                        help='weight decay (default: %(default)s)')
    parser.add_argument('--warmup', type=int, default=50,
                        help='warm-up steps (default: %(default)s)')
    parser.add_argument('--workers', type=int, default=1,
                        help='data loader processes (default: %(default)s)')
    parser.add_argument('--name', default=None,
                        help='run name under logs/ (default: derived from '
                        'the corpus and schedule options)')
    parser.add_argument('--log-every', type=int, default=10,
                        help='log every N steps (default: %(default)s)')
    parser.add_argument('--model', default=MODEL_NAME,
                        help='open_clip model config to train (default: '
                        '%(default)s; mmidc-tiny-clip-p8: 8 px patches)')
    parser.add_argument('--export', default=None,
                        help='safetensors file to write (default: '
                        'WORK_DIR/MODEL.safetensors)')
    return PretrainSettings(**vars(parser.parse_args(argv)))


def main(argv=None):
    try:
        return pretrain(parse_args(argv))
    except TinyCLIPError as err:
        sys.exit(str(err))


if __name__ == '__main__':
    main()
