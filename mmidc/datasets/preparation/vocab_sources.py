"""Where a caption vocabulary comes from: the data sets of a config whose
captions a model trains on, built from their annotations.

The file's form and its writer from a list of captions are
:mod:`mmidc.text.vocab_file`'s; this module finds the captions.
``tools/dataset_converters/build_vocab.py`` writes a config's file with
:func:`write_dataset_vocab_file`; data preparation steps call
:func:`ensure_vocab_file`; the checks before training read
:func:`training_captions` and :func:`model_vocab_files`.
"""
import copy
import os.path as osp
from typing import Iterator, List, Optional, Tuple, Union

from mmidc.registry import DATASETS
from mmidc.text.caption_vocab import iter_captions
from mmidc.text.vocab_file import vocab_file_name, write_vocab_file

__all__ = ['default_vocab_file', 'leaf_datasets', 'caption_datasets',
           'config_vocab_file', 'model_vocab_files', 'training_captions',
           'write_dataset_vocab_file', 'ensure_vocab_file']


def default_vocab_file(dataset) -> str:
    """``<data_root>/caption_vocab_<split>.json`` of a data set: its
    ``split``, else the name of its annotation file (``train.jsonl`` ->
    ``train``)."""
    split = getattr(dataset, 'split', None)
    if split is None:
        split = osp.splitext(osp.basename(dataset.ann_file))[0] or 'train'
    root = dataset.data_root or osp.dirname(dataset.ann_file)
    return osp.join(root, vocab_file_name(split))


def leaf_datasets(node, path: tuple = ()) -> Iterator[Tuple[tuple, dict]]:
    """``(key path below node, config)`` of each data set a data-set config
    reads: wrappers (``datasets`` of a ``ConcatDataset``, ``dataset`` of a
    ``RepeatDataset``...) unwrapped, an item that is no dict skipped."""
    if not isinstance(node, dict):
        return
    if isinstance(node.get('datasets'), (list, tuple)):
        for i, item in enumerate(node['datasets']):
            yield from leaf_datasets(item, path + ('datasets', i))
    elif isinstance(node.get('dataset'), dict):
        yield from leaf_datasets(node['dataset'], path + ('dataset', ))
    else:
        yield path, node


def caption_datasets(cfg) -> List[dict]:
    """The data sets of a config's training loader whose captions the model
    reads: those whose pipeline tokenises captions (``TokenizeCaptions``;
    all of them when none does), wrappers unwrapped, pipelines dropped."""
    leaves = [d for _, d in leaf_datasets(
        copy.deepcopy(cfg['train_dataloader']['dataset']))]
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
    files = model_vocab_files(cfg)
    if len(files) > 1:
        raise ValueError(f'the model names several vocabulary files: {files}')
    return files[0] if files else cfg.get('vocab_file')


def _source_names(datasets: list) -> str:
    return ' + '.join(
        d.annotation_source() if hasattr(d, 'annotation_source')
        else type(d).__name__ for d in datasets)


def training_captions(cfg) -> Tuple[List[str], str]:
    """The captions a config's model trains on (its :func:`caption_datasets`,
    built from their annotations), and where they come from.

    Returns:
        tuple: the captions, in order, and their sources' names.
    """
    datasets = [_build_dataset(d) for d in caption_datasets(cfg)]
    captions = [c for d in datasets for entry in d.data_list  # kept as a list
                for c in entry['gt_captions']]
    return captions, _source_names(datasets)


def write_dataset_vocab_file(source: Union[dict, object, list],
                             out: Optional[str] = None,
                             source_name: Optional[str] = None) -> str:
    """Build the caption vocabulary of data sets and write it to ``out``.

    Args:
        source: a data set or data-set config (annotations only are read:
            its pipeline is dropped), or a list of them (their captions
            together).
        out (str, optional): the file. Defaults to the first data set's
            :func:`default_vocab_file`.
        source_name (str, optional): where the captions come from, recorded
            in the file. Defaults to the data sets' annotation sources.

    Returns:
        str: the file written.

    Raises:
        ValueError: no data set.
        TypeError: a data set whose ``gt_captions`` are not strings.
    """
    parts = list(source) if isinstance(source, (list, tuple)) else [source]
    if not parts:
        raise ValueError('write_dataset_vocab_file: no data set')
    if any(isinstance(p, str) for p in parts):
        raise TypeError('write_dataset_vocab_file: expected data sets or '
                        'data-set configs; the file of a list of captions is '
                        'written by mmidc.text.write_vocab_file')
    datasets = [_build_dataset(p) for p in parts]
    captions = [c for d in datasets for c in iter_captions(d)]
    if not all(isinstance(c, str) for c in captions):
        raise TypeError('write_dataset_vocab_file: expected data sets whose '
                        'gt_captions are strings')
    return write_vocab_file(
        captions, out if out is not None else default_vocab_file(datasets[0]),
        source_name if source_name is not None else _source_names(datasets))


def ensure_vocab_file(dataset) -> str:
    """A data set's :func:`default_vocab_file`, written first when it is
    not there (data preparation steps call it before training).

    Args:
        dataset: a data set or data-set config.
    """
    dataset = _build_dataset(dataset)
    out = default_vocab_file(dataset)
    return out if osp.isfile(out) else write_dataset_vocab_file(dataset, out)


def _build_dataset(dataset):
    """A data set config built to read its captions: no pipeline, its
    entries kept as a list (MMEngine's packing of them is of no use here)."""
    if not isinstance(dataset, dict):
        return dataset
    import mmidc.datasets  # noqa: F401  (registers the data sets)
    return DATASETS.build(dict(dataset, pipeline=[], serialize_data=False))
