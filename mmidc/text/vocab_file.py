"""The caption vocabulary file: the CLIP ids of a data set's training
captions, written once before training and read by the caption decoders.

``tools/dataset_converters/build_vocab.py`` writes it (the synthetic
generator writes its own sets' file); each data-set base config names it
(``vocab_file``, ``<data_root>/caption_vocab_train.json``) and a captioning
config passes it to its decoder (``vocab=_base_.vocab_file``). Its content::

    {"source": "CLEVR-Change data/clevr_change (train)", "num_captions": N,
     "captions_sha256": "...", "clip_ids": [...]}

``clip_ids`` are the sorted CLIP ids of every token of the captions (with
start and end of text); :class:`~mmidc.text.CaptionVocab` reads them.
"""
import copy
import hashlib
import os.path as osp
from typing import List, Optional, Sequence, Union

from mmengine.logging import print_log

from .caption_vocab import CaptionVocab, build_caption_vocab, iter_captions

__all__ = ['vocab_file_name', 'default_vocab_file', 'caption_datasets',
           'config_vocab_file', 'write_vocab_file', 'ensure_vocab_file',
           'captions_key']


def captions_key(captions: Sequence[str]) -> str:
    """SHA-256 of the captions, in order (recorded in a vocabulary file)."""
    digest = hashlib.sha256()
    for caption in captions:
        digest.update(caption.encode('utf-8'))
        digest.update(b'\0')
    return digest.hexdigest()


def vocab_file_name(split: str = 'train') -> str:
    """The vocabulary file's name in a data root: ``caption_vocab_<split>.json``."""
    return f'caption_vocab_{split}.json'


def default_vocab_file(dataset) -> str:
    """``<data_root>/caption_vocab_<split>.json`` of a data set: its
    ``split``, else the name of its annotation file (``train.jsonl`` ->
    ``train``)."""
    split = getattr(dataset, 'split', None)
    if split is None:
        split = osp.splitext(osp.basename(dataset.ann_file))[0] or 'train'
    root = dataset.data_root or osp.dirname(dataset.ann_file)
    return osp.join(root, vocab_file_name(split))


def _leaves(dataset_cfg: dict) -> List[dict]:
    if 'datasets' in dataset_cfg:  # ConcatDataset
        return [leaf for part in dataset_cfg['datasets'] for leaf in _leaves(part)]
    if 'dataset' in dataset_cfg:  # RepeatDataset and other wrappers
        return _leaves(dataset_cfg['dataset'])
    return [dataset_cfg]


def caption_datasets(cfg) -> List[dict]:
    """The data sets of a config's training loader whose captions the model
    reads: those whose pipeline tokenises captions (``TokenizeCaptions``;
    all of them when none does), wrappers unwrapped, pipelines dropped."""
    leaves = _leaves(copy.deepcopy(cfg['train_dataloader']['dataset']))
    captioned = [d for d in leaves if any(
        str(t.get('type', '')).endswith('TokenizeCaptions')
        for t in d.get('pipeline') or [] if isinstance(t, dict))]
    return [dict(d, pipeline=[]) for d in captioned or leaves]


def _vocab_options(node) -> List[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k == 'vocab' and isinstance(v, str)]
        return found + [p for v in node.values() for p in _vocab_options(v)]
    if isinstance(node, (list, tuple)):
        return [p for v in node for p in _vocab_options(v)]
    return []


def config_vocab_file(cfg) -> Optional[str]:
    """The vocabulary file a config names: its model's ``vocab`` option when
    that is a ``.json`` file, else the config's ``vocab_file`` (None when it
    names none).

    Raises:
        ValueError: the model names several vocabulary files.
    """
    files = sorted({p for p in _vocab_options(cfg.get('model', {}))
                    if p.endswith('.json')})
    if len(files) > 1:
        raise ValueError(f'the model names several vocabulary files: {files}')
    return files[0] if files else cfg.get('vocab_file')


def write_vocab_file(source: Union[dict, object, Sequence],
                     out: Optional[str] = None,
                     source_name: Optional[str] = None) -> str:
    """Build the caption vocabulary of ``source`` and write it to ``out``.

    Args:
        source: a data set or data-set config (annotations only are read:
            its pipeline is dropped), a list of them (their captions
            together), or a list of caption strings.
        out (str, optional): the file. Defaults to the first data set's
            :func:`default_vocab_file`.
        source_name (str, optional): where the captions come from, recorded
            in the file. Defaults to the data sets' annotation sources.

    Returns:
        str: the file written.
    """
    parts = list(source) if isinstance(source, (list, tuple)) else [source]
    if parts and all(isinstance(p, str) for p in parts):
        datasets, captions = [], parts
    else:
        datasets = [_build_dataset(p) for p in parts]
        captions = [c for d in datasets for c in iter_captions(d)]
        if not all(isinstance(c, str) for c in captions):
            raise TypeError('write_vocab_file: expected data sets whose '
                            'gt_captions are strings')
    if out is None:
        if not datasets:
            raise ValueError('write_vocab_file: give out= for a list of captions')
        out = default_vocab_file(datasets[0])
    if source_name is None:
        source_name = ' + '.join(
            d.annotation_source() if hasattr(d, 'annotation_source')
            else type(d).__name__ for d in datasets) or 'captions'
    vocab: CaptionVocab = build_caption_vocab(captions)
    vocab.save(out, meta=dict(source=source_name, num_captions=len(captions),
                              captions_sha256=captions_key(captions)))
    print_log(f'wrote {out}: the caption vocabulary of {source_name}',
              logger='current')
    return out


def ensure_vocab_file(dataset) -> str:
    """A data set's :func:`default_vocab_file`, written first when it is
    not there (data preparation steps call it before training).

    Args:
        dataset: a data set or data-set config.
    """
    dataset = _build_dataset(dataset)
    out = default_vocab_file(dataset)
    return out if osp.isfile(out) else write_vocab_file(dataset, out)


def _build_dataset(dataset):
    if not isinstance(dataset, dict):
        return dataset
    import mmidc.datasets  # noqa: F401  (registers the data sets)
    from mmidc.registry import DATASETS
    return DATASETS.build(dict(dataset, pipeline=[]))
