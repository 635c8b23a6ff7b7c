"""Training-step time of the caption head: full CLIP vocabulary vs restricted.

Times forward + backward + Adam step of the from-scratch project's
``ScratchCaptionHead`` on random memory tokens, once with the full
49,408-way softmax and once with a vocabulary restricted to the tokens of
CLEVR-Change-style captions (or of a ``--vocab`` file written by
``CaptionVocab.save``)::

    python -m mmidc_lab.vocab_speed --threads 2
    python -m mmidc_lab.vocab_speed --device cuda --amp
"""
import argparse

import torch

import mmidc  # noqa: F401  (registers the components)
import projects.from_scratch  # noqa: F401  (registers the head)
from mmidc_lab.benchmarks.vocab_speed import clevr_like_captions, step_time
from mmidc.text import CaptionVocab, build_caption_vocab


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--vocab', help='restricted vocab (.json or checkpoint); '
                        'default: built from CLEVR-like captions')
    parser.add_argument('--batch-size', type=int, default=32)
    parser.add_argument('--memory-tokens', type=int, default=100)
    parser.add_argument('--caption-len', type=int, default=32)
    parser.add_argument('--hidden', type=int, default=512)
    parser.add_argument('--layers', type=int, default=3)
    parser.add_argument('--steps', type=int, default=5)
    parser.add_argument('--warmup', type=int, default=1)
    parser.add_argument('--threads', type=int, default=None)
    parser.add_argument('--device', default='cpu')
    parser.add_argument('--amp', action='store_true', help='bf16 autocast')
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    restricted = (CaptionVocab.from_file(args.vocab) if args.vocab
                  else build_caption_vocab(clevr_like_captions()))
    kwargs = dict(batch_size=args.batch_size, memory_tokens=args.memory_tokens,
                  caption_len=args.caption_len, hidden=args.hidden, layers=args.layers,
                  steps=args.steps, warmup=args.warmup, device=args.device, amp=args.amp)
    print(f'head: hidden {args.hidden}, {args.layers}+{args.layers} layers, batch '
          f'{args.batch_size}, {args.memory_tokens} memory tokens, caption length '
          f'{args.caption_len}, {args.device}, {"bf16 autocast" if args.amp else "fp32"}, '
          f'{torch.get_num_threads()} threads')
    results = {}
    for name, vocab in [('full', CaptionVocab()), ('restricted', restricted)]:
        results[name] = step_time(vocab, **kwargs)
        print(f'{name:>10} vocab ({len(vocab):>5} ids): '
              f'{results[name]["wall_s"] * 1e3:8.1f} ms/step wall, '
              f'{results[name]["cpu_s"] * 1e3:8.1f} ms/step CPU')
    for key in 'wall_s', 'cpu_s':
        print(f'speed-up ({key[:-2]}): '
              f'{results["full"][key] / results["restricted"][key]:.2f}x')


if __name__ == '__main__':
    main()
