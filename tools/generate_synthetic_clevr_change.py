"""Generate a synthetic CLEVR-Change-style data set in the real layout.

    python tools/generate_synthetic_clevr_change.py OUT --num-scenes 5000 \
        --seed 0 --image-size 480x320 --workers 2
"""
import argparse
import time

from mmidc.datasets.synthetic import check_dataset, generate_dataset


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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('out', help='output folder')
    parser.add_argument('--num-scenes', type=int, default=1000)
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--image-size', type=parse_size, default=(480, 320),
                        help='WxH (default 480x320, as CLEVR-Change)')
    parser.add_argument('--workers', type=int, default=1)
    parser.add_argument('--split-fractions', type=parse_fractions,
                        default=(0.8, 0.1, 0.1), help='train,val,test')
    parser.add_argument('--overwrite', action='store_true',
                        help='write into a folder that holds a data set')
    parser.add_argument('--check', action='store_true',
                        help='verify every caption against its scene graph')
    args = parser.parse_args()
    start = time.perf_counter()
    try:
        summary = generate_dataset(args.out, args.num_scenes, args.seed,
                                   args.image_size, args.workers,
                                   args.split_fractions, args.overwrite)
    except (ValueError, FileExistsError) as error:
        parser.error(str(error))
    elapsed = time.perf_counter() - start
    print(f'{args.num_scenes} scenes ({3 * args.num_scenes} images) in '
          f'{elapsed:.1f} s with {args.workers} worker(s); types '
          f'{summary["type_counts"]}')
    if args.check:
        problems = check_dataset(args.out)
        for problem in problems[:20]:
            print(problem)
        print(f'caption check: {len(problems)} problem(s)')
        raise SystemExit(1 if problems else 0)


if __name__ == '__main__':
    main()
