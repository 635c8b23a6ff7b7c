"""Generate a synthetic CLEVR-Change-style data set in the real layout.

Per scene index ``i``: the before, semantic-change and distractor images
(:data:`IMAGE_DIRS`) and ``scenes/CLEVR_default_NNNNNN.json`` (the scene
graphs); then the caption, split and type-mapping files as CLEVR-Change
distributes them and the training split's caption vocabulary
(docs/synthetic_data.md, "Output", lists the files). Every scene is seeded
from ``(seed, i)``, so the output does not depend on ``workers``.
"""
import json
import multiprocessing
import os
import os.path as osp
from functools import partial
from typing import Optional, Sequence, Tuple

import numpy as np
from mmengine.logging import print_log
from PIL import Image
from tqdm import tqdm

from mmidc.text.vocab_file import vocab_file_name, write_vocab_file
from .caption_checker import MIN_VISIBLE_PIXELS
from .captions import change_captions, no_change_captions
from .properties import CHANGE_TYPES
from .renderer import render, visible_pixel_counts
from .scene import (DEFAULT_SETTINGS, SceneSettings, jitter_view,
                    sample_change, sample_objects, sample_view)

IMAGE_DIRS = {'default': ('images', 'CLEVR_default'),
              'semantic': ('sc_images', 'CLEVR_semantic'),
              'nonsemantic': ('nsc_images', 'CLEVR_nonsemantic')}
PNG_COMPRESS_LEVEL = 1
PNG_ZLIB_STRATEGY = 3  # Z_RLE: faster and smaller than the default here
MAX_ATTEMPTS = 200
PRECHECK_SCALE = 4  # visibility is pre-checked at 1/4 resolution


#: Named data sets (``tools/generate_synthetic_clevr_change.py --preset``):
#: the arguments of :func:`generate_dataset` each sets. ``shifted`` is an
#: evaluation-only set (val and test splits) with another seed and settings
#: than the standard set's (docs/synthetic_data.md compares the two).
PRESETS = {
    'shifted': dict(
        num_scenes=600, seed=1, image_size=(360, 240),
        split_fractions=(0.0, 0.5, 0.5),
        settings=SceneSettings(min_objects=6, max_objects=10,
                               camera_jitter=2.0, light_jitter=2.0,
                               view_jitter=1.5)),
}


def image_path(kind: str, index: int) -> str:
    """Relative path of scene ``index``'s ``kind`` image."""
    folder, prefix = IMAGE_DIRS[kind]
    return f'{folder}/{prefix}_{index:06d}.png'


def _num_objects(rng, change_type: str, settings: SceneSettings) -> int:
    """Objects before the change, so that every image has ``min_objects``
    to ``max_objects``."""
    low = settings.min_objects + (change_type == 'drop')
    high = settings.max_objects - (change_type == 'add')
    return int(rng.integers(low, high + 1))


def _all_visible(objects, camera, width, height, scale=1) -> bool:
    least = MIN_VISIBLE_PIXELS * width * height / (480 * 320)
    counts = visible_pixel_counts(objects, camera, width // scale,
                                  height // scale)
    # a little margin at low resolution, where counts are coarse
    margin = 1.2 if scale > 1 else 1.0
    return all(c * scale * scale >= margin * least for c in counts.values())


def _sample_scene(rng, width, height, settings):
    """Objects, change and the three views; all objects visible in each."""
    change_type = CHANGE_TYPES[rng.integers(len(CHANGE_TYPES))]
    for _ in range(MAX_ATTEMPTS):
        base_camera, base_lights = sample_view(rng, settings)
        views = {kind: jitter_view(base_camera, base_lights, rng,
                                   settings.view_jitter)
                 for kind in IMAGE_DIRS}
        directions = views['default'][0].ground_directions()
        before = sample_objects(rng, _num_objects(rng, change_type, settings),
                                directions)
        if before is None:
            continue
        changed = sample_change(rng, before, change_type, directions)
        if changed is None:
            continue
        after, change = changed
        objects = {'default': before, 'semantic': after,
                   'nonsemantic': before}
        if all(_all_visible(objects[k], views[k][0], width, height,
                            PRECHECK_SCALE) for k in IMAGE_DIRS):
            return objects, views, change, directions
    raise RuntimeError(f'no valid scene in {MAX_ATTEMPTS} attempts')


def generate_scene(index: int, seed: int, width: int, height: int,
                   out_dir: str = None,
                   settings: SceneSettings = DEFAULT_SETTINGS):
    """Render scene ``index``; write its files if ``out_dir`` is given.

    Returns:
        tuple: ``(scene_graph, change_captions, no_change_captions,
        images)`` with ``images`` a dict kind -> RGBA array.
    """
    rng = np.random.default_rng([seed, index])
    while True:
        objects, views, change, directions = _sample_scene(
            rng, width, height, settings)
        images, records = {}, {}
        for kind, (camera, lights) in views.items():
            result = render(objects[kind], camera, lights, width, height)
            images[kind] = result.image
            records[kind] = {
                'filename': image_path(kind, index),
                'image_size': [width, height],
                'camera': camera.to_dict(), 'lights': lights.to_dict(),
                'objects': [dict(o.to_dict(),
                                 visible_pixels=result.visible_pixels[o.id])
                            for o in objects[kind]]}
        least = MIN_VISIBLE_PIXELS * width * height / (480 * 320)
        if not all(o['visible_pixels'] >= least for r in records.values()
                   for o in r['objects']):
            continue  # the low-resolution pre-check was fooled: resample
        try:
            captions = change_captions(rng, objects['default'],
                                       objects['semantic'], change,
                                       directions)
            break
        except ValueError:  # an object that words cannot single out
            continue
    scene = {'index': index,
             'image_filename': f'CLEVR_default_{index:06d}.png',
             'change': change,
             'relation_directions': {k: [float(c) for c in v[:2]]
                                     for k, v in directions.items()},
             'images': records}
    distractor_captions = no_change_captions(rng)
    if out_dir is not None:
        for kind, image in images.items():
            Image.fromarray(image, 'RGBA').save(
                osp.join(out_dir, image_path(kind, index)),
                compress_level=PNG_COMPRESS_LEVEL,
                compress_type=PNG_ZLIB_STRATEGY)
        with open(osp.join(out_dir, 'scenes',
                           f'CLEVR_default_{index:06d}.json'), 'w') as f:
            f.write(json.dumps(scene))  # dumps: the C encoder, fast
    return scene, captions, distractor_captions, images


def _write_scene(index, seed, width, height, out_dir, settings):
    scene, captions, distractor_captions, _ = generate_scene(
        index, seed, width, height, out_dir, settings)
    return index, scene['change']['type'], captions, distractor_captions


def split_indices(num_scenes: int, seed: int,
                  fractions: Sequence[float]) -> dict:
    """Random train/val/test split of ``range(num_scenes)`` (sorted lists)."""
    order = np.random.default_rng([seed, 2**31]).permutation(num_scenes)
    n_train = int(round(fractions[0] * num_scenes))
    n_val = int(round(fractions[1] * num_scenes))
    parts = (order[:n_train], order[n_train:n_train + n_val],
             order[n_train + n_val:])
    return {name: sorted(int(i) for i in part)
            for name, part in zip(('train', 'val', 'test'), parts)}


def _validate(num_scenes, image_size, workers, split_fractions):
    if int(num_scenes) < 1:
        raise ValueError(f'num_scenes must be >= 1, got {num_scenes}')
    if (len(image_size) != 2 or min(image_size) < 32):
        raise ValueError(f'image_size must be (width, height) >= 32, got '
                         f'{image_size}')
    if int(workers) < 1:
        raise ValueError(f'workers must be >= 1, got {workers}')
    if (len(split_fractions) != 3 or min(split_fractions) < 0
            or abs(sum(split_fractions) - 1) > 1e-6):
        raise ValueError('split_fractions must be three non-negative numbers '
                         f'summing to 1 (train, val, test), got '
                         f'{split_fractions}')


def generate_dataset(out_dir: str,
                     num_scenes: int,
                     seed: int = 0,
                     image_size: Tuple[int, int] = (480, 320),
                     workers: int = 1,
                     split_fractions: Sequence[float] = (0.8, 0.1, 0.1),
                     overwrite: bool = False,
                     progress: bool = True,
                     settings: Optional[SceneSettings] = None) -> dict:
    """Generate a CLEVR-Change-style data set under ``out_dir``.

    Args:
        out_dir (str): Output root (created).
        num_scenes (int): Number of scenes; each gives one change pair and
            one no-change (distractor) pair.
        seed (int): Scene ``i`` is generated from ``(seed, i)``.
        image_size (tuple): ``(width, height)``; CLEVR-Change's is 480x320.
        workers (int): Processes; the output does not depend on it.
        split_fractions (Sequence[float]): train, val, test fractions.
        overwrite (bool): Allow writing into an existing data set.
        progress (bool): Show a progress bar over scenes.
        settings (SceneSettings, optional): Object counts and camera / light
            ranges. Defaults to the standard set's (:class:`SceneSettings`).

    Returns:
        dict: ``{'splits': ..., 'type_counts': ...}``.
    """
    _validate(num_scenes, image_size, workers, split_fractions)
    settings = DEFAULT_SETTINGS if settings is None else settings
    if not isinstance(settings, SceneSettings):
        raise TypeError(f'settings must be a SceneSettings, got '
                        f'{type(settings).__name__}')
    width, height = int(image_size[0]), int(image_size[1])
    if (osp.isfile(osp.join(out_dir, 'change_captions.json'))
            and not overwrite):
        raise FileExistsError(f'{out_dir} already holds a data set '
                              '(change_captions.json); pass overwrite=True')
    for folder in ['scenes'] + [f for f, _ in IMAGE_DIRS.values()]:
        os.makedirs(osp.join(out_dir, folder), exist_ok=True)

    job = partial(_write_scene, seed=seed, width=width, height=height,
                  out_dir=out_dir, settings=settings)
    results = {}
    bar = tqdm(total=num_scenes, desc='synthetic CLEVR-Change scenes',
               unit='scene', disable=not progress)
    if workers == 1:
        for index in range(num_scenes):
            results[index] = job(index)
            bar.update()
    else:
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context(
            'fork' if 'fork' in methods else None)
        with context.Pool(int(workers)) as pool:
            for result in pool.imap_unordered(job, range(num_scenes),
                                              chunksize=4):
                results[result[0]] = result
                bar.update()
            pool.close()  # workers end by themselves, not by SIGTERM
            pool.join()
    bar.close()

    names = {i: f'CLEVR_default_{i:06d}.png' for i in range(num_scenes)}
    type_mapping = {t: [] for t in CHANGE_TYPES}
    for i in range(num_scenes):
        type_mapping[results[i][1]].append(f'{i:06d}.png')
    splits = split_indices(num_scenes, seed, split_fractions)
    files = {
        'change_captions.json': {names[i]: results[i][2]
                                 for i in range(num_scenes)},
        'no_change_captions.json': {names[i]: results[i][3]
                                    for i in range(num_scenes)},
        'splits.json': splits,
        'type_mapping.json': type_mapping,
    }
    for name, content in files.items():
        with open(osp.join(out_dir, name), 'w') as f:
            f.write(json.dumps(content))
    if splits['train']:  # change and no-change captions, as CLEVRChangeDataset reads them
        write_vocab_file([c for i in splits['train'] for c in results[i][2] + results[i][3]],
                         osp.join(out_dir, vocab_file_name('train')),
                         source_name='synthetic CLEVR-Change (train)')
    type_counts = {t: len(v) for t, v in type_mapping.items()}
    print_log(f'synthetic CLEVR-Change: {num_scenes} scenes in {out_dir} '
              f'(splits {[len(v) for v in splits.values()]}, types '
              f'{type_counts})', logger='current')
    return {'splits': splits, 'type_counts': type_counts}


