"""The caption vocabulary file: the CLIP ids of a data set's training
captions, written once before training and read by the caption decoders.

``tools/dataset_converters/build_vocab.py`` writes it (the synthetic
generator writes its own sets' file); each data-set base config names it
(``vocab_file``, ``<data_root>/caption_vocab_train.json``) and a captioning
config passes it to its decoder (``vocab=_base_.vocab_file``). Its content::

    {"source": "CLEVR-Change data/clevr_change (train)", "num_captions": N,
     "captions_sha256": "...", "clip_ids": [...]}

``clip_ids`` are the sorted CLIP ids of every token of the captions (with
start and end of text); :class:`~mmidc.text.CaptionVocab` reads them
(:func:`~mmidc.text.caption_vocab.read_vocab_ids` checks their form).
Before training, :func:`check_vocab_covers` checks that the file holds the
tokens of the captions the model trains on: a file of other captions is an
error naming the share of tokens it lacks (a few missing: a warning).
"""
import copy
import hashlib
import os.path as osp
from collections import Counter
from typing import List, Optional, Sequence, Tuple, Union

from mmengine.logging import print_log

from .caption_vocab import (VOCAB_TOOL, CaptionVocab, build_caption_vocab,
                            iter_captions, read_vocab_ids)
from .clip_tokenizer import clip_tokenizer
from .text_files import load_json

__all__ = ['vocab_file_name', 'default_vocab_file', 'caption_datasets',
           'config_vocab_file', 'model_vocab_files', 'write_vocab_file',
           'ensure_vocab_file', 'captions_key', 'training_captions',
           'unknown_token_share',
           'check_vocab_covers', 'MAX_UNKNOWN_SHARE']

#: The largest share of training-caption tokens a vocabulary file may miss
#: (:func:`check_vocab_covers`): more is a vocabulary of other captions.
MAX_UNKNOWN_SHARE = 0.05


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


def model_vocab_files(cfg) -> List[str]:
    """The vocabulary files (``.json``) a config's model names in its
    ``vocab`` options (none for a model without a restricted vocabulary)."""
    return sorted({p for p in _vocab_options(cfg.get('model') or {})
                   if p.endswith('.json')})


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


def training_captions(cfg) -> Tuple[List[str], str]:
    """The captions a config's model trains on (its :func:`caption_datasets`,
    built from their annotations), and where they come from.

    Returns:
        tuple: the captions, in order, and their sources' names.
    """
    datasets = [_build_dataset(d) for d in caption_datasets(cfg)]
    captions = [c for d in datasets for c in iter_captions(d)]
    source = ' + '.join(
        d.annotation_source() if hasattr(d, 'annotation_source')
        else type(d).__name__ for d in datasets)
    return captions, source


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


def unknown_token_share(vocab_ids: Sequence[int], captions: Sequence[str],
                        max_captions: int = 5000
                        ) -> Tuple[float, int, List[str]]:
    """How many of the captions' tokens a vocabulary lacks.

    Args:
        vocab_ids (Sequence[int]): The vocabulary's CLIP ids.
        captions (Sequence[str]): The captions (at most ``max_captions`` of
            them, evenly spaced, are tokenised).
        max_captions (int): Defaults to 5000.

    Returns:
        tuple: the share of the tokens that are not in the vocabulary, the
        number of tokens counted and the most frequent missing ones (up to
        10, as text).
    """
    step = max(1, -(-len(captions) // max_captions))
    tokenizer, known = clip_tokenizer(), set(vocab_ids)
    counts, total = Counter(), 0
    for caption in captions[::step]:
        ids = tokenizer.encode(caption)
        total += len(ids)
        counts.update(i for i in ids if i not in known)
    missing = sum(counts.values())
    words = [tokenizer.decode([i]).strip() for i, _ in counts.most_common(10)]
    return (missing / total if total else 0.0), total, words


def check_vocab_covers(path: str, captions: Sequence[str], source: str,
                       max_unknown: float = MAX_UNKNOWN_SHARE) -> float:
    """Check that a vocabulary file holds the tokens of the captions a model
    trains on.

    A vocabulary written from other captions (another data set, another
    split) turns the missing tokens into ``<unk>``: the model learns to
    write nothing else for them. The file's ``captions_sha256`` equal to
    the captions' (:func:`captions_key`) is a match without tokenising.

    Args:
        path (str): The vocabulary file (its form is checked too:
            :func:`~mmidc.text.caption_vocab.read_vocab_ids`).
        captions (Sequence[str]): The training captions.
        source (str): Where they come from, for the messages.
        max_unknown (float): The largest share of missing tokens allowed;
            a smaller share is logged as a warning. Defaults to
            :data:`MAX_UNKNOWN_SHARE`.

    Returns:
        float: the share of the captions' tokens missing.

    Raises:
        ValueError: more than ``max_unknown`` of the tokens are missing,
            naming the file, the share and the command that writes the
            right file.
    """
    ids = read_vocab_ids(path)
    content = load_json(path, 'caption vocabulary file')
    if (isinstance(content, dict) and content.get('captions_sha256')
            == captions_key(captions)):
        return 0.0
    share, total, words = unknown_token_share(ids, captions)
    if share == 0:
        return share
    built_from = (f' (written from {content["source"]})' if isinstance(
        content, dict) and isinstance(content.get('source'), str) else '')
    message = (f'{path}: {share:.1%} of the tokens of the training captions '
               f'of {source} ({total} tokens counted) are not in this caption '
               f'vocabulary{built_from}, e.g. {", ".join(map(repr, words))}; '
               'the model learns <unk> for them. Write the vocabulary of the '
               f'training captions with\n  python {VOCAB_TOOL} CONFIG')
    if share > max_unknown:
        raise ValueError(message)
    print_log(message, logger='current', level=30)
    return share
