"""BasePairInferencer, through the captioner: input checks naming the image,
threaded preparation of batches in input order, the attention figure."""
import numpy as np
import pytest
from PIL import Image

from mmidc.apis import ImageInputError
from tests.helpers.tiny_models import square_pair


def test_wrong_inputs_have_clear_messages(captioner, pair_files, tmp_path):
    with pytest.raises(ImageInputError, match='nope.png: no such image file'):
        captioner(pair_files[0], str(tmp_path / 'nope.png'))
    text = tmp_path / 'notes.png'
    text.write_text('hello')
    with pytest.raises(ImageInputError, match='notes.png: not a readable'):
        captioner(str(text), pair_files[1])
    tall = tmp_path / 'tall.png'
    Image.new('RGB', (20, 90)).save(tall)
    with pytest.raises(ImageInputError, match='tall.png is 20x90'):
        captioner(pair_files[0], str(tall))


def test_threaded_decoding_keeps_order_and_reports_bad_pairs(captioner, tmp_path):
    """prepared_batches: threads decode ahead, batches come out in input
    order, an unusable pair is an error item (not an exception), and the
    results equal decoding in the calling thread."""
    pairs = []
    for i in range(7):
        before, after, _ = square_pair(colour_after=(30, 30 + 20 * i, 220))
        paths = tmp_path / f'{i}_a.png', tmp_path / f'{i}_b.png'
        Image.fromarray(before).save(paths[0])
        Image.fromarray(after).save(paths[1])
        pairs.append(tuple(str(p) for p in paths))
    pairs[4] = (pairs[4][0], str(tmp_path / 'missing.png'))
    threaded = list(captioner.prepared_batches(pairs, batch_size=3, workers=3,
                                               prefetch=1))
    serial = list(captioner.prepared_batches(pairs, batch_size=3, workers=0))
    assert [[i for i, _ in b] for b in threaded] == [[0, 1, 2], [3, 4, 5], [6]]
    assert isinstance(threaded[1][1][1], ImageInputError)
    for batch_a, batch_b in zip(threaded, serial):
        for (_, a), (_, b) in zip(batch_a, batch_b):
            if isinstance(a, Exception):
                assert str(a) == str(b)
            else:
                assert np.array_equal(a['inputs'].numpy(), b['inputs'].numpy())
    good = [p for i, p in enumerate(pairs) if i != 4]
    assert captioner(good, batch_size=4, workers=2) == captioner(good, batch_size=4,
                                                                 workers=0)
    with pytest.raises(ImageInputError, match='missing.png'):
        captioner(pairs, batch_size=4, workers=2)
