"""Tiny remote-sensing change-captioning trees in the layouts the sets are
distributed in (LEVIR-CC, LEVIR-MCI, WHU-CDC, SECOND-CC, Dubai-CC), with
the extra keys the real caption files carry (``imgid``, ``sentids``,
``tokens`` ...), which the readers ignore.

Pairs alternate change / no change; a no-change pair's captions are its
data set's own no-change sentences, written the way the set writes them
(LEVIR-CC's " there is no difference .", Dubai-CC's "Nothing has
changed."). The real files' excerpts are in ``tests/data/`` (see
:func:`real_excerpt`). Run as a script to write a LEVIR-CC tree for the
commands of ``docs/datasets.md``::

    python tests/helpers/rs_trees.py data/levir_cc_tiny
"""
import argparse
import json
import os
import os.path as osp
import sys
from typing import Dict, List, Optional, Tuple

import numpy as np
from PIL import Image, ImageDraw

if __package__ in (None, ''):  # run as a script
    sys.path.insert(0, osp.dirname(osp.dirname(osp.dirname(
        osp.abspath(__file__)))))
from mmidc.text.no_change import NO_CHANGE_SENTENCES  # noqa: E402
from tests.helpers.pair_trees import scene_image, write_json  # noqa: E402

SPLITS = {'train': 8, 'val': 4, 'test': 4}
NO_CHANGE = NO_CHANGE_SENTENCES['levir_cc']
#: Test file 0x0.tif's captions, as Dubai-CC writes them.
DUBAI_NO_CHANGE = ('Nothing has changed.', 'There is no difference.',
                   'No change occurred in this area.',
                   'Everything remains the same.',
                   'The area appears the same.')
DATA = osp.join(osp.dirname(osp.dirname(osp.abspath(__file__))), 'data')
CHANGE = ('a {c} building appears on the {s} side',
          'a new {c} house is built at the {s}',
          'a {c} house has been constructed on the {s}',
          'the {s} side gains a {c} building',
          'a {c} building is added to the {s} of the scene')
COLOURS = ('red', 'blue', 'white', 'gray')
SIDES = ('left', 'right', 'top', 'bottom')


def pair_images(size: Tuple[int, int], seed: int, change: bool
                ) -> Tuple[Image.Image, Image.Image, Image.Image]:
    """Before, after and a change mask (``L``; white where a square was
    added)."""
    before = scene_image(size, seed, mode='RGB')
    after = before.copy()
    mask = Image.new('L', size)
    if change:
        rng = np.random.default_rng(seed)
        w, h = size
        x, y = int(rng.integers(0, w // 2)), int(rng.integers(0, h // 2))
        box = (x, y, x + w // 3, y + h // 3)
        ImageDraw.Draw(after).rectangle(
            box, fill=tuple(int(c) for c in rng.integers(0, 256, 3)))
        ImageDraw.Draw(mask).rectangle(box, fill=255)
    return before, after, mask


def real_excerpt(name: str):
    """The excerpt of a real annotation file in ``tests/data/<name>``."""
    with open(osp.join(DATA, name)) as f:
        return json.load(f)


def captions_of(k: int, change: bool,
                no_change: Tuple[str, ...] = NO_CHANGE) -> List[str]:
    """Five captions as LEVIR-CC writes them (a trailing `` .`` on some);
    ``no_change``: the set's no-change sentences."""
    if not change:
        return [s + (' .' if i % 2 else '') for i, s in enumerate(no_change)]
    colour, side = COLOURS[k % len(COLOURS)], SIDES[(k // 2) % len(SIDES)]
    return [t.format(c=colour, s=side) + (' .' if i == 0 else '')
            for i, t in enumerate(CHANGE)]


def karpathy_record(filename: str, split: str, imgid: int,
                    captions: List[str], keys: Tuple[str, ...],
                    extra: Optional[dict] = None) -> dict:
    """A record as the Karpathy files write it; ``keys`` picks which of
    ``filepath`` / ``split`` it carries."""
    sentids = list(range(5 * imgid, 5 * imgid + len(captions)))
    record = dict(filename=filename, imgid=imgid, sentids=sentids,
                  sentences=[dict(raw=c, tokens=c.replace('.', '').split(),
                                  imgid=imgid, sentid=s)
                             for c, s in zip(captions, sentids)])
    if 'filepath' in keys:
        record['filepath'] = split
    if 'split' in keys:
        record['split'] = split
    record.update(extra or {})
    return record


def write_pairs(root: str, split: str, filenames: List[str],
                dirs: Dict[str, str], size: Tuple[int, int],
                changes: List[bool]) -> None:
    """Images of ``filenames`` into ``dirs`` (``before`` / ``after`` and
    optionally ``mask`` / ``sem1`` / ``sem2``; ``{split}`` replaced)."""
    for k, (name, change) in enumerate(zip(filenames, changes)):
        before, after, mask = pair_images(size, 1000 * len(split) + k,
                                          change)
        images = dict(before=before, after=after, mask=mask,
                      sem1=before.convert('L').convert('RGB'),
                      sem2=after.convert('L').convert('RGB'))
        for role, folder in dirs.items():
            folder = osp.join(root, folder.format(split=split))
            os.makedirs(folder, exist_ok=True)
            images[role].save(osp.join(folder, name))


def make_karpathy_tree(root: str, ann_file: str, dirs: Dict[str, str],
                       splits: Optional[Dict[str, int]] = None,
                       size: Tuple[int, int] = (32, 32),
                       keys: Tuple[str, ...] = ('filepath', 'split'),
                       changeflag: bool = False,
                       no_change: Tuple[str, ...] = NO_CHANGE) -> List[dict]:
    """One Karpathy JSON holding every split; returns its records."""
    splits = splits or SPLITS
    records, imgid = [], 0
    for split, count in splits.items():
        names = [f'{split}_{k:06d}.png' for k in range(count)]
        changes = [k % 2 == 0 for k in range(count)]
        write_pairs(root, split, names, dirs, size, changes)
        for k, (name, change) in enumerate(zip(names, changes)):
            extra = dict(changeflag=int(change)) if changeflag else None
            records.append(karpathy_record(name, split, imgid,
                                           captions_of(k, change,
                                                       no_change),
                                           keys, extra))
            imgid += 1
    write_json(osp.join(root, ann_file), dict(images=records,
                                              dataset='tiny'))
    return records


def make_levir_cc_tree(root: str, splits: Optional[Dict[str, int]] = None,
                       size: Tuple[int, int] = (32, 32),
                       changeflag: bool = False,
                       ann_file: str = 'LevirCCcaptions.json') -> List[dict]:
    """LEVIR-CC: ``LevirCCcaptions.json`` and ``images/{split}/{A,B}``;
    ``changeflag=True`` adds PromptCC's ``changeflag`` to the records."""
    dirs = dict(before='images/{split}/A', after='images/{split}/B')
    return make_karpathy_tree(root, ann_file, dirs, splits, size,
                              changeflag=changeflag)


def make_levir_mci_tree(root: str, splits: Optional[Dict[str, int]] = None,
                        size: Tuple[int, int] = (32, 32)) -> List[dict]:
    """LEVIR-MCI: LEVIR-CC plus ``images/{split}/label`` masks."""
    dirs = dict(before='images/{split}/A', after='images/{split}/B',
                mask='images/{split}/label')
    return make_karpathy_tree(root, 'LevirCCcaptions.json', dirs, splits,
                              size)


def make_whu_cdc_tree(root: str, splits: Optional[Dict[str, int]] = None,
                      size: Tuple[int, int] = (32, 32)) -> List[dict]:
    """WHU-CDC: ``whuCCcaptions.json`` whose records name their split in
    ``filepath`` only, ``images/{split}/{A,B,label}``."""
    dirs = dict(before='images/{split}/A', after='images/{split}/B',
                mask='images/{split}/label')
    return make_karpathy_tree(root, 'whuCCcaptions.json', dirs, splits,
                              size, keys=('filepath', ))


def make_second_cc_tree(root: str, splits: Optional[Dict[str, int]] = None,
                        size: Tuple[int, int] = (32, 32)) -> List[dict]:
    """SECOND-CC: ``SECOND-CC-AUG.json``, ``{split}/rgb/{A,B}`` and the
    semantic maps ``{split}/sem/{A,B}``."""
    dirs = dict(before='{split}/rgb/A', after='{split}/rgb/B',
                sem1='{split}/sem/A', sem2='{split}/sem/B')
    return make_karpathy_tree(root, 'SECOND-CC-AUG.json', dirs, splits, size,
                              keys=('split', ),
                              no_change=NO_CHANGE_SENTENCES['second_cc'])


DUBAI_FILES = dict(train='Train_Dubai_CC.json',
                   val='Validation_Dubai_CC.json',
                   test='Test_Dubai_CC.json')


def dubai_record(filename: str, split: str, image_id: int, sentence_id: int,
                 captions: List[str]) -> dict:
    """A record as Dubai-CC's files write it (``image_id`` and
    ``sentence_id`` count from 0 in each split's file)."""
    return dict(filename=filename,
                sentences=[dict(image_id=image_id, sentence_id=sentence_id + i,
                                raw=c, tokens=c.split())
                           for i, c in enumerate(captions)],
                split=split, image_id=image_id,
                sentids=list(range(sentence_id, sentence_id + len(captions))))


def make_dubai_cc_tree(root: str, splits: Optional[Dict[str, int]] = None,
                       size: Tuple[int, int] = (50, 50)) -> Dict[str, list]:
    """Dubai-CC as distributed: ``description_jsontr_te_val/`` holds
    ``Train_Dubai_CC.json``, ``Validation_Dubai_CC.json`` and
    ``Test_Dubai_CC.json``, 50x50 ``<row>x<col>.tif`` images are in
    ``RGB/500_2000`` and ``RGB/500_2010``; no-change pairs have Dubai-CC's
    own sentences (cased, ending in "."). Returns the records of each
    split."""
    splits = splits or SPLITS
    dirs = dict(before='RGB/500_2000', after='RGB/500_2010')
    out, row = {}, 0
    for split, count in splits.items():
        # one flat image folder: the names of the splits must not collide
        names = [f'{row + k}x{k % 3}.tif' for k in range(count)]
        changes = [k % 2 == 0 for k in range(count)]
        write_pairs(root, split, names, dirs, size, changes)
        out[split] = [
            dubai_record(n, split, k, 5 * k,
                         [c[0].upper() + c[1:].rstrip(' .') + '.'
                          for c in captions_of(k, True)] if change
                         else list(DUBAI_NO_CHANGE))
            for k, (n, change) in enumerate(zip(names, changes))]
        row += count
        write_json(osp.join(root, 'description_jsontr_te_val',
                            DUBAI_FILES[split]),
                   dict(dataset='DUBAI CC', images=out[split]))
    return out


def make_excerpt_tree(root: str, excerpt: Dict[str, dict],
                      image_dirs: Dict[str, Tuple[str, ...]],
                      size: Tuple[int, int] = (8, 8)) -> None:
    """Write an excerpt of real caption files (file name -> content, as
    ``tests/data/*_excerpt.json`` hold them) under ``root`` with a
    placeholder image of every record (``image_dirs``: file name -> the
    folders, ``{split}`` replaced by the record's ``split`` or
    ``filepath``)."""
    blank = Image.new('RGB', size)
    for name, content in excerpt.items():
        write_json(osp.join(root, name), content)
        for record in content['images']:
            split = record.get('split', record.get('filepath'))
            for folder in image_dirs[name]:
                folder = osp.join(root, folder.format(split=split))
                os.makedirs(folder, exist_ok=True)
                blank.save(osp.join(folder, record['filename']))


def main(argv=None):
    parser = argparse.ArgumentParser(
        description='Write a tiny LEVIR-CC-layout tree (generated images).')
    parser.add_argument('root', help='folder to write')
    parser.add_argument('--train', type=int, default=16)
    parser.add_argument('--val', type=int, default=8)
    parser.add_argument('--test', type=int, default=8)
    parser.add_argument('--size', type=int, default=64,
                        help='image side in pixels (LEVIR-CC: 256)')
    args = parser.parse_args(argv)
    make_levir_cc_tree(args.root, dict(train=args.train, val=args.val,
                                       test=args.test),
                       size=(args.size, args.size))
    print(f'wrote a LEVIR-CC tree to {args.root}')


if __name__ == '__main__':
    main()
