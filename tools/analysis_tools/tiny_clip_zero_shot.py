"""Zero-shot attribute accuracy of a CLIP on held-out single-object renders.

Renders ``--num-images`` single-object scenes that no corpus image and no
data set scene shares, and classifies each object's colour, material, shape
and size zero-shot ("a photo of a red object", ...), printing the accuracy
beside chance::

    python tools/analysis_tools/tiny_clip_zero_shot.py \\
        work_dirs/tiny_clip/mmidc-tiny-clip.safetensors
"""
import argparse
import json

import torch

from mmidc.synthetic.clip_corpus import zero_shot_renders
from mmidc.evaluation.zero_shot import attribute_zero_shot, to_model_input
from mmidc.models.utils.open_clip_utils import register_model_configs


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('checkpoint', help='CLIP weights (open_clip names)')
    parser.add_argument('--arch', default='mmidc-tiny-clip',
                        help='open_clip model name (default: %(default)s)')
    parser.add_argument('--num-images', type=int, default=500,
                        help='held-out renders (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the renders (default: %(default)s)')
    parser.add_argument('--out', default=None,
                        help='also write the results to this JSON file')
    return parser.parse_args(argv)


def evaluate(checkpoint: str, arch: str = 'mmidc-tiny-clip',
             num_images: int = 500, seed: int = 0) -> dict:
    """Load ``checkpoint`` into open_clip's ``arch`` and measure it."""
    import open_clip
    register_model_configs()
    model = open_clip.create_model(arch, pretrained=checkpoint, device='cpu')
    height, width = model.visual.image_size
    images, objects = zero_shot_renders(num_images, seed,
                                        image_size=(height, width))
    pixels = to_model_input(images, model.visual.image_mean
                            or open_clip.OPENAI_DATASET_MEAN,
                            model.visual.image_std
                            or open_clip.OPENAI_DATASET_STD)
    return attribute_zero_shot(model, open_clip.get_tokenizer(arch), pixels,
                               [o.to_dict() for o in objects])


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    results = evaluate(args.checkpoint, args.arch, args.num_images, args.seed)
    print(f'zero-shot attribute accuracy, {args.num_images} held-out '
          f'single-object renders (seed {args.seed}):')
    print(f'{"attribute":<10} {"accuracy":>9} {"chance":>7}')
    for name, r in results.items():
        print(f'{name:<10} {100 * r["accuracy"]:>8.1f}% '
              f'{100 * r["chance"]:>6.1f}%')
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == '__main__':
    main()
