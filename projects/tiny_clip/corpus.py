"""A single-image image-text corpus for pretraining a tiny CLIP.

Images are renders of the synthetic CLEVR-Change scenes' world (same objects,
camera, lights and renderer), one to six objects each; their captions
describe them the way web captions describe photos: objects with some or all
of size, colour, material and shape, counts and spatial relations, in several
phrasings ("a photo of a big shiny red cube", "two spheres and a cube", "a
small cyan cylinder to the left of a large gray ball").

No image of the corpus is an image of a CLEVR-Change-style data set: image
``i`` of a corpus with seed ``s`` is drawn from the random stream
``(CORPUS_STREAM, s, i)`` and the data sets' scenes from ``(seed, i)``
(:func:`mmidc.synthetic.generate_scene`), different
streams for every seed. The zero-shot evaluation renders come from yet
another stream (``ZERO_SHOT_STREAM``).

The corpus is written as open_clip_train's CSV: a tab-separated file with the
columns ``filepath`` (absolute) and ``title``.
"""
import csv
import os
import os.path as osp
from typing import List, Sequence, Tuple

import numpy as np
from mmengine.logging import print_log
from PIL import Image

from mmidc.datasets.image_io import resize_rgb
from mmidc.synthetic.caption_checker import MIN_VISIBLE_PIXELS
from mmidc.synthetic.properties import (COLOR_WORDS, GENERIC_NOUNS,
                                        MATERIAL_WORDS, RELATION_PHRASES,
                                        SHAPE_WORDS, SIZE_WORDS)
from mmidc.synthetic.renderer import render
from mmidc.synthetic.scene import (DEFAULT_SETTINGS, SceneObject,
                                   sample_objects, sample_view)

__all__ = ['CORPUS_STREAM', 'ZERO_SHOT_STREAM', 'render_single_image',
           'corpus_caption', 'generate_clip_corpus', 'zero_shot_renders']

#: First word of the random stream of every corpus image.
CORPUS_STREAM = 0xC11C
#: First word of the random stream of the zero-shot evaluation renders.
ZERO_SHOT_STREAM = 0x2E50
#: Probabilities of 1, 2, ..., 6 objects in a corpus image: mostly few
#: objects, whose captions can name every attribute of each.
NUM_OBJECTS_P = (0.35, 0.25, 0.15, 0.1, 0.1, 0.05)
MAX_DESCRIBED = 3  # objects named one by one in a caption
MAX_ATTEMPTS = 100
NUMBER_WORDS = ('no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven',
                'eight', 'nine', 'ten')
PLURALS = {'cube': ('cubes', 'blocks'), 'sphere': ('spheres', 'balls'),
           'cylinder': ('cylinders', ), None: ('objects', 'things')}
PREFIXES = ('a photo of {}', 'a picture of {}', 'a rendering of {}',
            'a 3d render of {}', 'an image of {}', '{}', '{}',
            'a close-up photo of {}', 'a cg image of {}')


def _choice(rng, options):
    return options[rng.integers(len(options))]


def render_single_image(rng: np.random.Generator, num_objects: int,
                        render_size: Tuple[int, int] = (240, 160),
                        image_size: Tuple[int, int] = (96, 144)):
    """Render one random scene of ``num_objects`` objects, all visible.

    Rendered at ``render_size`` (W, H, the quickstart data set's) and resized
    to ``image_size`` (H, W) with the data sets' cache resize, so the images
    look like the model's inputs from a data set.

    Args:
        rng (np.random.Generator): The image's random stream.
        num_objects (int): Objects in the scene (1-10).
        render_size (tuple): ``(width, height)`` of the render.
        image_size (tuple): ``(height, width)`` of the returned image.

    Returns:
        tuple: ``(rgb uint8 [H, W, 3], objects, directions)`` with
        ``directions`` the scene's relation directions.
    """
    width, height = render_size
    least = MIN_VISIBLE_PIXELS * width * height / (480 * 320)
    for _ in range(MAX_ATTEMPTS):
        camera, lights = sample_view(rng, DEFAULT_SETTINGS)
        directions = camera.ground_directions()
        objects = sample_objects(rng, num_objects, directions)
        if objects is None:
            continue
        result = render(objects, camera, lights, width, height)
        if all(result.visible_pixels[o.id] >= least for o in objects):
            rgb = np.ascontiguousarray(result.image[..., :3])
            return resize_rgb(rgb, tuple(image_size)), objects, directions
    raise RuntimeError(f'no scene of {num_objects} visible objects in '
                       f'{MAX_ATTEMPTS} attempts')


def _describe(rng, obj: SceneObject, full: bool) -> str:
    """Words for one object: all attributes, or a random non-empty subset."""
    keep = np.ones(4, bool) if full else rng.random(4) < 0.5
    if not keep.any():
        keep[rng.integers(4)] = True
    words = []
    if keep[0]:
        words.append(_choice(rng, SIZE_WORDS[obj.size]))
    if keep[1]:
        words.append(_choice(rng, COLOR_WORDS[obj.color]))
    if keep[2]:
        words.append(_choice(rng, MATERIAL_WORDS[obj.material]))
    words.append(_choice(rng, SHAPE_WORDS[obj.shape] if keep[3]
                         else GENERIC_NOUNS))
    return ' '.join(words)


def _with_article(phrase: str) -> str:
    return ('an ' if phrase[0] in 'aeiou' else 'a ') + phrase


def _count_phrase(rng, objects: List[SceneObject]) -> str:
    """E.g. "two spheres and a cube" or "three objects"."""
    if rng.random() < 0.4:
        n = len(objects)
        return (f'{NUMBER_WORDS[n]} ' +
                _choice(rng, PLURALS[None]) if n > 1 else
                _with_article(_choice(rng, GENERIC_NOUNS)))
    counts = {}
    for obj in objects:
        counts[obj.shape] = counts.get(obj.shape, 0) + 1
    parts = [(f'{NUMBER_WORDS[n]} {_choice(rng, PLURALS[shape])}' if n > 1
              else _with_article(_choice(rng, SHAPE_WORDS[shape])))
             for shape, n in counts.items()]
    return parts[0] if len(parts) == 1 else \
        ', '.join(parts[:-1]) + ' and ' + parts[-1]


def _relation_phrase(rng, objects, directions) -> str:
    """E.g. "a small red cube to the left of a large gray sphere"."""
    first, second = (objects[i] for i in rng.permutation(len(objects))[:2])
    relations = []
    for name in ('left', 'right', 'behind', 'front'):
        d = directions[name]
        if (first.x - second.x) * d[0] + (first.y - second.y) * d[1] > 0:
            relations.append(name)
    relation = _choice(rng, relations)
    return (f'{_with_article(_describe(rng, first, rng.random() < 0.5))} '
            f'{_choice(rng, RELATION_PHRASES[relation])} '
            f'{_with_article(_describe(rng, second, rng.random() < 0.5))}')


def corpus_caption(rng: np.random.Generator, objects: List[SceneObject],
                   directions: dict) -> str:
    """A web-like caption of an image of ``objects``.

    One object: its description (every attribute half of the time, a random
    subset otherwise) in one of several phrasings. Several: a list of up to
    ``MAX_DESCRIBED`` of them, their counts, or a spatial relation between
    two of them. Every statement is true of the image.

    Args:
        rng (np.random.Generator): Random stream.
        objects (list[SceneObject]): The image's objects (at least one).
        directions (dict): The image's relation directions.
    """
    if not objects:
        raise ValueError('corpus_caption needs at least one object')
    prefix = _choice(rng, PREFIXES)
    if len(objects) == 1:
        obj = objects[0]
        phrase = _describe(rng, obj, rng.random() < 0.5)
        form = rng.integers(4)
        if form == 1:
            noun = _choice(rng, SHAPE_WORDS[obj.shape] + GENERIC_NOUNS)
            text = (f'{_with_article(_choice(rng, SIZE_WORDS[obj.size]))} '
                    f'{noun} that is {obj.color}')
        elif form == 2:
            text = (f'{_with_article(_choice(rng, SHAPE_WORDS[obj.shape]))} '
                    f'made of {obj.material}')
        else:
            text = _with_article(phrase)
        if rng.random() < 0.3:
            # no floor colour: 'gray' names an object colour
            text += _choice(rng, (' on the floor', ' alone on the floor'))
        return prefix.format(text)
    form = rng.integers(3)
    if form == 0:
        shown = [objects[i] for i in
                 rng.permutation(len(objects))[:MAX_DESCRIBED]]
        parts = [_with_article(_describe(rng, o, rng.random() < 0.5))
                 for o in shown]
        text = ', '.join(parts[:-1]) + ' and ' + parts[-1]
        if len(objects) > len(shown):
            text += ' among other objects'
    elif form == 1:
        text = _count_phrase(rng, objects)
    else:
        text = _relation_phrase(rng, objects, directions)
    return prefix.format(text)


def generate_clip_corpus(out_dir: str,
                         num_images: int,
                         seed: int = 0,
                         render_size: Tuple[int, int] = (240, 160),
                         image_size: Tuple[int, int] = (96, 144),
                         num_objects_p: Sequence[float] = NUM_OBJECTS_P,
                         progress: bool = True) -> str:
    """Write ``num_images`` captioned renders and their CSV.

    Images go to ``out_dir/images/NNNNNN.png``, the CSV to
    ``out_dir/corpus.csv`` (tab-separated, columns ``filepath`` and
    ``title``). An existing complete corpus of the same size is kept.

    Args:
        out_dir (str): Output folder (created).
        num_images (int): Number of images (one caption each).
        seed (int): Image ``i`` is drawn from ``(CORPUS_STREAM, seed, i)``.
        render_size (tuple): ``(width, height)`` of the renders.
        image_size (tuple): ``(height, width)`` of the written images.
        num_objects_p (Sequence[float]): Probability of 1, 2, ... objects.
        progress (bool): Log progress every 1000 images.

    Returns:
        str: The CSV's path.
    """
    if int(num_images) < 1:
        raise ValueError(f'num_images must be >= 1, got {num_images}')
    probs = np.asarray(num_objects_p, float)
    if probs.ndim != 1 or len(probs) > 10 or (probs < 0).any() or \
            abs(probs.sum() - 1) > 1e-6:
        raise ValueError('num_objects_p must hold at most 10 non-negative '
                         f'probabilities summing to 1, got {num_objects_p}')
    csv_path = osp.join(out_dir, 'corpus.csv')
    if osp.isfile(csv_path):
        with open(csv_path) as f:
            rows = sum(1 for _ in f) - 1
        if rows == num_images:
            print_log(f'CLIP corpus: keeping {csv_path} ({rows} images)',
                      logger='current')
            return csv_path
    image_dir = osp.abspath(osp.join(out_dir, 'images'))
    os.makedirs(image_dir, exist_ok=True)
    rows = []
    for index in range(int(num_images)):
        rng = np.random.default_rng([CORPUS_STREAM, seed, index])
        num_objects = 1 + int(rng.choice(len(probs), p=probs))
        rgb, objects, directions = render_single_image(
            rng, num_objects, render_size, image_size)
        path = osp.join(image_dir, f'{index:06d}.png')
        Image.fromarray(rgb).save(path, compress_level=1)
        rows.append((path, corpus_caption(rng, objects, directions)))
        if progress and (index + 1) % 1000 == 0:
            print_log(f'CLIP corpus: {index + 1}/{num_images} images',
                      logger='current')
    tmp = csv_path + '.tmp'
    with open(tmp, 'w', newline='') as f:
        writer = csv.writer(f, delimiter='\t', lineterminator='\n')
        writer.writerow(('filepath', 'title'))
        writer.writerows(rows)
    os.replace(tmp, csv_path)
    print_log(f'CLIP corpus: {num_images} images and captions in {csv_path}',
              logger='current')
    return csv_path


def zero_shot_renders(num_images: int, seed: int = 0,
                      render_size: Tuple[int, int] = (240, 160),
                      image_size: Tuple[int, int] = (96, 144)):
    """Held-out single-object renders for zero-shot evaluation.

    Image ``i`` is drawn from ``(ZERO_SHOT_STREAM, seed, i)``: no corpus
    image and no data set scene.

    Args:
        num_images (int): Number of renders.
        seed (int): Seed of the set.
        render_size (tuple): ``(width, height)`` of the renders.
        image_size (tuple): ``(height, width)`` of the returned images.

    Returns:
        tuple: ``(uint8 [N, H, W, 3], list of SceneObject)``.
    """
    images, objects = [], []
    for index in range(int(num_images)):
        rng = np.random.default_rng([ZERO_SHOT_STREAM, seed, index])
        rgb, objs, _ = render_single_image(rng, 1, render_size, image_size)
        images.append(rgb)
        objects.append(objs[0])
    return np.stack(images), objects
