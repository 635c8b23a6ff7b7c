"""Generate a synthetic CLEVR-Change-style data set in the real layout.

    python tools/generate_synthetic_clevr_change.py OUT --num-scenes 5000 \\
        --seed 0 --image-size 480x320 --workers 2
    # the evaluation-only set with shifted settings (docs/synthetic_data.md)
    python tools/generate_synthetic_clevr_change.py \\
        data/synthetic_clevr_change_shifted --preset shifted --workers 2
"""
import argparse
import dataclasses
import time

from mmidc.synthetic import (PRESETS, SceneSettings, check_dataset,
                             generate_dataset)

DEFAULTS = dict(num_scenes=1000, seed=0, image_size=(480, 320),
                split_fractions=(0.8, 0.1, 0.1))
SETTING_OPTIONS = ('min_objects', 'max_objects', 'camera_jitter',
                   'light_jitter', 'view_jitter')


def parse_size(text: str):
    try:
        width, height = (int(v) for v in text.lower().split('x'))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'--image-size must look like 480x320, got {text!r}')
    return width, height


def parse_fractions(text: str):
    try:
        fractions = [float(v) for v in text.split(',')]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f'--split-fractions must look like 0.8,0.1,0.1, got {text!r}')
    return fractions


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('out', help='output folder')
    parser.add_argument(
        '--preset', choices=sorted(PRESETS),
        help='a named set: its scene count, seed, size, splits and settings '
        '(each can still be overridden by its option)')
    parser.add_argument('--num-scenes', type=int,
                        help=f'default {DEFAULTS["num_scenes"]}')
    parser.add_argument('--seed', type=int, help='default 0')
    parser.add_argument('--image-size', type=parse_size,
                        help='WxH (default 480x320, as CLEVR-Change)')
    parser.add_argument('--workers', type=int, default=1)
    parser.add_argument('--split-fractions', type=parse_fractions,
                        help='train,val,test (default 0.8,0.1,0.1)')
    defaults = SceneSettings()
    parser.add_argument('--min-objects', type=int,
                        help=f'default {defaults.min_objects}')
    parser.add_argument('--max-objects', type=int,
                        help=f'default {defaults.max_objects}')
    for name in ('camera', 'light', 'view'):
        parser.add_argument(f'--{name}-jitter', type=float,
                            help=f'scale of the {name} ranges (default 1; '
                            'see SceneSettings)')
    parser.add_argument('--overwrite', action='store_true',
                        help='write into a folder that holds a data set')
    parser.add_argument('--check', action='store_true',
                        help='verify every caption against its scene graph')
    return parser, parser.parse_args(argv)


def generation_kwargs(args) -> dict:
    """``generate_dataset`` arguments: the preset's (or the defaults), then
    every option given on the command line."""
    kwargs = dict(DEFAULTS, settings=SceneSettings())
    kwargs.update(PRESETS.get(args.preset, {}))
    for key in DEFAULTS:
        if getattr(args, key) is not None:
            kwargs[key] = getattr(args, key)
    changes = {k: getattr(args, k) for k in SETTING_OPTIONS
               if getattr(args, k) is not None}
    kwargs['settings'] = dataclasses.replace(kwargs['settings'], **changes)
    return kwargs


def main(argv=None):
    parser, args = parse_args(argv)
    start = time.perf_counter()
    try:
        kwargs = generation_kwargs(args)
        summary = generate_dataset(args.out, workers=args.workers,
                                   overwrite=args.overwrite, **kwargs)
    except (ValueError, TypeError, FileExistsError) as error:
        parser.error(str(error))
    elapsed = time.perf_counter() - start
    print(f'{kwargs["num_scenes"]} scenes ({3 * kwargs["num_scenes"]} images) '
          f'in {elapsed:.1f} s with {args.workers} worker(s); types '
          f'{summary["type_counts"]}; settings {kwargs["settings"]}')
    if args.check:
        problems = check_dataset(args.out)
        for problem in problems[:20]:
            print(problem)
        print(f'caption check: {len(problems)} problem(s)')
        raise SystemExit(1 if problems else 0)


if __name__ == '__main__':
    main()
