"""Check the data sets of a config before training: what each split holds,
and whether every image decodes as training decodes it.

    python tools/analysis_tools/check_dataset.py CONFIG \\
        [--split train val test] [--workers N] [--no-decode] \\
        [--out FILE.json] [--cfg-options key=value ...]

For each split of the config's loaders (``train_dataloader``,
``val_dataloader``, ``test_dataloader``) it builds the data set as training
does (annotations only: the pipeline is dropped) and prints one table, a
column a split: pairs, sentences, references per pair (min / mean / max),
change / no-change / mixed pairs (a mixed pair's captions mix the data
set's no-change sentences, :mod:`mmidc.text.no_change`, and change
sentences), change types, the caption vocabulary (distinct lower-cased
words), the distinct image sizes, and the missing and unreadable images.
Every image is decoded in full (:func:`mmidc.datasets.image_io.read_rgb`,
after PIL's ``verify``) in ``--workers`` threads, with a progress bar;
``--no-decode`` reads the image headers only (sizes, no decoding; a PNG's
EXIF orientation only where it comes before the pixels).

The pair counts of a known set (CLEVR-Change, Spot-the-Diff,
Image-Editing-Request, LEVIR-CC, LEVIR-MCI, SECOND-CC, Dubai-CC) are
compared with the published ones (docs/datasets.md, "Published counts"): a
split that differs is reported with the difference; fewer pairs (a subset)
is not an error.

The exit status is 1 when an image is missing or does not decode, a split
fails to build (the reader's message is printed), or the config cannot be
read; 0 otherwise. ``--out`` writes the table as JSON.
"""
import argparse
import copy
import json
import os
import os.path as osp
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional, Sequence, Tuple

from mmengine.config import Config

SPLITS = ('train', 'val', 'test')

#: Pair counts per split as published; ``change``: the change pairs alone
#: (a reader's ``with_no_change=False``); ``total``: every split together,
#: where the per-split counts are not published. docs/datasets.md lists the
#: sources.
PUBLISHED = {
    'CLEVR-Change': dict(
        readers=('CLEVRChangeDataset', ),
        pairs=dict(train=67660, val=3976, test=7970),
        change=dict(train=33830, val=1988, test=3985),
        source='Park et al. 2019'),
    'Spot-the-Diff': dict(
        readers=('SpotTheDiffDataset', ),
        pairs=dict(train=8566, val=1493, test=1270),
        source='Jhamtani & Berg-Kirkpatrick 2018'),
    'Image-Editing-Request': dict(
        readers=('ImageEditingRequestDataset', ),
        pairs=dict(train=3061, val=383, test=495),
        source='Tan et al. 2019'),
    'LEVIR-CC': dict(
        readers=('LEVIRCCDataset', ),
        pairs=dict(train=6815, val=1333, test=1929),
        change=dict(test=1929 - 965),
        source='Liu et al. 2022'),
    'LEVIR-MCI': dict(
        readers=('LEVIRMCIDataset', ),
        pairs=dict(train=6815, val=1333, test=1929),
        change=dict(test=1929 - 965),
        source="Liu et al. 2024, LEVIR-CC's pairs"),
    'WHU-CDC': dict(
        readers=('WHUCDCDataset', ),
        pairs=dict(train=5947, val=743, test=744),
        change=dict(test=236),
        source="MaskApproxNet's split lists; HCFNet's README and files"),
    'Dubai-CC': dict(
        readers=('DubaiCCDataset', ),
        pairs=dict(train=300, val=50, test=150),
        source="the distributed caption files"),
    'SECOND-CC': dict(
        readers=('SECONDCCDataset', ),
        total=6041,
        source='Karaca et al. 2025'),
}

#: The name of each reader's sentences in mmidc.text.no_change (the first
#: one present is used).
NO_CHANGE_NAMES = {
    'CLEVRChangeDataset': ('clevr_change', ),
    'LEVIRCCDataset': ('levir_cc', ),
    'LEVIRMCIDataset': ('levir_mci', 'levir_cc'),
    'WHUCDCDataset': ('whu_cdc', ),
    'SECONDCCDataset': ('second_cc', ),
    'DubaiCCDataset': ('dubai_cc', ),
}

_IMAGE_ERRORS = ('image not found', 'image folder not found')


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        description='Check the data sets of a config: counts, captions, '
        'image sizes, missing and unreadable images, published counts')
    parser.add_argument('config', help='config whose loaders to check')
    parser.add_argument('--split', nargs='+', choices=SPLITS,
                        default=list(SPLITS),
                        help='the loaders to check (default: all three)')
    parser.add_argument('--workers', type=int,
                        default=min(8, os.cpu_count() or 1),
                        help='threads decoding the images (PIL decodes '
                        'without holding the GIL; 0: none; default: the '
                        'cores, at most 8)')
    parser.add_argument('--no-decode', action='store_true',
                        help='read the image headers only (sizes; no '
                        'decoding): the cheap checks')
    parser.add_argument('--out', help='also write the table as JSON here')
    from mmidc.runtime.cfg_options import CfgOptionsAction
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction,
                        help='override config settings, key=value')
    args = parser.parse_args(argv)
    if args.workers < 0:
        parser.error(f'--workers must be 0 or more, got {args.workers}')
    return args


# ----------------------------------------------------------------------
# Building the splits
# ----------------------------------------------------------------------
def _type_name(dataset_cfg: dict) -> str:
    kind = dataset_cfg.get('type', '?')
    name = kind if isinstance(kind, str) else getattr(kind, '__name__',
                                                       str(kind))
    return name.split('.')[-1]


def build_split(dataset_cfg: dict) -> Tuple[object, List[dict]]:
    """Build one leaf data set as training does (its pipeline dropped) and
    return ``(dataset, entries)``.

    A split whose images are missing is read again without the reader's
    image check (its annotations only), so that every missing image is
    listed; any other error is raised.
    """
    from mmidc.registry import DATASETS
    cfg = dict(copy.deepcopy(dataset_cfg), pipeline=[], lazy_init=True,
               serialize_data=False)  # data_list kept as it is
    if 'verify_images' in cfg:
        cfg['verify_images'] = False  # decoded below, in parallel
    dataset = DATASETS.build(cfg)
    try:
        dataset.full_init()
        return dataset, list(dataset.data_list)
    except FileNotFoundError as e:
        if not str(e).startswith(_IMAGE_ERRORS) or not hasattr(
                dataset, 'parse_annotations'):
            raise
        return dataset, dataset.parse_annotations()


# ----------------------------------------------------------------------
# Captions
# ----------------------------------------------------------------------
def no_change_set(dataset) -> Optional[frozenset]:
    """The normalised no-change sentences of a data set: those its reader
    flags pairs by (``no_change_sentences``, the remote-sensing readers'),
    else the set's own in :mod:`mmidc.text.no_change`; None when it has
    none (a reader whose no-change pairs are its own files', CLEVR-Change's,
    or a set without no-change pairs)."""
    from mmidc.text import no_change
    own = getattr(dataset, 'no_change_sentences', None)
    if own:
        return no_change.no_change_set(own)
    for name in NO_CHANGE_NAMES.get(type(dataset).__name__, ()):
        if name in no_change.NO_CHANGE_SENTENCES:
            return no_change.no_change_set(name)
    return None


def pair_kind(entry: dict, sentences: Optional[frozenset]) -> str:
    """``'change'``, ``'no_change'`` or ``'mixed'``: mixed when its captions
    mix ``sentences`` (normalised no-change sentences) and others (a reader
    reads such a pair as a change pair); otherwise the reader's flag
    (``change_flag``, ``change_type`` ``'none'``), else the captions (all
    no-change sentences: no change)."""
    from mmidc.text.no_change import normalize_sentence
    if sentences:
        votes = {normalize_sentence(c) in sentences
                 for c in entry['gt_captions']}
        if votes == {True, False}:
            return 'mixed'
    flag = entry.get('change_flag')
    if flag is not None:
        return 'change' if flag else 'no_change'
    if entry.get('change_type') == 'none':
        return 'no_change'
    if sentences and votes == {True}:
        return 'no_change'
    return 'change'


def caption_stats(entries: Sequence[dict],
                  sentences: Optional[frozenset]) -> dict:
    """Counts of a split's entries and captions."""
    from mmidc.text.caption_words import word_spans
    refs = [len(e['gt_captions']) for e in entries]
    kinds = Counter(pair_kind(e, sentences) for e in entries)
    words = {w for e in entries for c in e['gt_captions']
             for _, _, w in word_spans(c)}
    return dict(
        pairs=len(entries),
        sentences=sum(refs),
        refs_min=min(refs) if refs else 0,
        refs_mean=round(sum(refs) / len(refs), 2) if refs else 0.0,
        refs_max=max(refs) if refs else 0,
        change=kinds['change'],
        no_change=kinds['no_change'],
        mixed=kinds['mixed'] if sentences else None,
        change_types=dict(sorted(Counter(
            e['change_type'] for e in entries).items())),
        vocabulary=len(words))


# ----------------------------------------------------------------------
# Images
# ----------------------------------------------------------------------
def missing_images(paths: Sequence[str]) -> List[str]:
    """The paths whose folder does not list them (each folder listed once:
    fast on large sets and network file systems)."""
    by_dir: Dict[str, set] = {}
    for path in paths:
        folder, name = osp.split(path)
        by_dir.setdefault(folder, set()).add(name)
    missing = []
    for folder, names in by_dir.items():
        try:
            present = set(os.listdir(folder or '.'))
        except (FileNotFoundError, NotADirectoryError):
            present = set()
        missing += [osp.join(folder, n) for n in names - present]
    return sorted(missing)


def header_orientation(img) -> int:
    """The EXIF orientation of an opened image from its header: a PNG's
    from an ``eXIf`` chunk before its pixels only (PIL's ``getexif`` would
    decode the pixels to find one after them)."""
    if img.format == 'PNG':
        if 'exif' not in img.info:
            return 1
        from PIL import Image
        exif = Image.Exif()
        exif.load(img.info['exif'])
    else:
        exif = img.getexif()
    return exif.get(0x0112, 1)


def inspect_image(task: Tuple[str, bool]) -> Tuple[str, Optional[str],
                                                   Optional[str]]:
    """``(path, 'WxH' or None, problem or None)`` of one image: PIL's
    ``verify`` and a full decode as training decodes it (``read_rgb``), or
    its header only when ``decode`` is False."""
    path, decode = task
    from PIL import Image

    from mmidc.datasets.image_io import read_rgb
    try:
        with Image.open(path) as img:
            size = img.size
            if not decode:
                orientation = header_orientation(img)
                if orientation in (5, 6, 7, 8):
                    size = size[::-1]
                return path, f'{size[0]}x{size[1]}', None
            img.verify()
        height, width = read_rgb(path).shape[:2]
    except Exception as e:  # PIL raises many types for bad files
        cause = e.__cause__ if isinstance(e.__cause__, Exception) else e
        return path, None, f'does not decode ({type(cause).__name__}: ' \
            f'{cause})'
    return path, f'{width}x{height}', None


def inspect_images(paths: Sequence[str], workers: int, decode: bool
                   ) -> Dict[str, Tuple[Optional[str], Optional[str]]]:
    """``{path: (size, problem)}`` of every image, decoded in ``workers``
    threads (0: in the calling one), with a progress bar on stderr."""
    from mmengine.utils import ProgressBar
    results = {}
    if not paths:
        return results
    tasks = [(p, decode) for p in paths]
    bar = ProgressBar(len(tasks), file=sys.stderr)
    if workers == 0:
        done = map(inspect_image, tasks)
    else:  # threads: PIL decodes without holding the GIL
        pool = ThreadPoolExecutor(workers)
        done = pool.map(inspect_image, tasks)
    for path, size, problem in done:
        results[path] = (size, problem)
        bar.update()
    if workers:
        pool.shutdown()
    bar.file.write('\n')
    return results


def image_paths(entries: Sequence[dict]) -> List[str]:
    return list(dict.fromkeys(e[k] for e in entries
                              for k in ('img1_path', 'img2_path')))


# ----------------------------------------------------------------------
# Published counts
# ----------------------------------------------------------------------
def known_set(readers: Sequence[str]) -> Optional[str]:
    for name, known in PUBLISHED.items():
        if readers and all(r in known['readers'] for r in readers):
            return name
    return None


def compare_split(name: str, split: str, pairs: int, change_only: bool
                  ) -> Optional[dict]:
    """The published count of a split and how this one differs (None when
    none is published for it)."""
    known = PUBLISHED[name]
    table = known.get('change' if change_only else 'pairs') or {}
    if split not in table:
        return None
    published = table[split]
    what = 'change pairs' if change_only else 'pairs'
    diff = pairs - published
    if diff == 0:
        line = (f'{split}: {pairs:,} {what}, as published for {name} '
                f'[{known["source"]}]')
    else:
        note = ('fewer: a subset is fine' if diff < 0 else
                'more than the published set')
        line = (f'{split}: {pairs:,} {what}; the published {name} {split} '
                f'split has {published:,} ({diff:+,}, {note}) '
                f'[{known["source"]}]')
    return dict(set=name, published=published, difference=diff, line=line)


def compare_total(name: str, splits: Dict[str, dict]) -> Optional[dict]:
    """The published total of a set whose splits are not published, when
    every split was checked."""
    total = PUBLISHED[name].get('total')
    if total is None or set(splits) != set(SPLITS) or any(
            not s.get('built') for s in splits.values()):
        return None
    pairs = sum(s['pairs'] for s in splits.values())
    diff = pairs - total
    source = PUBLISHED[name]['source']
    if diff == 0:
        line = f'all splits: {pairs:,} pairs, as published for {name} [{source}]'
    else:
        line = (f'all splits: {pairs:,} pairs; the published {name} has '
                f'{total:,} ({diff:+,}) [{source}]')
    return dict(set=name, published=total, difference=diff, line=line)


# ----------------------------------------------------------------------
# The table
# ----------------------------------------------------------------------
def _counts(counter: dict) -> str:
    return ', '.join(f'{k}: {v:,}' for k, v in counter.items()) or '-'


def _cell(stats: dict, key: str) -> str:
    if not stats.get('built'):
        if key != 'pairs':
            return ''
        return ('no loader' if stats.get('error') == 'the config has no '
                'loader' else 'not built')
    value = stats.get(key)
    if key == 'refs':
        return (f'{stats["refs_min"]} / {stats["refs_mean"]:.2f} / '
                f'{stats["refs_max"]}')
    if key in ('change_types', 'image_sizes'):
        return _counts(value) if value is not None else 'not read'
    if key in ('missing_images', 'unreadable_images'):
        return f'{len(value):,}' if value is not None else 'not checked'
    if value is None:
        return '-'
    return f'{value:,}' if isinstance(value, int) else str(value)


ROWS = (('reader', 'reader'), ('pairs', 'pairs'),
        ('sentences', 'sentences'), ('refs', 'references / pair (min / mean / max)'),
        ('change', 'change pairs'), ('no_change', 'no-change pairs'),
        ('mixed', 'mixed pairs'), ('change_types', 'change types'),
        ('vocabulary', 'caption vocabulary (words)'),
        ('images', 'images'), ('image_sizes', 'image sizes (W x H)'),
        ('missing_images', 'missing images'),
        ('unreadable_images', 'unreadable images'))


def format_table(splits: Dict[str, dict]) -> str:
    """One row a quantity, one column a split."""
    names = list(splits)
    rows = [[''] + names] + [[label] + [_cell(splits[s], key) for s in names]
                             for key, label in ROWS]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ['  '.join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
             for r in rows]
    lines.insert(1, '  '.join('-' * w for w in widths))
    return '\n'.join(lines)


def check(cfg, splits: Sequence[str], workers: int, decode: bool
          ) -> dict:
    """Check the loaders of ``cfg`` (data roots applied); the report."""
    report = dict(splits={}, comparisons=[], errors=[])
    entries_of, sentences_of = {}, {}
    for split in splits:
        loader = cfg.get(f'{split}_dataloader')
        if not isinstance(loader, dict) or not isinstance(
                loader.get('dataset'), dict):
            report['splits'][split] = dict(built=False,
                                           error='the config has no loader')
            continue
        from mmidc.datasets.preparation.vocab_sources import leaf_datasets
        leaves = [leaf for _, leaf in leaf_datasets(loader['dataset'])]
        readers = [_type_name(leaf) for leaf in leaves]
        stats = dict(reader=' + '.join(readers), built=False,
                     readers=readers)
        report['splits'][split] = stats
        entries, sentences, change_only = [], None, False
        try:
            for leaf in leaves:
                dataset, leaf_entries = build_split(leaf)
                entries += leaf_entries
                sentences = sentences or no_change_set(dataset)
                change_only |= getattr(dataset, 'with_no_change', True) \
                    is False
        except Exception as e:  # a reader's error: its message, no traceback
            stats['error'] = f'{type(e).__name__}: {e}'
            report['errors'].append(f'{split}: the data set does not build: '
                                    f'{type(e).__name__}: {e}')
            continue
        stats.update(built=True, change_only=change_only)
        stats.update(caption_stats(entries, sentences))
        entries_of[split] = entries
        sentences_of[split] = sentences
    # every image once, over the splits
    all_paths = list(dict.fromkeys(
        p for entries in entries_of.values() for p in image_paths(entries)))
    missing = set(missing_images(all_paths))
    start = time.perf_counter()
    inspected = inspect_images([p for p in all_paths if p not in missing],
                               workers, decode)
    report['images_read'] = dict(
        images=len(inspected), decoded=decode, workers=workers,
        seconds=round(time.perf_counter() - start, 3))
    for split, entries in entries_of.items():
        stats = report['splits'][split]
        paths = image_paths(entries)
        stats['images'] = len(paths)
        stats['image_sizes'] = dict(Counter(
            inspected[p][0] for p in paths
            if p in inspected and inspected[p][0]).most_common())
        stats['missing_images'] = sorted(p for p in paths if p in missing)
        stats['unreadable_images'] = {
            p: inspected[p][1] for p in paths
            if p in inspected and inspected[p][1]}
        if not decode:
            stats['unreadable_images'] = None  # headers only
            stats['header_errors'] = {
                p: inspected[p][1] for p in paths
                if p in inspected and inspected[p][1]}
        for path in stats['missing_images']:
            report['errors'].append(f'{split}: image not found: {path}')
        for path, problem in (stats['unreadable_images']
                              or stats.get('header_errors') or {}).items():
            report['errors'].append(f'{split}: unreadable image: {path} '
                                    f'({problem})')
    # published counts
    by_set: Dict[str, Dict[str, dict]] = {}
    for split, stats in report['splits'].items():
        name = known_set(stats.get('readers', []))
        if name is None or not stats.get('built'):
            continue
        by_set.setdefault(name, {})[split] = stats
        found = compare_split(name, split, stats['pairs'],
                              stats['change_only'])
        if found:
            stats['published'] = found
            report['comparisons'].append(found['line'])
    for name, checked in by_set.items():
        found = compare_total(name, checked)
        if found:
            report['total_published'] = found
            report['comparisons'].append(found['line'])
    report['ok'] = not report['errors']
    return report


#: Files of one kind named per split when printed (--out lists them all).
SHOWN = 5


def _named(split: str, kind: str, items: List[str]) -> List[str]:
    """Error lines naming the first :data:`SHOWN` files of a kind."""
    lines = [f'ERROR {split}: {kind}: {item}' for item in items[:SHOWN]]
    if len(items) > SHOWN:
        lines.append(f'ERROR {split}: ... {len(items) - SHOWN:,} more '
                     f'({kind}; --out FILE.json lists them all)')
    return lines


def error_lines(split: str, stats: dict) -> List[str]:
    """What is wrong with a split: its build error, its missing images
    (a missing folder once) and its unreadable ones."""
    if stats.get('error') == 'the config has no loader':
        return []
    if not stats.get('built'):
        return [f'ERROR {split}: the data set does not build: '
                f'{stats["error"]}']
    lines, missing, folders = [], [], {}
    for path in stats['missing_images']:
        folder = osp.dirname(path)
        if osp.isdir(folder):
            missing.append(path)
        else:
            folders[folder] = folders.get(folder, 0) + 1
    lines += [f'ERROR {split}: image folder not found: {folder} ({n:,} '
              'images named there)' for folder, n in folders.items()]
    lines += _named(split, 'image not found', missing)
    bad = stats['unreadable_images'] or stats.get('header_errors') or {}
    lines += _named(split, 'unreadable image',
                    [f'{path} ({problem})' for path, problem in bad.items()])
    return lines


def print_report(report: dict) -> None:
    """The table, the images' read rate, the published counts and the
    errors; then ``OK`` or ``FAILED``."""
    print(format_table(report['splits']))
    lines = []
    read = report.get('images_read')
    if read and read['images']:
        rate = read['images'] / max(read['seconds'], 1e-6)
        verb = 'decoded' if read['decoded'] else 'read the headers of'
        lines.append(f'{verb} {read["images"]:,} images in '
                     f'{read["seconds"]:.1f} s ({rate:,.0f} images/s, '
                     f'{read["workers"]} threads)')
    lines += [f'published: {line}' for line in report['comparisons']]
    for split, stats in report['splits'].items():
        if stats.get('error') == 'the config has no loader':
            lines.append(f'{split}: the config has no {split}_dataloader')
        lines += error_lines(split, stats)
    if lines:
        print('\n'.join(lines))
    print('OK' if report['ok'] else
          f'FAILED: {len(report["errors"]):,} errors')


def main(argv=None) -> int:
    args = parse_args(argv)
    from mmidc.cli import working_dir_on_path
    working_dir_on_path()  # a project's config (projects.<name>)
    import mmidc  # noqa: F401  (registers the data sets)
    from mmidc.runtime.data_root import apply_data_root
    try:
        cfg = Config.fromfile(args.config)
        if args.cfg_options:
            cfg.merge_from_dict(args.cfg_options)
        apply_data_root(cfg, args.config)
    except Exception as e:  # the config's own error, without a traceback
        print(f'ERROR {args.config}: {type(e).__name__}: {e}')
        return 1
    report = check(cfg, args.split, args.workers, not args.no_decode)
    report['config'] = args.config
    report['decoded'] = not args.no_decode
    print_report(report)
    if args.out:
        os.makedirs(osp.dirname(osp.abspath(args.out)), exist_ok=True)
        with open(args.out, 'w') as f:
            json.dump(report, f, indent=1)
        print(f'wrote {args.out}')
    return 0 if report['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
