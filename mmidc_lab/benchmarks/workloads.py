"""CLIP4IDC workloads of the speed benchmark.

Builds the models of a config without pretrained weights (speed does not
depend on the values), makes synthetic batches in the pipeline's output
format, runs MMEngine training steps (fp32 or bf16 autocast), and decodes
captions two ways:

- *cached*: the vision encoder and the caption encoder run once, the
  decoder keeps a key/value cache and processes one new token per step
  (what :meth:`ScratchCaptionHead.greedy_decode` does);
- *reference-style*: every step re-runs the vision encoder, the caption
  encoder and the decoder over the whole prefix, with no cache (what the
  public CLIP4IDC code does).

Both decode loops run exactly ``steps`` steps (no early stop at
end-of-text), so their cost does not depend on what random weights emit.
"""
import copy
import time
from typing import Dict

import torch
from mmengine.config import Config
from mmengine.optim import OptimWrapper
from mmengine.registry import init_default_scope
from mmpretrain.structures import DataSample

from mmidc.text import EOT_ID, SOT_ID, clip_tokenizer
from .measure import synchronize

__all__ = ['build_benchmark_model', 'input_size', 'synthetic_batch',
           'build_optim_wrapper', 'decode_timed', 'disable_dropout',
           'normalised_inputs']


def build_benchmark_model(config: str, vocab=None) -> torch.nn.Module:
    """The ``model`` of a config file, randomly initialised.

    ``pretrained`` and ``init_backbone_from`` are dropped; ``vocab``
    (anything ``ScratchCaptionHead(vocab=...)`` takes) replaces a
    captioner head's vocabulary when given.
    """
    import mmidc  # noqa: F401  (registers the models)
    from mmidc.registry import MODELS
    init_default_scope('mmidc')
    from mmidc.utils.config_placeholders import fill_placeholders
    full = Config.fromfile(config)
    fill_placeholders(full)  # '{vocab_file}', '{adapt_work_dir}/...'
    cfg = copy.deepcopy(full.model)
    cfg.pop('pretrained', None)
    cfg.pop('init_backbone_from', None)
    if vocab is not None:
        if 'head' not in cfg or not cfg['type'].endswith('Captioner'):
            raise ValueError(f'{config}: vocab is only for captioner configs')
        cfg['head']['vocab'] = vocab
    return MODELS.build(cfg)


def input_size(model: torch.nn.Module) -> tuple:
    """``(H, W)`` the model's backbone was built for."""
    backbone = model.backbone
    return (backbone.grid_size[0] * backbone.patch_size[0],
            backbone.grid_size[1] * backbone.patch_size[1])


def synthetic_batch(model: torch.nn.Module, batch_size: int,
                    context_length: int = 32, caption_tokens: int = 12,
                    seed: int = 0) -> Dict:
    """A packed batch as the data loader yields it, from random tensors.

    ``inputs``: ``batch_size`` uint8 ``[2, 3, H, W]`` pairs; each data
    sample's ``text_tokens`` ``[L]`` is ``<sot>``, ``caption_tokens`` ids
    from the model's output vocabulary (all of CLIP's for the retriever),
    ``<eot>`` and padding; its ``gt_captions`` is that caption's text and
    its ``ref_tokens`` ``[1, L]`` the same tokens.
    """
    gen = torch.Generator().manual_seed(seed)
    H, W = input_size(model)
    inputs = torch.randint(0, 256, (batch_size, 2, 3, H, W), dtype=torch.uint8,
                           generator=gen)
    head_vocab = getattr(getattr(model, 'head', None), 'vocab', None)
    if head_vocab is not None and len(head_vocab) < 49408:
        words = head_vocab.clip_ids[head_vocab.clip_ids > 0]
        words = words[(words != SOT_ID) & (words != EOT_ID)]
    else:
        words = torch.arange(1, SOT_ID)
    samples = []
    for _ in range(batch_size):
        tokens = torch.zeros(context_length, dtype=torch.long)
        tokens[0] = SOT_ID
        pick = torch.randint(len(words), (caption_tokens, ), generator=gen)
        tokens[1:caption_tokens + 1] = words[pick]
        tokens[caption_tokens + 1] = EOT_ID
        # the reference as PackIDCInputs packs it (ref_tokens: read by an
        # auxiliary head such as BagOfWordsHead)
        caption = clip_tokenizer().decode(words[pick].tolist())
        sample = DataSample(metainfo=dict(gt_captions=[caption]))
        sample.set_field(tokens, 'text_tokens')
        sample.set_field(tokens[None], 'ref_tokens')  # [K=1, L]
        samples.append(sample)
    return dict(inputs=list(inputs), data_samples=samples)


def build_optim_wrapper(model: torch.nn.Module, dtype: str = 'fp32',
                        lr: float = 1e-4, fused: bool = False,
                        clip_grad: bool = True) -> OptimWrapper:
    """AdamW, with gradient clipping to norm 1 unless ``clip_grad=False``
    (the configs clip); bf16 autocast or fp32.

    ``fused=True`` is PyTorch's fused AdamW kernel (one pass over all
    parameters) instead of the default per-parameter loop on CPU.
    """
    from mmidc.engine import AutocastOptimWrapper
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.05,
                                  fused=fused or None)
    clip_grad = dict(max_norm=1.0) if clip_grad else None
    if dtype == 'fp32':
        return OptimWrapper(optimizer=optimizer, clip_grad=clip_grad)
    if dtype == 'bf16':
        return AutocastOptimWrapper(dtype='bfloat16', optimizer=optimizer,
                                    clip_grad=clip_grad)
    raise ValueError(f"dtype must be 'fp32' or 'bf16', got {dtype!r}")


@torch.no_grad()
def decode_timed(model: torch.nn.Module, inputs: torch.Tensor, steps: int = 31,
                 use_cache: bool = True) -> Dict:
    """Greedy-decode ``steps`` tokens for normalised ``[B, 2, 3, H, W]`` pairs.

    Returns ``dict(tokens=[B, steps], vision_s, caption_encoder_s,
    decoder_s, total_s)``: seconds spent in the vision encoder (backbone),
    the caption head's encoder (+ cross-attention keys/values) and the
    decoder steps (+ log-softmax and argmax). ``use_cache=False`` is the
    reference-style loop: all three re-run at every step.
    """
    head = model.head
    B = inputs.shape[0]
    tokens = torch.full((B, 1), SOT_ID, dtype=torch.long, device=inputs.device)
    tokens = head.vocab.to_compact(tokens)  # [B, 1]
    spent = dict(vision_s=0.0, caption_encoder_s=0.0, decoder_s=0.0)

    def clock() -> float:
        synchronize(inputs.device.type)  # CUDA: the work queued so far is done
        return time.perf_counter()

    def encode():
        start = clock()
        memory = model.extract_feat(inputs)  # [B, 2(n+1), D]
        mid = clock()
        cross_kv = head.cross_kv(head.encode(memory))
        end = clock()
        spent['vision_s'] += mid - start
        spent['caption_encoder_s'] += end - mid
        return cross_kv

    cross_kv = encode() if use_cache else None
    caches = [dict() for _ in head.decoder] if use_cache else None
    for t in range(steps):
        if not use_cache:
            cross_kv = encode()
        start = clock()
        if use_cache:  # the newest token only; earlier ones are cached
            logits = head.decode_step(tokens[:, -1:], cross_kv, caches, start=t)
        else:  # the whole prefix
            logits = head.decode_step(tokens, cross_kv)
        word = head._log_probs(logits[:, -1], tokens).argmax(-1)  # [B]
        tokens = torch.cat([tokens, word[:, None]], dim=1)  # [B, t+2]
        spent['decoder_s'] += clock() - start
    spent['total_s'] = sum(spent.values())
    return dict(tokens=tokens[:, 1:], **spent)


def disable_dropout(model: torch.nn.Module) -> torch.nn.Module:
    """Set every dropout probability to 0 (``nn.Dropout`` and attention
    modules with a float ``dropout`` attribute), to measure its cost."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
        elif isinstance(getattr(module, 'dropout', None), float):
            module.dropout = 0.0
    return model


def normalised_inputs(model: torch.nn.Module, batch: Dict) -> torch.Tensor:
    """The data preprocessor's ``[B, 2, 3, H, W]`` float inputs of a batch."""
    return model.data_preprocessor(batch, training=False)['inputs']
