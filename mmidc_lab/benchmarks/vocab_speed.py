"""Training-step time of the caption head: full CLIP vocabulary vs restricted.

:func:`step_time` times forward + backward + Adam step of a caption head
(:data:`HEAD`) on random memory tokens; with the full 49,408-way softmax and
with a vocabulary restricted to the tokens of CLEVR-Change-style captions
(:func:`clevr_like_captions`) it prices the softmax
(``python -m mmidc_lab.vocab_speed``, the benchmark's ``vocab`` section).
"""
import itertools
import time

import torch

from mmidc.registry import MODELS
from mmidc.text import CaptionVocab, clip_tokenizer

__all__ = ['HEAD', 'clevr_like_captions', 'step_time']

#: The head priced: the from-scratch project's captioner, whose output matrix
#: is its own word embedding, one row per vocabulary id. Registered by
#: ``projects.from_scratch``, which the benchmark's tools import.
HEAD = dict(type='ScratchCaptionHead')


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
              amp: bool = False, head: dict = HEAD) -> dict:
    """Mean seconds per training step (forward, backward, Adam) of the head.

    ``head`` is the head's registered type (and any more arguments); the
    sizes and ``vocab`` are set here.

    Returns ``dict(wall_s=..., cpu_s=...)``: wall-clock and process CPU time
    per step (on a shared machine with one thread, CPU time is the steadier).
    """
    head = MODELS.build(dict(
        head, memory_dim=hidden, hidden=hidden, num_encoder_layers=layers,
        num_decoder_layers=layers, max_length=caption_len,
        max_memory_tokens=memory_tokens, vocab=vocab)).to(device).train()
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
