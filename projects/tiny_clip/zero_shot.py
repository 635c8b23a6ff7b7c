"""Zero-shot attribute accuracy of a CLIP on held-out single-object renders.

Renders ``--num-images`` single-object scenes that no corpus image and no
data set scene shares, and classifies each object's colour, material, shape
and size zero-shot ("a photo of a red object", ...), printing the accuracy
beside chance (from the repository root)::

    python -m projects.tiny_clip.zero_shot \\
        work_dirs/tiny_clip/mmidc-tiny-clip.safetensors [--linear-probe 1500]

``--linear-probe N`` also fits a logistic regression per attribute on the
image embeddings of ``N`` other renders (seed ``--seed + 1``) and scores it
on the same held-out renders: what the image tower encodes, whatever the
text tower makes of the prompts. ``--random-init`` measures the
architecture's random initialisation instead of a checkpoint (the baseline
for the probe). ``--finetune N`` trains a copy of the image tower with a
linear classifier on the labels of ``N`` further renders (seed ``--seed +
2``) for ``--finetune-epochs`` epochs, one attribute at a time
(``--finetune-attributes``, default shape), and prints its held-out
accuracy: what the architecture learns of the attribute when told it.
"""
import argparse
import json
from typing import Optional

import torch

from projects.tiny_clip.corpus import zero_shot_renders
from projects.tiny_clip.open_clip_models import register_model_configs
from projects.tiny_clip.probes import (ATTRIBUTE_PROMPTS,
                                       attribute_finetune_probe,
                                       attribute_linear_probe,
                                       attribute_zero_shot, to_model_input)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog='python -m projects.tiny_clip.zero_shot',
                                     description=__doc__.split('\n')[0])
    parser.add_argument('checkpoint', nargs='?',
                        help='CLIP weights (open_clip names)')
    parser.add_argument('--random-init', action='store_true',
                        help='the architecture randomly initialised, no '
                        'checkpoint (a baseline)')
    parser.add_argument('--linear-probe', type=int, default=0, metavar='N',
                        help='also a linear probe of the image embedding, '
                        'trained on N other renders (default: none)')
    parser.add_argument('--finetune', type=int, default=0, metavar='N',
                        help='also a fine-tuned probe: a copy of the image '
                        'tower trained with the labels of N other renders '
                        '(default: none)')
    parser.add_argument('--finetune-epochs', type=int, default=5,
                        help='epochs of the fine-tuned probe (default: '
                        '%(default)s)')
    parser.add_argument('--finetune-attributes', nargs='+',
                        default=['shape'], choices=list(ATTRIBUTE_PROMPTS),
                        help='attributes the fine-tuned probe learns, one '
                        'copy each (default: shape)')
    parser.add_argument('--arch', default='mmidc-tiny-clip',
                        help='open_clip model name (default: %(default)s)')
    parser.add_argument('--num-images', type=int, default=500,
                        help='held-out renders (default: %(default)s)')
    parser.add_argument('--seed', type=int, default=0,
                        help='seed of the renders (default: %(default)s)')
    parser.add_argument('--out', default=None,
                        help='also write the results to this JSON file')
    args = parser.parse_args(argv)
    if (args.checkpoint is None) == (not args.random_init):
        parser.error('give a checkpoint or --random-init (one of them)')
    if args.linear_probe < 0:
        parser.error(f'--linear-probe takes a number of renders >= 0, got '
                     f'{args.linear_probe}')
    if args.finetune < 0 or args.finetune_epochs < 1:
        parser.error(f'--finetune takes a number of renders >= 0 and '
                     f'--finetune-epochs one >= 1, got {args.finetune} and '
                     f'{args.finetune_epochs}')
    return args


def evaluate(checkpoint: Optional[str], arch: str = 'mmidc-tiny-clip',
             num_images: int = 500, seed: int = 0,
             linear_probe: int = 0, finetune: int = 0,
             finetune_epochs: int = 5,
             finetune_attributes=('shape', )) -> dict:
    """Load ``checkpoint`` (None: random weights) into open_clip's ``arch``
    and measure it; with ``linear_probe`` renders, also probe it; with
    ``finetune`` renders, also train a copy of its image tower on each of
    ``finetune_attributes``."""
    import open_clip
    register_model_configs()
    model = open_clip.create_model(arch, pretrained=checkpoint, device='cpu')
    height, width = model.visual.image_size
    mean = model.visual.image_mean or open_clip.OPENAI_DATASET_MEAN
    std = model.visual.image_std or open_clip.OPENAI_DATASET_STD

    def renders(num, render_seed):
        images, objects = zero_shot_renders(num, render_seed,
                                            image_size=(height, width))
        return (to_model_input(images, mean, std),
                [o.to_dict() for o in objects])

    pixels, records = renders(num_images, seed)
    results = attribute_zero_shot(model, open_clip.get_tokenizer(arch),
                                  pixels, records)
    if linear_probe:
        train_pixels, train_records = renders(linear_probe, seed + 1)
        probe = attribute_linear_probe(model, train_pixels, train_records,
                                       pixels, records)
        for attribute, found in probe.items():
            results[attribute].update(linear_probe=found['accuracy'],
                                      num_probe_train=found['num_train'])
    if finetune:
        # other renders than the linear probe's (seed + 1)
        train_pixels, train_records = renders(finetune, seed + 2)
        tuned = attribute_finetune_probe(
            model, train_pixels, train_records, pixels, records,
            {a: list(ATTRIBUTE_PROMPTS[a]) for a in finetune_attributes},
            epochs=finetune_epochs, seed=seed)
        for attribute, found in tuned.items():
            results[attribute].update(finetuned=found['accuracy'],
                                      finetuned_per_epoch=found['per_epoch'],
                                      num_finetune_train=found['num_train'])
    return results


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    results = evaluate(args.checkpoint, args.arch, args.num_images, args.seed,
                       args.linear_probe, args.finetune, args.finetune_epochs,
                       args.finetune_attributes)
    weights = args.checkpoint or f'{args.arch}, random initialisation'
    print(f'zero-shot attribute accuracy of {weights}, {args.num_images} '
          f'held-out single-object renders (seed {args.seed})' +
          (f'; linear probe trained on {args.linear_probe} others (seed '
           f'{args.seed + 1})' if args.linear_probe else '') +
          (f'; fine-tuned probe: {args.finetune_epochs} epochs over '
           f'{args.finetune} others (seed {args.seed + 2})'
           if args.finetune else '') + ':')
    probe = ' linear probe' if args.linear_probe else ''
    tuned = ' fine-tuned' if args.finetune else ''
    print(f'{"attribute":<10} {"accuracy":>9}{probe}{tuned} {"chance":>7}')
    for name, r in results.items():
        probed = (f' {100 * r["linear_probe"]:>11.1f}%'
                  if args.linear_probe else '')
        if args.finetune:
            probed += (f' {100 * r["finetuned"]:>9.1f}%' if 'finetuned' in r
                       else f' {"-":>10}')
        print(f'{name:<10} {100 * r["accuracy"]:>8.1f}%{probed} '
              f'{100 * r["chance"]:>6.1f}%')
    if args.out:
        with open(args.out, 'w') as f:
            json.dump(results, f, indent=1)
    return results


if __name__ == '__main__':
    main()
