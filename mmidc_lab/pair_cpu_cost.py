"""CPU milliseconds per pair of each step of preparing pairs for captioning
(docs/benchmark.md, "caption_pair: the CPU's cost per pair").

    python -m mmidc_lab.pair_cpu_cost [--repeats 30] [--images A.png ...] \
        [--json OUT]

Times each step on one thread with ``time.thread_time()`` (the CPU time of
the calling thread, so other jobs on the machine inflate it far less than a
wall clock), best of ``--repeats`` calls, per image, and reports it per pair
(two images). The images: 480x320 renders of the synthetic generator
(``scene``: RGBA PNG as the generator writes it; ``grainy-scene``: the same
with render grain, about the size of CLEVR-Change's PNGs; ``scene-jpeg``:
the grainy scene as a quality-95 JPEG), uniform noise (``noise``, the PNG
decoder's worst case), and any ``--images`` given (e.g. CLEVR-Change's own).

Steps: decoding as the captioning command does it (``PairDecoder`` without a pipeline:
read, open, decode, EXIF orientation, mode to RGB, the pair's size check)
with the default decoders and with every image on PIL's path (as before
plain PNGs went to libpng); PIL's path in parts; other decoders for
reference (OpenCV, torchvision: same pixels or not); Pillow's bicubic resize
to ``--size`` (the CPU path only: on a GPU the batch is resized on the
device); packing (the CPU path's ``PackIDCInputs``; the GPU path stacks the
batch's arrays). The bound: ``--cores`` x 1000 / the CPU milliseconds of a
pair.
"""
import argparse
import contextlib
import io
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
from PIL import Image

from mmidc.apis.pair_loader import PairDecoder
from mmidc.datasets import image_io
from mmidc.datasets.image_io import exif_orientation, resize_rgb
from mmidc.datasets.transforms import PackIDCInputs


def cpu_ms(fns: dict, repeats: int) -> dict:
    """The least CPU time of one call (ms) of each of ``fns`` (name ->
    callable) over ``repeats`` rounds; each round calls every function once,
    so that all see the same moments of the machine's load."""
    best = {name: float('inf') for name in fns}
    for fn in fns.values():
        fn()  # warm-up
    for _ in range(repeats):
        for name, fn in fns.items():
            start = time.thread_time()
            fn()
            best[name] = min(best[name], time.thread_time() - start)
    return {name: value * 1e3 for name, value in best.items()}


@contextlib.contextmanager
def pil_path():
    """Every image on PIL's path (the decoders before plain PNGs went to
    libpng)."""
    saved = image_io.decode_plain_png
    image_io.decode_plain_png = lambda data: None
    try:
        yield
    finally:
        image_io.decode_plain_png = saved


def generated_images(folder: Path) -> dict:
    """Write the generated images (480x320); name -> path."""
    from mmidc.synthetic.generator import generate_scene
    _, _, _, images = generate_scene(0, 0, 480, 320)
    scene = images['default']
    rng = np.random.default_rng(0)
    grain = rng.normal(0, 3, scene.shape[:2] + (3, ))
    grainy = scene.copy()
    grainy[..., :3] = np.clip(scene[..., :3] + grain, 0, 255).astype(np.uint8)
    noise = rng.integers(0, 256, (320, 480, 3), np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, array, options in (
            ('scene', scene, dict(compress_level=1, compress_type=3)),
            ('grainy-scene', grainy, {}), ('noise', noise, {}),
            ('scene-jpeg', grainy[..., :3], dict(quality=95))):
        suffix = '.jpg' if name.endswith('jpeg') else '.png'
        paths[name] = folder / f'{name}{suffix}'
        Image.fromarray(array).save(paths[name], **options)
    return paths


def other_decoders(data: bytes, expected: np.ndarray) -> dict:
    """OpenCV's and torchvision's decoders to RGB: name -> callable, and the
    name says whether it gives ``expected`` (PIL's pixels)."""
    out = {}
    try:
        import cv2
        buffer = np.frombuffer(data, np.uint8)
        if hasattr(cv2, 'IMREAD_COLOR_RGB'):
            out['cv2.imdecode'] = lambda: cv2.imdecode(
                buffer, cv2.IMREAD_COLOR_RGB)
    except ImportError:
        pass
    try:
        import torch
        from torchvision.io import ImageReadMode, decode_image
        tensor = torch.frombuffer(bytearray(data), dtype=torch.uint8)
        out['torchvision decode_image'] = lambda: decode_image(
            tensor, ImageReadMode.RGB).permute(1, 2, 0).numpy()
    except ImportError:
        pass
    return {name + ('' if np.array_equal(fn(), expected) else
                    ' (other pixels)'): fn for name, fn in out.items()}


def measure(path: Path, size: int, repeats: int, batch: int = 64) -> dict:
    """The steps' CPU ms per pair for a pair of ``path`` and ``path``."""
    data = path.read_bytes()
    name = str(path)
    decoder = PairDecoder(None, 'full', 0.25)
    with pil_path():
        rgb = decoder(name, name)['img1']

    def pil_prepare():
        with pil_path():
            return decoder(name, name)

    def opened():
        return Image.open(io.BytesIO(data))

    def loaded():
        img = opened()
        img.load()
        return img

    img = loaded()
    resized = resize_rgb(rgb, (size, size))
    pack = PackIDCInputs()
    images = [rgb] * (2 * batch)
    # per pair: the decoder's (two images) and the stack's (one pair of a
    # batch); the rest per image, doubled
    per_pair = {
        'decode': lambda: decoder(name, name),
        'decode, PIL path': pil_prepare,
        'pack, CPU path (PackIDCInputs)': lambda: pack(dict(
            img1=resized, img2=resized, pair_id='0', change_type='unknown',
            gt_captions=[])),
    }
    per_image = {
        'PIL: open (header)': opened,
        'PIL: open + pixel decode': loaded,
        'PIL: EXIF, mode to RGB array': lambda: (
            exif_orientation(img), np.asarray(img.convert('RGB'))),
        'plain-PNG check (chunk walk)': lambda: image_io.is_plain_png(data),
        **other_decoders(data, rgb),
        f'resize to {size} (Pillow bicubic)': lambda: resize_rgb(
            rgb, (size, size)),
    }
    times = cpu_ms({**per_pair, **per_image}, repeats)
    row = {'image': path.name, 'bytes': len(data)}
    row.update({k: times[k] * (2 if k in per_image else 1) for k in times})
    row['pack, GPU path (stack the batch)'] = cpu_ms(
        {'stack': lambda: np.stack(images)},
        max(3, repeats // 10))['stack'] / batch
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--images', nargs='*', default=[],
                        help='image files to measure besides the generated')
    parser.add_argument('--size', type=int, default=224)
    parser.add_argument('--repeats', type=int, default=30)
    parser.add_argument('--cores', type=int, default=16,
                        help='cores of the bound on pairs/s')
    parser.add_argument('--out-dir', default='work_dirs/pair_cpu_cost')
    parser.add_argument('--json', help='write the rows here')
    args = parser.parse_args(argv)
    paths = generated_images(Path(args.out_dir))
    paths.update({Path(p).name: Path(p) for p in args.images})
    rows = []
    print(f'load {os.getloadavg()[0]:.2f}, {platform.processor() or "cpu"}: '
          f'CPU ms per pair, best of {args.repeats}', flush=True)
    for name, path in paths.items():
        row = measure(path, args.size, args.repeats)
        row['kind'] = name
        resize = row[f'resize to {args.size} (Pillow bicubic)']
        gpu = row['decode'] + row['pack, GPU path (stack the batch)']
        cpu = row['decode'] + resize + row['pack, CPU path (PackIDCInputs)']
        gpu_before = row['decode, PIL path'] + \
            row['pack, GPU path (stack the batch)']
        cpu_before = cpu - row['decode'] + row['decode, PIL path']
        for label, ms in (('GPU path', gpu), ('GPU path, PIL', gpu_before),
                          ('CPU path', cpu), ('CPU path, PIL', cpu_before)):
            row[f'total, {label}'] = ms
            row[f'bound pairs/s on {args.cores} cores, {label}'] = \
                args.cores * 1000 / ms
        rows.append(row)
        print(f'\n{name} ({row["bytes"]} bytes), load '
              f'{os.getloadavg()[0]:.2f}', flush=True)
        for key, value in row.items():
            if isinstance(value, float):
                print(f'  {key:<48} {value:8.2f}', flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(dict(
            load=os.getloadavg(), repeats=args.repeats, rows=rows), indent=1))


if __name__ == '__main__':
    main()
