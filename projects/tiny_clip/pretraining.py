"""Pre-train mmidc's tiny CLIP (``mmidc-tiny-clip``) with open_clip's trainer
(``python -m projects.tiny_clip.pretrain``; docs/tiny_clip.md).

:func:`pretrain` writes the synthetic image-text corpus
(:mod:`projects.tiny_clip.corpus`), trains an open_clip model config (mmidc's
``mmidc/models/clip4idc/model_configs/mmidc-tiny-clip.json`` by default, or
one of the project's ``model_configs/``) with
``open_clip_train`` on CPU (its own loop, logging and checkpoints), resumes
from its newest epoch checkpoint that loads when run again (a newer one that
does not, e.g. the 0-byte file of a save that was killed, is logged and set
aside as ``epoch_N.pt.unreadable``), and exports the final
weights as a safetensors state dict with open_clip's names, which
``open_clip.create_model('mmidc-tiny-clip', pretrained=path)`` and the
CLIP4IDC configs' ``pretrained=`` load.

Outputs under ``work_dir``: ``corpus/`` (images and ``corpus.csv``),
``logs/<name>/`` (open_clip_train's log and ``checkpoints/epoch_N.pt``) and
``mmidc-tiny-clip.safetensors``. A finished run is kept: running again only
re-exports. Needs open_clip_train's packages
(``pip install "mmidc[clip-pretrain]"``: pandas, braceexpand, webdataset).
"""
import contextlib
import glob
import os
import os.path as osp
import re
import logging
import time
from dataclasses import dataclass
from typing import Optional, Tuple

import torch
from mmengine.logging import print_log

from . import TinyCLIPError

__all__ = ['PretrainSettings', 'pretrain', 'export_state_dict',
           'latest_checkpoint', 'checkpoint_problem']

MODEL_NAME = 'mmidc-tiny-clip'


@dataclass
class PretrainSettings:
    """The corpus and schedule of a pre-training run.

    Args:
        work_dir (str): Output folder.
        num_images (int): Corpus size.
        seed (int): Corpus and training seed.
        epochs (int): Epochs over the corpus (a larger number trains the
            same run on, with a new cosine).
        batch_size (int): Batch size.
        lr (float): Peak learning rate.
        wd (float): Weight decay.
        warmup (int): Warm-up steps.
        workers (int): Data loader processes.
        name (str, optional): Run name under ``logs/`` (default: derived
            from the corpus and schedule options).
        log_every (int): Log every N steps.
        export (str, optional): The safetensors file to write (default:
            ``<work_dir>/<model>.safetensors``).
        model (str): The open_clip model config to train (one of the
            ``mmidc-tiny-clip`` configs, mmidc's or the project's, or any
            registered name).
    """
    work_dir: str = 'work_dirs/tiny_clip'
    num_images: int = 8000
    seed: int = 0
    epochs: int = 4
    batch_size: int = 128
    lr: float = 1e-3
    wd: float = 0.1
    warmup: int = 50
    workers: int = 1
    name: Optional[str] = None
    log_every: int = 10
    export: Optional[str] = None
    model: str = MODEL_NAME


def run_name(settings: PretrainSettings) -> str:
    """The run's folder under ``logs/``: ``settings.name``, or one derived
    from the corpus and schedule options."""
    if settings.name:
        return settings.name
    # no epochs in the name: a larger epochs trains the same run on
    model = '' if settings.model == MODEL_NAME else settings.model + '_'
    return (f'{model}n{settings.num_images}_s{settings.seed}_'
            f'b{settings.batch_size}_lr{settings.lr:g}')


def open_clip_argv(args: PretrainSettings, csv_path: str, logs: str,
                   name: str) -> list:
    """open_clip_train's command line for this run."""
    return [
        '--model', args.model, '--train-data', csv_path,
        '--dataset-type', 'csv', '--csv-separator', '\t',
        '--csv-img-key', 'filepath', '--csv-caption-key', 'title',
        '--device', 'cpu', '--precision', 'fp32',
        '--workers', str(args.workers), '--batch-size', str(args.batch_size),
        '--epochs', str(args.epochs), '--lr', str(args.lr),
        '--wd', str(args.wd), '--warmup', str(args.warmup),
        '--seed', str(args.seed), '--logs', logs, '--name', name,
        '--resume', 'latest', '--save-frequency', '1',
        '--log-every-n-steps', str(args.log_every), '--report-to', '',
        '--aug-cfg', 'scale=(1.0,1.0)',
    ]


@contextlib.contextmanager
def whole_image_crop(aspect: float):
    """Give open_clip's training crop the images' own aspect ratio.

    open_clip's train transform is ``RandomResizedCrop(image_size, scale)``
    with torchvision's default aspect range 3:4-4:3; on the 3:2 corpus images
    that crops a 4:3 centre and stretches it back. With ``ratio`` fixed to
    the images' aspect (and ``scale=(1, 1)``) the crop is the whole image.
    """
    import open_clip.transform as oc_transform
    from torchvision.transforms import RandomResizedCrop

    def crop(size, scale, interpolation):
        return RandomResizedCrop(size, scale=scale, ratio=(aspect, aspect),
                                 interpolation=interpolation)

    original = oc_transform.RandomResizedCrop
    oc_transform.RandomResizedCrop = crop
    try:
        yield
    finally:
        oc_transform.RandomResizedCrop = original


def checkpoint_problem(path: str) -> Optional[str]:
    """Why an open_clip training checkpoint does not load (``weights_only``),
    or None when it does."""
    try:
        if os.path.getsize(path) == 0:
            return 'an empty file'
        ckpt = torch.load(path, map_location='cpu', weights_only=True)
    except Exception as err:  # EOFError, zip errors, unpickling errors
        return f'{type(err).__name__}: {err}'
    if not isinstance(ckpt, dict) or not {'epoch', 'state_dict'} <= set(ckpt):
        return 'not an open_clip training checkpoint (no epoch, state_dict)'
    return None


def latest_checkpoint(checkpoint_dir: str, set_aside: bool = False
                      ) -> Optional[Tuple[int, str]]:
    """``(epoch, path)`` of the newest ``epoch_N.pt`` that loads, or None.

    Each newer one that does not load (a save killed midway leaves a 0-byte
    file) is named in a warning with the checkpoint used instead.

    Args:
        checkpoint_dir (str): open_clip_train's ``checkpoints`` folder.
        set_aside (bool): Rename the checkpoints that do not load to
            ``epoch_N.pt.unreadable`` (kept, not deleted), so that
            open_clip_train's ``--resume latest`` resumes from the one
            returned instead of dying on them.
    """
    found = []
    for path in glob.glob(osp.join(glob.escape(checkpoint_dir),
                                   'epoch_*.pt')):
        match = re.fullmatch(r'epoch_(\d+)\.pt', osp.basename(path))
        if match:
            found.append((int(match.group(1)), path))
    for epoch, path in sorted(found, reverse=True):
        problem = checkpoint_problem(path)
        if problem is None:
            return epoch, path
        older = [p for e, p in found if e < epoch]
        action = 'set aside as ' + path + '.unreadable' if set_aside else \
            'skipped'
        print_log(f'tiny CLIP: checkpoint {path} does not load ({problem}); '
                  f'{action}, '
                  + ('an older one is tried' if older else 'no older one: '
                     'training starts from scratch'),
                  logger='current', level=logging.WARNING)
        if set_aside:
            os.replace(path, path + '.unreadable')
    return None


def export_state_dict(checkpoint: str, out: str,
                      arch: str = MODEL_NAME) -> str:
    """Write an open_clip training checkpoint's weights as safetensors."""
    from safetensors.torch import save_file
    ckpt = torch.load(checkpoint, map_location='cpu', weights_only=True)
    state = ckpt.get('state_dict', ckpt)
    state = {(k[len('module.'):] if k.startswith('module.') else k):
             v.contiguous() for k, v in state.items()}
    os.makedirs(osp.dirname(osp.abspath(out)), exist_ok=True)
    tmp = out + '.tmp'
    save_file(state, tmp, metadata={'arch': arch,
                                    'source': osp.abspath(checkpoint)})
    os.replace(tmp, out)
    return out


def pretrain(args: PretrainSettings) -> str:
    """Write the corpus, train (or resume) and export; returns the export.

    Raises:
        TinyCLIPError: open_clip_train's packages are missing, or it
            failed.
    """
    from mmidc.models.open_clip import get_clip_config
    from .corpus import generate_clip_corpus
    from .open_clip_models import register_model_configs
    try:
        import open_clip_train.main as oc_main
    except ImportError as err:
        raise TinyCLIPError(
            f'open_clip_train needs the packages of open_clip\'s training '
            f'extra ({err}): pip install pandas braceexpand webdataset')
    register_model_configs()
    height, width = get_clip_config(args.model)['vision_cfg']['image_size']
    csv_path = generate_clip_corpus(
        osp.join(args.work_dir, 'corpus'), args.num_images, seed=args.seed,
        image_size=(height, width))
    logs, name = osp.join(args.work_dir, 'logs'), run_name(args)
    checkpoint_dir = osp.join(logs, name, 'checkpoints')
    done = latest_checkpoint(checkpoint_dir, set_aside=True)
    if done is not None:
        print_log(f'tiny CLIP: epoch {done[0]} done ({done[1]})',
                  logger='current')
    if done is None or done[0] < args.epochs:
        argv = open_clip_argv(args, csv_path, logs, name)
        print_log('open_clip_train ' + ' '.join(
            repr(a) if a == '\t' else a for a in argv), logger='current')
        start = time.time()
        with whole_image_crop(width / height):
            status = oc_main.main(argv)
        if status == -1:
            raise TinyCLIPError(f'open_clip_train failed (see '
                                f'{osp.join(logs, name, "out.log")})')
        print_log(f'tiny CLIP: trained in {time.time() - start:.0f} s',
                  logger='current')
        done = latest_checkpoint(checkpoint_dir)
    if done is None:
        raise TinyCLIPError(f'no checkpoint in {checkpoint_dir}')
    out = args.export or osp.join(args.work_dir, f'{args.model}.safetensors')
    export_state_dict(done[1], out, arch=args.model)
    print_log(f'tiny CLIP: epoch {done[0]} weights in {out}', logger='current')
    return out
