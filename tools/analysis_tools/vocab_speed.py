"""Training-step time of the caption head: full CLIP vocabulary vs restricted.

Times forward + backward + Adam step of a ``TransformerCaptionHead`` on random
memory tokens, once with the full 49,408-way softmax and once with a
vocabulary restricted to the tokens of CLEVR-Change-style captions (or of a
``--vocab`` file written by ``tools/dataset_converters/build_vocab.py``)::

    python tools/analysis_tools/vocab_speed.py --threads 2
    python tools/analysis_tools/vocab_speed.py --device cuda --amp

The benchmark harness can call :func:`step_time` directly.
"""
import argparse
import itertools
import time

import torch

from mmidc.models.heads import TransformerCaptionHead
from mmidc.text import CaptionVocab, build_caption_vocab, clip_tokenizer


def clevr_like_captions() -> list:
    """Captions over the CLEVR-Change vocabulary (see the reference facts)."""
    colours = 'blue brown cyan gray green purple red yellow'.split()
    shapes = 'ball block cube cylinder sphere object thing'.split()
    sizes = 'big large small tiny'.split()
    materials = 'matte metal metallic rubber shiny'.split()
    forms = ['the {s} {c} {o} changed to {c2}', 'the {s} {m} {o} has been added',
             'the {c} {o} is missing', 'the {s} {o} left of the {c} {o} moved',
             'the {c} {o} behind the {m} {o} is in a different location',
             'the {c} {o} in front of the {o} has disappeared', 'there is no change',
             'the scene remains the same', 'nothing has changed']
    captions = []
    for c, o, s, m in itertools.product(colours, shapes, sizes, materials):
        captions += [f.format(s=s, c=c, o=o, c2=colours[0], m=m) for f in forms]
    return captions


def step_time(vocab: CaptionVocab, batch_size: int = 32, memory_tokens: int = 100,
              caption_len: int = 32, hidden: int = 512, layers: int = 3,
              steps: int = 10, warmup: int = 2, device: str = 'cpu',
              amp: bool = False) -> dict:
    """Mean seconds per training step (forward, backward, Adam) of the head.

    Returns ``dict(wall_s=..., cpu_s=...)``: wall-clock and process CPU time
    per step (on a shared machine with one thread, CPU time is the steadier).
    """
    head = TransformerCaptionHead(memory_dim=hidden, hidden=hidden,
                                  num_encoder_layers=layers, num_decoder_layers=layers,
                                  max_length=caption_len, max_memory_tokens=memory_tokens,
                                  vocab=vocab).to(device).train()
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-4)
    memory = torch.randn(batch_size, memory_tokens, hidden, device=device)
    words = vocab.clip_ids[vocab.clip_ids > 0].tolist()  # real tokens (no pad/unk)
    tokens = torch.tensor(words, device=device)[
        torch.randint(len(words), (batch_size, caption_len), device=device)]
    tokens[:, 0] = clip_tokenizer().sot_token_id
    amp_dtype = torch.bfloat16
    wall, cpu = [], []
    for i in range(warmup + steps):
        if device.startswith('cuda'):
            torch.cuda.synchronize()
        start, start_cpu = time.perf_counter(), time.process_time()
        with torch.autocast(device.split(':')[0], dtype=amp_dtype, enabled=amp):
            loss = head.loss(memory, tokens)['loss_caption']
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.startswith('cuda'):
            torch.cuda.synchronize()
        if i >= warmup:
            wall.append(time.perf_counter() - start)
            cpu.append(time.process_time() - start_cpu)
    return dict(wall_s=sum(wall) / len(wall), cpu_s=sum(cpu) / len(cpu))


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
