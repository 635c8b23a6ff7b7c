"""Regression record: what every model family computes for a fixed seed.

:func:`record` builds each family of :data:`FAMILIES` at a tiny size with
random weights (``torch.manual_seed(seed)`` before each build), runs it on a
fixed synthetic batch and keeps as named tensors its state dict as built
(checkpoint key names, shapes, initial weights) and its outputs: the losses,
the ``'tensor'`` mode output, greedy and beam decoding (with and without the
key/value cache) and the retrieval embeddings and scores. Two records are
compared tensor by tensor, bitwise (:func:`compare`): a refactoring that
moves code without changing behaviour leaves the record equal.

Records are saved as ``.safetensors`` (:func:`save_record`); the predicted
captions go into its metadata. From the repository's root::

    python -m tests.helpers.regression_record work_dirs/record.safetensors
    python -m tests.helpers.regression_record --compare work_dirs/record.safetensors

``--compare FILE`` records again and reports, entry by entry, whether the
new outputs equal the file's bitwise; the exit status is 1 when any differs.
The from-scratch captioner's components come from ``projects/from_scratch``.
"""
import argparse
import contextlib
import copy
import json
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import torch
from mmengine.logging import MMLogger

import mmidc  # noqa: F401  (registers the components)
import projects.from_scratch  # noqa: F401  (the from-scratch captioner's parts)

__all__ = ['FAMILIES', 'record', 'compare', 'save_record', 'load_record',
           'build_family', 'upgrade_state_dicts']

CAPTIONS = ['the red cube changed to blue', 'there is no change',
            'the small sphere has been added', 'the cylinder moved']
CHANGE_TYPES = ['color', 'none', 'add', 'move']

# CLIP4IDC at a test size: 32 px images, 8 px patches, width 32.
_CLIP_ARCH = dict(
    embed_dim=32,
    vision_cfg=dict(image_size=32, layers=3, width=32, head_width=16,
                    patch_size=8),
    text_cfg=dict(context_length=32, vocab_size=49408, width=32, heads=2,
                  layers=1))
# IDC-PCL at a test size: a 3-stage ResNet of 8/16/32 channels on 32x48.
_PCL_SIZE = (32, 48)
_TINY_RESNET = dict(type='mmpretrain.ResNet', depth=18, stem_channels=8,
                    base_channels=8, num_stages=3, strides=(1, 2, 2),
                    dilations=(1, 1, 1), out_indices=(2, ))


def _backbone(**kwargs) -> dict:
    return dict(type='CLIP4IDCBackbone', arch=copy.deepcopy(_CLIP_ARCH),
                num_inter_layers=1, **kwargs)


def _retriever() -> dict:
    return dict(type='CLIP4IDCRetriever', backbone=_backbone(),
                text_encoder=dict(type='CLIPTextEncoder',
                                  arch=copy.deepcopy(_CLIP_ARCH)),
                head=dict(type='ContrastiveAdaptationHead',
                          loss=dict(type='MultiPositiveInfoNCELoss')))


def _captioner() -> dict:
    """The from-scratch recipe's parts: conv stem, difference segment,
    summary neck, bag-of-words head with its word prior (the project's
    ConditionedCaptioner)."""
    return dict(
        type='ConditionedCaptioner',
        backbone=_backbone(
            patch_embed=dict(type='ConvStem', channels=(8, 16, 32)),
            extra_segments=[dict(type='DifferenceSegment', aligned=True,
                                 alignment_stage=1)]),
        neck=dict(type='ChangeSummaryNeck', change_tokens=2),
        aux_head=dict(type='BagOfWordsHead', loss_weight=10.0,
                      word_prior=True),
        head=dict(type='ScratchCaptionHead', hidden=32, num_heads=2,
                  num_encoder_layers=1, num_decoder_layers=1, dropout=0.0,
                  max_length=16, vocab=list(CAPTIONS)))


def _bert_head(**kwargs) -> dict:
    return dict(type='TransformerCaptionHead', hidden=32, num_heads=2,
                num_encoder_layers=2, num_decoder_layers=2, dropout=0.0,
                max_length=16, vocab=list(CAPTIONS), **kwargs)


def _paper_captioner() -> dict:
    return dict(type='CLIP4IDCCaptioner', backbone=_backbone(),
                head=_bert_head(
                    loss=dict(type='PairedSceneCrossEntropyLoss')))


def _clip_ft() -> dict:
    return dict(type='CLIP4IDCCaptioner',
                backbone=dict(_backbone(), num_inter_layers=0),
                head=_bert_head())


def _pcl(kind: str, **overrides) -> dict:
    cfg = dict(
        type=kind, hidden=32,
        feature_encoder=dict(type='PairFeatureEncoder', backbone=_TINY_RESNET,
                             image_size=_PCL_SIZE),
        single_image_encoder=dict(type='SingleImageEncoder', num_heads=2),
        pair_encoder=dict(type='PairEncoder', num_heads=2),
        cross_modal=dict(type='CrossModalTransformer', num_layers=2,
                         num_heads=2, max_length=16, vocab=list(CAPTIONS)))
    cfg.update(overrides)
    return cfg


# the published code's MVCL negatives and FDA batch, as the configs compose them
_PUBLISHED_PCL = dict(
    mvcl_loss=dict(type='PredictedNegativeVisualContrastiveLoss'),
    fda_loss=dict(type='SplitBatchDifferenceAlignmentLoss'))

#: family name -> (model config, batch image size, what to run)
FAMILIES: Dict[str, Tuple[Callable[[], dict], Tuple[int, int], Tuple[str, ...]]] = {
    'clip4idc_retriever': (_retriever, (32, 32), ('loss', 'retrieval')),
    'clip4idc_captioner': (_captioner, (32, 32), ('loss', 'tensor', 'decode')),
    'clip4idc_paper_captioner': (_paper_captioner, (32, 32),
                                 ('loss', 'tensor', 'decode')),
    'clip_ft_captioner': (_clip_ft, (32, 32), ('loss', 'tensor', 'decode')),
    'idc_pcl_pretrainer': (lambda: _pcl('IDCPCLPretrainer', **_PUBLISHED_PCL),
                           _PCL_SIZE, ('tasks', 'tensor')),
    'idc_pcl_cross_task_pretrainer': (
        lambda: _pcl('IDCPCLCrossTaskPretrainer', num_classes=3), _PCL_SIZE,
        ('nabirds', )),
    'idc_pcl_captioner': (
        lambda: _pcl('IDCPCLCaptioner',
                     distractor_loss=dict(type='DistractorJudgingLoss')),
        _PCL_SIZE, ('loss', 'tensor', 'decode')),
}


def build_family(name: str, seed: int = 0) -> torch.nn.Module:
    """The family's model with the seed's random weights."""
    from mmidc.registry import MODELS
    import mmidc.models  # noqa: F401  (registers the components)
    if name not in FAMILIES:
        raise KeyError(f'unknown family {name!r}; expected one of '
                       f'{sorted(FAMILIES)}')
    torch.manual_seed(seed)
    model = MODELS.build(FAMILIES[name][0]())
    return model


def synthetic_batch(image_size: Sequence[int], seed: int = 0,
                    all_captions: bool = False) -> dict:
    """Four pairs of random uint8 images with :data:`CAPTIONS`, as the
    loader yields them (``text_tokens`` ``[L]``, or ``[K, L]`` with
    ``all_captions``)."""
    from mmpretrain.structures import DataSample

    from mmidc.text import clip_tokenizer
    g = torch.Generator().manual_seed(seed)
    tokens = clip_tokenizer()(CAPTIONS, context_length=16)  # [B, 16]
    inputs, samples = [], []
    for i, t in enumerate(tokens):
        inputs.append(torch.randint(0, 256, (2, 3, *image_size), generator=g,
                                    dtype=torch.uint8))
        others = [CAPTIONS[(i + k) % len(CAPTIONS)] for k in (1, 2)]
        ds = DataSample(metainfo=dict(
            pair_id=str(i), change_type=CHANGE_TYPES[i],
            gt_captions=[CAPTIONS[i]], negative_captions=others,
            class_labels=[i % 3, (i + i // 2) % 3], same_class=i in (0, 1)))
        ds.set_field(torch.stack([t, tokens[(i + 1) % 4]]) if all_captions
                     else t, 'text_tokens')
        ds.set_field(tokens[[i, (i + 1) % 4]], 'ref_tokens')
        samples.append(ds)
    return dict(inputs=inputs, data_samples=samples)


#: per family, an end-of-text logit bias that makes the random decoders stop
#: early, so that decoding also records finished sequences and frozen beams
#: (CLIP4IDC: ``scale * [0.25, 0.5, 0.75, 1]`` per pair added to the head's
#: logits by a logits processor, in one sum with the from-scratch family's
#: word prior; IDC-PCL: ``scale`` added to the word predictor's bias).
EOT_BIAS = dict(clip4idc_captioner=1.0, clip4idc_paper_captioner=0.3,
                clip_ft_captioner=0.3, idc_pcl_captioner=0.15)


class _AddBias:
    """A logits processor: ``scores + bias`` (``bias`` ``[B, V]``, each
    sample's row repeated for its beams)."""

    def __init__(self, bias: torch.Tensor):
        self.bias = bias

    def __call__(self, tokens: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        bias = self.bias.repeat_interleave(scores.shape[0] // len(self.bias), 0)
        return scores + bias.to(scores.dtype)


@contextlib.contextmanager
def _eot_bias(model, scale: Optional[float], kwargs: dict):
    """Decoding keywords with the family's end-of-text bias (a copy)."""
    kwargs = dict(kwargs)
    if scale is None:
        yield kwargs
    elif hasattr(model, 'head'):  # CLIP4IDCCaptioner and its subclass
        bias = torch.zeros(4, len(model.head.vocab))
        bias[:, model.head.vocab.eot_id] = scale * torch.tensor([.25, .5, .75, 1.])
        processors = list(kwargs.get('logits_processors', ()))
        if processors:  # the word prior: one sum of the prior and this bias
            prior, = processors
            processors = [type(prior)(prior.bias + bias)]
        else:
            processors = [_AddBias(bias)]
        kwargs['logits_processors'] = processors
        yield kwargs
    else:  # IDCPCLCaptioner: shift its word bias for a while
        cm = model.cross_modal
        saved = cm.lm_bias.detach().clone()
        cm.lm_bias.data[cm.vocab.eot_id] += scale
        try:
            yield kwargs
        finally:
            cm.lm_bias.data.copy_(saved)


def _decode_outputs(name: str, model, data: dict, out: dict,
                    captions: dict) -> None:
    inputs = data['inputs']
    memory, kwargs = model.decoder_inputs(inputs)
    args, decoder = (memory, ), model.caption_decoder
    for suffix, scale in (('', None), ('_eot', EOT_BIAS[name])):
        for cache in (True, False):
            with _eot_bias(model, scale, kwargs) as kw:
                runs = dict(
                    greedy=decoder.greedy_decode(*args, use_cache=cache, **kw),
                    beam=decoder.beam_search(*args, beam_size=3,
                                             use_cache=cache, **kw))
            for strategy, res in runs.items():
                key = f'{name}/{strategy}{suffix}{"" if cache else "_nocache"}'
                out[f'{key}/tokens'] = res.tokens
                out[f'{key}/mean_logprob'] = res.mean_logprob
                out[f'{key}/score'] = res.score
    for strategy in ('greedy', 'beam'):
        samples = model.predict(inputs, copy.deepcopy(data['data_samples']),
                                strategy=strategy)
        captions[f'{name}/predict_{strategy}'] = [ds.pred_caption for ds in samples]
        out[f'{name}/predict_{strategy}/pred_score'] = torch.tensor(
            [ds.pred_score for ds in samples], dtype=torch.float64)


def _record_family(name: str, seed: int, out: dict, captions: dict) -> None:
    _, size, runs = FAMILIES[name]
    model = build_family(name, seed)
    for key, value in model.state_dict().items():  # names, shapes, init
        out[f'{name}/state_dict/{key}'] = value
    batch = synthetic_batch(size, seed)
    model.train()
    torch.manual_seed(seed)
    data = model.data_preprocessor(copy.deepcopy(batch), True)
    if 'loss' in runs:
        torch.manual_seed(seed)
        for key, value in model(**data, mode='loss').items():
            out[f'{name}/loss/{key}'] = value.detach()
    if 'tasks' in runs:
        for task in model.tasks:
            torch.manual_seed(seed)
            losses = model.loss(data['inputs'], data['data_samples'], task)
            for key, value in losses.items():
                out[f'{name}/{task}/{key}'] = value.detach()
    if 'nabirds' in runs:
        torch.manual_seed(seed)
        for key, value in model.nabirds_loss_of(**data).items():
            out[f'{name}/nabirds/{key}'] = value.detach()
    model.eval()
    with torch.no_grad():
        if 'tensor' in runs:
            out[f'{name}/tensor'] = model(**data, mode='tensor')
        if 'decode' in runs:
            _decode_outputs(name, model, data, out, captions)
        if 'retrieval' in runs:
            data = model.data_preprocessor(synthetic_batch(size, seed, True), False)
            samples = model(**data, mode='predict')
            pairs = torch.stack([ds.pair_embedding for ds in samples])  # [B, D]
            texts = torch.cat([ds.text_embeddings for ds in samples])  # [BK, D]
            out[f'{name}/pair_embedding'] = pairs
            out[f'{name}/text_embeddings'] = texts
            out[f'{name}/scores'] = pairs @ texts.t()


@contextlib.contextmanager
def _one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # reductions in one fixed order
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def record(seed: int = 0, families: Optional[Sequence[str]] = None
           ) -> Tuple[Dict[str, torch.Tensor], Dict[str, List[str]]]:
    """Record the families' outputs (all of :data:`FAMILIES` by default).

    Returns:
        tuple[dict, dict]: ``{'<family>/<output>': tensor}`` and the
        predicted captions ``{'<family>/predict_<strategy>': [str]}``.
    """
    out, captions = {}, {}
    with _one_thread():
        for name in families or FAMILIES:
            _record_family(name, seed, out, captions)
    return {k: v.detach().cpu().clone() for k, v in out.items()}, captions


def save_record(tensors: Dict[str, torch.Tensor], captions: dict,
                path: str) -> None:
    """Write a record to a ``.safetensors`` file (captions as metadata)."""
    from safetensors.torch import save_file
    save_file(tensors, path, metadata={'captions': json.dumps(captions)})


def load_record(path: str) -> Tuple[Dict[str, torch.Tensor], dict]:
    """Read a record written by :func:`save_record`."""
    from safetensors import safe_open
    try:
        with safe_open(path, framework='pt') as f:
            tensors = {k: f.get_tensor(k) for k in f.keys()}
            metadata = f.metadata() or {}
    except Exception as err:
        raise ValueError(f'could not read the regression record {path!r}: '
                         f'{err}') from err
    return tensors, json.loads(metadata.get('captions', '{}'))


def upgrade_state_dicts(tensors: Dict[str, torch.Tensor]
                        ) -> Dict[str, torch.Tensor]:
    """A record with each family's ``state_dict/`` entries renamed to the
    current layout (the fused ``qkv`` attention of IDC-PCL's earlier
    layers split, :func:`~mmidc.models.layers.upgrade_fused_qkv`; the NABirds
    task's linear layers of the cross-task pre-trainer moved into its heads);
    the other entries as they are."""
    from mmidc.models.idc_pcl import IDCPCLCrossTaskPretrainer
    from mmidc.models.layers.transformer_layers import upgrade_fused_qkv
    out, states = {}, {}
    for key, value in tensors.items():
        family, sep, name = key.partition('/state_dict/')
        if sep:
            states.setdefault(family, {})[name] = value
        else:
            out[key] = value
    for family, state in states.items():
        for name, value in upgrade_fused_qkv(state).items():
            if family == 'idc_pcl_cross_task_pretrainer':
                for old, new in IDCPCLCrossTaskPretrainer._OLD_HEAD_PREFIXES.items():
                    if name.startswith(old):
                        name = new + name[len(old):]
            out[f'{family}/state_dict/{name}'] = value
    return out


def compare(old: Tuple[dict, dict], new: Tuple[dict, dict]) -> List[Tuple[str, str]]:
    """Compare two records bitwise, entry by entry.

    The old record's state dicts are first renamed as loading them into the
    current model renames a checkpoint's keys (:func:`upgrade_state_dicts`),
    so a deliberate rename compares the moved tensors, not their names.

    Returns:
        list[tuple[str, str]]: ``(name, verdict)`` for every entry of either
        record, verdict ``'equal'`` or why not (missing, new, dtype, shape,
        how many elements differ and by how much at most).
    """
    (old_t, old_c), (new_t, new_c) = old, new
    old_t = upgrade_state_dicts(old_t)
    report = []
    for key in sorted(set(old_t) | set(new_t)):
        if key not in new_t:
            report.append((key, 'missing from the new record'))
        elif key not in old_t:
            report.append((key, 'new in this record'))
        else:
            report.append((key, _tensor_verdict(old_t[key], new_t[key])))
    for key in sorted(set(old_c) | set(new_c)):
        a, b = old_c.get(key), new_c.get(key)
        verdict = 'equal' if a == b else f'captions differ: {a} -> {b}'
        report.append((f'{key}/captions', verdict))
    return report


def _tensor_verdict(a: torch.Tensor, b: torch.Tensor) -> str:
    if a.dtype != b.dtype:
        return f'dtype differs: {a.dtype} -> {b.dtype}'
    if a.shape != b.shape:
        return f'shape differs: {tuple(a.shape)} -> {tuple(b.shape)}'
    floats = a.is_floating_point()
    if floats:  # bitwise: the same bytes (NaN == NaN, -0 != 0)
        bits = _INT_OF[a.element_size()]
        differ = a.view(bits) != b.view(bits)
    else:
        differ = a != b
    if not differ.any():
        return 'equal'
    verdict = f'{int(differ.sum())} of {a.numel()} elements differ'
    if floats:
        verdict += f' (max abs difference {(a - b).abs().max().item():.3g})'
    return verdict


_INT_OF = {2: torch.int16, 4: torch.int32, 8: torch.int64}


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('out', nargs='?', help='the record to write (.safetensors)')
    parser.add_argument('--compare', metavar='FILE',
                        help='compare a new record with FILE instead')
    parser.add_argument('--seed', type=int, default=0)
    parser.add_argument('--families', nargs='+', choices=sorted(FAMILIES),
                        help='record only these (default: all)')
    args = parser.parse_args(argv)
    if bool(args.out) == bool(args.compare):
        parser.error('give either an output file or --compare FILE')
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    MMLogger.get_current_instance().setLevel('WARNING')  # build messages
    old = load_record(args.compare) if args.compare else None
    new = record(args.seed, args.families)
    if old is None:
        save_record(*new, args.out)
        print(f'{len(new[0])} tensors of {len(args.families or FAMILIES)} '
              f'families written to {args.out}')
        return 0
    if args.families:  # compare only the families recorded
        old = tuple({k: v for k, v in part.items()
                     if k.split('/', 1)[0] in args.families} for part in old)
    report = compare(old, new)
    differ = [(k, v) for k, v in report if v != 'equal']
    for key, verdict in differ:
        print(f'DIFFERENT {key}: {verdict}')
    print(f'{len(report) - len(differ)} of {len(report)} entries bitwise '
          f'equal to {args.compare}')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main())
