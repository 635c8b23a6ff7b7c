"""The tiny CLIP's image-text corpus: true captions, CSV layout, streams."""
import csv
import os.path as osp
import re

import numpy as np
import pytest
from PIL import Image

from mmidc.synthetic.properties import (WORD_TO_COLOR, WORD_TO_MATERIAL,
                                        WORD_TO_SHAPE, WORD_TO_SIZE)
from mmidc.synthetic.scene import sample_objects, sample_view
from projects.tiny_clip.corpus import (NUMBER_WORDS, PLURALS, corpus_caption,
                                       generate_clip_corpus,
                                       render_single_image, zero_shot_renders)

PLURAL_TO_SHAPE = {w: s for s, words in PLURALS.items() for w in words}


def _scenes(count, seed=0):
    rng = np.random.default_rng(seed)
    for i in range(count):
        camera, _ = sample_view(rng)
        directions = camera.ground_directions()
        objects = sample_objects(rng, 1 + i % 5, directions)
        if objects is not None:
            yield rng, objects, directions


def test_captions_are_true_of_their_objects():
    forms = set()
    for rng, objects, directions in _scenes(400):
        caption = corpus_caption(rng, objects, directions)
        words = caption.split()
        forms.add(' '.join(words[:3]))
        for word in words:
            for lookup, attribute in ((WORD_TO_COLOR, 'color'),
                                      (WORD_TO_MATERIAL, 'material'),
                                      (WORD_TO_SIZE, 'size'),
                                      (WORD_TO_SHAPE, 'shape')):
                if word in lookup:
                    values = {getattr(o, attribute) for o in objects}
                    assert lookup[word] in values, (caption, objects)
        if len(objects) == 1:  # every attribute word names the one object
            obj = objects[0]
            for word in words:
                if word in WORD_TO_COLOR:
                    assert WORD_TO_COLOR[word] == obj.color, caption
                if word in WORD_TO_SHAPE:
                    assert WORD_TO_SHAPE[word] == obj.shape, caption
        # "three objects", "two cubes": counts are right
        for number, noun in re.findall(r'\b(\w+) (\w+)\b', caption):
            if number in NUMBER_WORDS[2:] and noun in PLURAL_TO_SHAPE:
                shape = PLURAL_TO_SHAPE[noun]
                n = sum(shape is None or o.shape == shape for o in objects)
                assert NUMBER_WORDS.index(number) == n, (caption, objects)
    assert len(forms) > 30  # several phrasings


def test_relations_are_true():
    from mmidc.synthetic.captions import relation_holds
    from projects.tiny_clip.corpus import _relation_phrase
    checked = 0
    for rng, objects, directions in _scenes(200, seed=1):
        if len(objects) != 2 or objects[0].shape == objects[1].shape:
            continue
        text = _relation_phrase(rng, objects, directions)
        for name, phrase in (('front', ' in front of '), ('behind', ' behind '),
                             ('left', ' left of '), ('right', ' right of '),
                             ('left', ' left side of '),
                             ('right', ' right side of ')):
            if phrase in text:
                first, _ = text.split(phrase, 1)
                shapes = [WORD_TO_SHAPE.get(w) for w in first.split()]
                subject = objects[0] if objects[0].shape in shapes else \
                    objects[1] if objects[1].shape in shapes else None
                if subject is None:
                    continue  # a generic noun: ambiguous here
                anchor = objects[1] if subject is objects[0] else objects[0]
                assert relation_holds(subject, anchor, name, directions), text
                checked += 1
                break
    assert checked > 10


def test_corpus_csv_images_and_determinism(tmp_path):
    csv_path = generate_clip_corpus(str(tmp_path / 'a'), 12, seed=3,
                                    progress=False)
    with open(csv_path, newline='') as f:
        rows = list(csv.reader(f, delimiter='\t'))
    assert rows[0] == ['filepath', 'title'] and len(rows) == 13
    for path, title in rows[1:]:
        assert osp.isabs(path) and title
        with Image.open(path) as img:
            assert img.size == (144, 96) and img.mode == 'RGB'
    again = generate_clip_corpus(str(tmp_path / 'b'), 12, seed=3,
                                 progress=False)
    other = generate_clip_corpus(str(tmp_path / 'c'), 12, seed=4,
                                 progress=False)
    titles = [r[1] for r in rows[1:]]
    assert titles == [r.split('\t')[1] for r in
                      open(again).read().splitlines()[1:]]
    assert titles != [r.split('\t')[1] for r in
                      open(other).read().splitlines()[1:]]
    assert np.array_equal(np.asarray(Image.open(rows[1][0])),
                          np.asarray(Image.open(osp.join(
                              tmp_path, 'b', 'images', '000000.png'))))
    # a complete corpus is kept, not re-rendered
    mtime = osp.getmtime(csv_path)
    generate_clip_corpus(str(tmp_path / 'a'), 12, seed=3, progress=False)
    assert osp.getmtime(csv_path) == mtime


def test_zero_shot_renders_are_single_visible_objects():
    images, objects = zero_shot_renders(3, seed=0, image_size=(48, 72),
                                        render_size=(120, 80))
    assert images.shape == (3, 48, 72, 3) and images.dtype == np.uint8
    assert len(objects) == 3
    corpus_like = render_single_image(np.random.default_rng(0), 1,
                                      (120, 80), (48, 72))[0]
    assert not any(np.array_equal(corpus_like, i) for i in images)


@pytest.mark.parametrize('kwargs, match', [
    (dict(num_images=0), 'num_images must be >= 1'),
    (dict(num_images=2, num_objects_p=(0.5, 0.6)), 'num_objects_p'),
])
def test_bad_options_are_named(tmp_path, kwargs, match):
    with pytest.raises(ValueError, match=match):
        generate_clip_corpus(str(tmp_path), progress=False, **kwargs)
