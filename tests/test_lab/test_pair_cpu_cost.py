"""mmidc_lab.pair_cpu_cost: every step's CPU ms per pair, the default
decoders against PIL's path, other decoders marked when their pixels
differ."""
import sys

import numpy as np
from PIL import Image

from mmidc.datasets import image_io
from mmidc_lab import pair_cpu_cost as tool


def test_rows_time_every_step_and_restore_the_decoder(tmp_path, monkeypatch):
    # torchvision's decoders are left out when it is missing (and its first
    # import would take a second here)
    monkeypatch.setitem(sys.modules, 'torchvision.io', None)
    picture = np.random.default_rng(0).integers(0, 256, (32, 48, 3), np.uint8)
    Image.fromarray(picture).save(tmp_path / 'pair.png')
    decoder = image_io.decode_plain_png
    row = tool.measure(tmp_path / 'pair.png', 16, repeats=1, batch=2)
    assert image_io.decode_plain_png is decoder
    for key in ('decode', 'decode, PIL path', 'PIL: open + pixel decode',
                'resize to 16 (Pillow bicubic)', 'cv2.imdecode',
                'pack, CPU path (PackIDCInputs)',
                'pack, GPU path (stack the batch)'):
        assert row[key] >= 0, key
    assert not any('other pixels' in key for key in row)  # PNG: lossless
    assert not any('torchvision' in key for key in row)
    times = tool.cpu_ms({'a': lambda: None, 'b': lambda: sum(range(99))}, 2)
    assert set(times) == {'a', 'b'} and min(times.values()) >= 0
