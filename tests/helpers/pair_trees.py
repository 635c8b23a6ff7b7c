"""Write tiny data set trees in the exact layouts the loaders read.

Used by the tests (small images) and to measure the loader (480x320).
"""
import io
import json
import os
import os.path as osp
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
from PIL import Image, ImageDraw

CLEVR_SPLITS = {'train': [0, 1, 2, 3], 'val': [4, 5], 'test': [6, 7]}
CLEVR_TYPES = ('color', 'material', 'add', 'drop', 'move')


def scene_image(size: Tuple[int, int], seed: int, noise: bool = False,
                mode: str = 'RGBA') -> Image.Image:
    """A floor gradient with a few coloured shapes, ``size = (W, H)``."""
    rng = np.random.default_rng(seed)
    width, height = size
    rows = np.linspace(90, 170, height, dtype=np.float32)[:, None, None]
    pixels = np.broadcast_to(rows, (height, width, 3)).copy()
    if noise:  # path-traced renders are noisy: PNGs compress like real ones
        pixels += rng.normal(0, 4, pixels.shape)
    img = Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    for _ in range(rng.integers(3, 7)):
        x, y = rng.integers(0, width), rng.integers(0, height)
        r = max(2, int(rng.integers(width // 20, width // 8 + 1)))
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    return img.convert(mode)


def make_clevr_change_tree(root: str,
                           splits: Dict[str, List[int]] = None,
                           size: Tuple[int, int] = (48, 32),
                           noise: bool = False) -> Dict[str, List[int]]:
    """CLEVR-Change as distributed: RGBA PNGs and the five JSON files."""
    splits = splits or CLEVR_SPLITS
    for folder in ('images', 'sc_images', 'nsc_images'):
        os.makedirs(osp.join(root, folder), exist_ok=True)
    change, no_change = {}, {}
    type_mapping = {t: [] for t in CLEVR_TYPES}
    for scene in sorted(s for indices in splits.values() for s in indices):
        name = f'{scene:06d}'
        for k, (folder, prefix) in enumerate(
            (('images', 'default'), ('sc_images', 'semantic'),
             ('nsc_images', 'nonsemantic'))):
            scene_image(size, scene * 3 + k, noise).save(
                osp.join(root, folder, f'CLEVR_{prefix}_{name}.png'))
        key = f'CLEVR_default_{name}.png'
        change_type = CLEVR_TYPES[scene % len(CLEVR_TYPES)]
        change[key] = [f'the {change_type} change {scene}',
                       f'something {change_type} happened to {scene}']
        no_change[key] = ['no change was made', 'there is no change']
        type_mapping[change_type].append(f'{name}.png')
    for name, content in (('change_captions.json', change),
                          ('no_change_captions.json', no_change),
                          ('splits.json', splits),
                          ('type_mapping.json', type_mapping)):
        write_json(osp.join(root, name), content)
    return splits


def make_spot_the_diff_tree(root: str,
                            size: Tuple[int, int] = (40, 30),
                            records: Optional[dict] = None) -> dict:
    """Spot-the-Diff: annotations/{split}.json and resized_images/.

    ``records``: ``{split: [record, ...]}`` to write instead of the default
    ones (e.g. the real excerpts of ``tests/data/spot_the_diff``)."""
    os.makedirs(osp.join(root, 'resized_images'), exist_ok=True)
    records = records or {
        'train': [
            dict(img_id='5406', sentences=['a car left', '', 'a man came']),
            dict(img_id='17', sentences=['the bike is gone']),
            dict(img_id='99', sentences=['', ' ']),  # nothing left: dropped
        ],
        'val': [dict(img_id='21', sentences=['a van arrived'])],
        'test': [dict(img_id='8', sentences=['no one', 'a truck moved'])],
    }
    for split, recs in records.items():
        write_json(osp.join(root, 'annotations', f'{split}.json'), recs)
        for k, rec in enumerate(recs):
            for suffix in ('', '_2'):
                scene_image(size, k, mode='RGB').save(
                    osp.join(root, 'resized_images',
                             f'{rec["img_id"]}{suffix}.png'))
    return records


def make_ier_tree(root: str, image_dir: str = 'images') -> dict:
    """Image-Editing-Request: mixed .jpg/.png of different sizes and modes."""
    os.makedirs(osp.join(root, image_dir), exist_ok=True)
    images = {
        'a.jpg': ((64, 48), 'RGB'), 'a_edit.png': ((50, 40), 'RGBA'),
        'b.png': ((30, 30), 'P'), 'b_edit.jpg': ((45, 60), 'L'),
        'c.png': ((40, 32), 'LA'), 'c_edit.png': ((40, 32), 'RGB'),
    }
    for k, (name, (size, mode)) in enumerate(sorted(images.items())):
        img = scene_image(size, k, mode='RGB').convert(mode)
        img.save(osp.join(root, image_dir, name))
    records = {
        'train': [
            dict(img0='a.jpg', img1='a_edit.png',
                 sents=['Brighten the photo.', ''], uid='Reddit_1012'),
            dict(img0='b.png', img1='b_edit.jpg',
                 sents=['make it black and white'], uid='Reddit_7'),
        ],
        'valid': [dict(img0='c.png', img1='c_edit.png', sents=['crop it'],
                       uid='Reddit_3')],
        'test': [dict(img0='a.jpg', img1='c_edit.png',
                      sents=['remove the dog', 'delete the dog'],
                      uid='Reddit_4')],
    }
    for split, recs in records.items():
        write_json(osp.join(root, f'{split}.json'), recs)
    return records


def make_generic_tree(root: str, ann_name: str = 'pairs.json',
                      image_dir: str = 'imgs') -> List[dict]:
    """The "bring your own pairs" format, as a JSON list or JSONL."""
    os.makedirs(osp.join(root, image_dir, 'before'), exist_ok=True)
    os.makedirs(osp.join(root, image_dir, 'after'), exist_ok=True)
    records = []
    for k in range(3):
        scene_image((36, 24), k).save(
            osp.join(root, image_dir, 'before', f'{k}.png'))
        scene_image((36, 24), 10 + k).save(
            osp.join(root, image_dir, 'after', f'{k}.png'))
        records.append(dict(img1=f'before/{k}.png', img2=f'after/{k}.png',
                            captions=[f'change number {k}']))
    records[1].update(pair_id='custom-1', change_type='move')
    write_records(osp.join(root, ann_name), records)
    return records


def make_my_pairs_tree(root: str, splits: Dict[str, int] = None,
                       size: Tuple[int, int] = (60, 40)) -> Dict[str, int]:
    """Your own pairs as docs/new_dataset.md describes them:
    ``{split}.jsonl`` with ``img1`` / ``img2`` / ``captions`` records, images
    under ``before/`` and ``after/``; ``splits`` maps split -> pair count."""
    splits = splits or {'train': 8, 'val': 4, 'test': 4}
    colours = ('red', 'blue', 'green', 'gray')
    for split, count in splits.items():
        records = []
        for k in range(count):
            name = f'{split}_{k:03d}.png'
            for folder, seed in (('before', 2 * k), ('after', 2 * k + 1)):
                os.makedirs(osp.join(root, folder), exist_ok=True)
                scene_image(size, seed, mode='RGB').save(
                    osp.join(root, folder, name))
            colour = colours[k % len(colours)]
            records.append(dict(
                img1=f'before/{name}', img2=f'after/{name}',
                captions=[f'the {colour} ball has moved',
                          f'a {colour} ball changed its place']))
        write_records(osp.join(root, f'{split}.jsonl'), records)
    return splits


def write_records(path: str, records: Sequence) -> None:
    """A JSON list, or JSONL when ``path`` ends with ``.jsonl``."""
    if path.endswith('.jsonl'):
        with open(path, 'w') as f:
            f.write('\n'.join(json.dumps(r) for r in records) + '\n')
    else:
        write_json(path, records)


def write_json(path: str, content) -> None:
    os.makedirs(osp.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(content, f)


def read_json(path: str):
    with open(path) as f:
        return json.load(f)


BIRDS_TO_WORDS_HEADER = (
    'img1ObservationURL', 'img1ImgURL', 'img1Species', 'img1Selection',
    'img2ObservationURL', 'img2ImgURL', 'img2Species', 'img2Selection',
    'split', 'annN', 'description')
BIRD_PARTS = ('beak', 'tail', 'wings', 'belly', 'head', 'breast', 'crown',
              'neck', 'legs', 'back')
BIRD_COLOURS = ('brown', 'white', 'black', 'gray', 'yellow', 'red',
                'orange', 'blue', 'olive', 'tan')
BIRD_COMPARATIVES = ('longer', 'shorter', 'larger', 'smaller', 'thicker',
                     'thinner', 'darker', 'lighter', 'brighter', 'duller')


def bird_style_description(rng, facts) -> str:
    """A paragraph comparing animal1 and animal2 from a pair's facts."""
    templates = (
        '{a} has a {cmp} {part} than {b}.',
        'the {part} of {a} is {cmp} than that of {b}.',
        '{a} has a {col} {part} while {b} has a {col2} {part}.',
        '{a} is mostly {col} and {b} is mostly {col2}.',
        '{b} has a {col2} {part} and {a} has a {col} one.',
    )
    picked = rng.choice(len(facts), size=min(len(facts), int(rng.integers(1, 4))),
                        replace=False)
    sentences = []
    for k in picked:
        fact = facts[k]
        sentences.append(templates[int(rng.integers(len(templates)))].format(**fact))
    return ' '.join(sentences)


def birds_to_words_url(photo: int, url_style: str = 'unique',
                       base_url: str = 'https://static.example.org') -> str:
    """A photo's image URL: ``<base_url>/photos/<photo>.jpg`` (``unique``),
    ``<base_url>/photos/<photo>/medium.jpg`` (``medium``) or, as the real
    TSV has them, ``<base_url>/photos/<photo>/medium.jpg?<n>``
    (``inaturalist``)."""
    if url_style == 'medium':
        return f'{base_url}/photos/{photo}/medium.jpg'
    if url_style == 'inaturalist':
        return f'{base_url}/photos/{photo}/medium.jpg?{1500000000 + photo}'
    assert url_style == 'unique', url_style
    return f'{base_url}/photos/{photo}.jpg'


def make_birds_to_words_tree(root: str, num_pairs: int = 6, seed: int = 0,
                             size: Tuple[int, int] = (40, 30),
                             url_style: str = 'unique',
                             base_url: str = 'https://static.example.org',
                             image_name: Optional[str] = None,
                             write_images: bool = True) -> List[list]:
    """Birds-to-Words as distributed: ``birds-to-words-v1.0.tsv`` (header
    and 11 tab-separated columns, up to five annotation rows per pair) and
    the photos under ``images/`` in the loader's naming (``image_name``:
    its default when None).

    Pairs are split train/val/test as 4:1:1 (in turn); pair 0 has an empty
    description among its rows. Photo ``1000 + 2k + i`` is image ``i`` of
    pair ``k``; :func:`birds_to_words_url` gives its URL (``url_style``,
    ``base_url``). ``write_images=False`` writes only the TSV (the images
    of a download test are served instead).
    """
    from mmidc.datasets.birds_to_words import (DEFAULT_IMAGE_NAME,
                                               image_file_name)
    image_name = image_name or DEFAULT_IMAGE_NAME
    rng = np.random.default_rng(seed)
    os.makedirs(osp.join(root, 'images'), exist_ok=True)
    rows = [list(BIRDS_TO_WORDS_HEADER)]
    splits = ('train', 'train', 'train', 'train', 'val', 'test')
    for k in range(num_pairs):
        urls = []
        for i in (1, 2):
            photo = 1000 + 2 * k + i
            url = birds_to_words_url(photo, url_style, base_url)
            if write_images:
                path = osp.join(root, 'images', image_file_name(url, image_name))
                os.makedirs(osp.dirname(path), exist_ok=True)
                bird_photo(photo, size).save(path)
            urls.append(url)
        facts = []
        for _ in range(3):
            col, col2 = rng.choice(BIRD_COLOURS, size=2, replace=False)
            facts.append(dict(a='animal1', b='animal2',
                              part=str(rng.choice(BIRD_PARTS)),
                              cmp=str(rng.choice(BIRD_COMPARATIVES)),
                              col=str(col), col2=str(col2)))
        for ann in range(1, int(rng.integers(2, 6)) + 1):
            description = bird_style_description(rng, facts)
            if k == 0 and ann == 2:
                description = ''
            rows.append([f'https://example.org/observations/{k}a', urls[0],
                         'Species A', 'random',
                         f'https://example.org/observations/{k}b', urls[1],
                         'Species B', 'random', splits[k % len(splits)],
                         str(ann), description])
    write_tsv(osp.join(root, 'birds-to-words-v1.0.tsv'), rows)
    return rows


def bird_photo(photo: int, size: Tuple[int, int] = (40, 30)) -> Image.Image:
    """The generated photo of number ``photo`` (RGB)."""
    return scene_image(size, photo, mode='RGB')


def jpeg_bytes(image: Image.Image) -> bytes:
    """An image encoded as JPEG."""
    buffer = io.BytesIO()
    image.save(buffer, format='JPEG')
    return buffer.getvalue()


def write_tsv(path: str, rows: Sequence[Sequence[str]]) -> None:
    os.makedirs(osp.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as f:
        f.write(''.join('\t'.join(r) + '\n' for r in rows))


def make_synthetic_change_pairs(root: str, num_scenes: int, seed: int
                                ) -> List[Tuple[str, str, List[str]]]:
    """A tiny set of the synthetic generator (48x32 px, with its scene
    graphs) under ``root``; returns ``(pair_id, change_type, references)``
    of each change pair, ``pair_id`` as ``'000003.png'`` (its distractor is
    ``'000003.png_n'``, type ``'none'``)."""
    from mmidc.synthetic import generate_dataset
    generate_dataset(root, num_scenes, seed=seed, image_size=(48, 32),
                     progress=False)
    captions = read_json(osp.join(root, 'change_captions.json'))
    types = {name: t for t, names in read_json(
        osp.join(root, 'type_mapping.json')).items() for name in names}
    pairs = []
    for image, refs in sorted(captions.items()):
        pair_id = image.split('_')[-1]  # 'CLEVR_default_000003.png'
        pairs.append((pair_id, types[pair_id], refs))
    return pairs


def synthetic_scene(root: str, index: int) -> dict:
    """The scene graph of scene ``index`` of a synthetic set under ``root``."""
    return read_json(osp.join(root, 'scenes', f'CLEVR_default_{index:06d}.json'))
