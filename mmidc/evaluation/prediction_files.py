"""Prediction and reference files as the change-captioning field writes them,
read into the records the caption scorer takes (``pair_id``,
``prediction``, ``references``, ``change_type``). The formats
(:data:`PREDICTION_FORMATS`, :data:`REFERENCE_FORMATS`) and who writes them:
docs/evaluation.md, "The files it reads"; the detectors' errors list them
too. Ids match with or without an image extension (``test_000001.png`` is
``test_000001``) and as strings (``256`` is ``"256"``).
"""
import json
import os.path as osp
from typing import Dict, List, Optional, Sequence, Tuple

from mmidc.text.text_files import load_json, read_text

PREDICTION_FORMATS = ('mmidc', 'coco', 'jsonl', 'rsicc')
REFERENCE_FORMATS = ('mmidc', 'coco', 'karpathy', 'spot_the_diff')
#: The extensions an id may carry (an image file name).
IMAGE_EXTENSIONS = ('.png', '.jpg', '.jpeg', '.tif', '.tiff', '.bmp',
                    '.webp', '.gif')
ID_KEYS = ('pair_id', 'filename', 'image_id')
TEXT_KEYS = ('prediction', 'caption', 'sentence')


def pair_key(pair_id) -> str:
    """The form ids are matched in: a string, without an image extension.

    Args:
        pair_id: An id (``256``, ``"test_000001.png"``).
    """
    key = str(pair_id).strip()
    root, ext = osp.splitext(key)
    return root if ext.lower() in IMAGE_EXTENSIONS else key


def _load(path: str):
    """A JSON file's content, or the records of a JSON Lines file."""
    text = read_text(path)
    try:
        return json.loads(text)
    except ValueError as e:
        error = e
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1)
             if line.strip()]
    if len(lines) < 2 or text.lstrip().startswith('['):
        raise ValueError(f'{path}: not valid JSON ({error})')
    records = []
    for n, line in lines:
        try:
            records.append(json.loads(line))
        except ValueError as e:
            raise ValueError(f'{path}: not valid JSON ({error}), nor JSON '
                             f'Lines (line {n}: {e})') from None
    return _JsonLines(records)


class _JsonLines(list):
    """The records of a JSON Lines file (tells the format apart)."""


def _first_key(record: dict, keys: Sequence[str]) -> Optional[str]:
    return next((k for k in keys if k in record), None)


def detect_prediction_format(data, path: str) -> str:
    """The format of loaded prediction data, or a ``ValueError`` naming
    ``path`` and the formats read."""
    if isinstance(data, _JsonLines):
        return 'jsonl'
    if isinstance(data, dict) and data and all(
            isinstance(v, (list, str)) for v in data.values()):
        return 'rsicc'
    if isinstance(data, list) and data and all(isinstance(r, dict)
                                               for r in data):
        first = data[0]
        if {'pair_id', 'prediction', 'references'} <= set(first):
            return 'mmidc'
        if {'image_id', 'caption'} <= set(first):
            return 'coco'
        if _first_key(first, ID_KEYS) and _first_key(first, TEXT_KEYS):
            return 'jsonl'
    raise ValueError(
        f'{path}: the predictions format is not recognised; read are '
        'mmidc\'s [{"pair_id", "prediction", "references", "change_type"}], '
        'coco-caption results [{"image_id", "caption"}], JSON Lines '
        '({"pair_id"|"filename"|"image_id", "prediction"|"caption"|'
        '"sentence"} a line) and RSICC / Chg2Cap {"<id>": ["caption"]} '
        '(--format names one)')


def read_predictions(path: str, fmt: str = 'auto'
                     ) -> Tuple[Dict[str, str], Optional[List[dict]], str]:
    """The predictions of ``path``: ``({key: caption}, mmidc records or
    None, format)`` (keys: :func:`pair_key`).

    Args:
        path (str): The predictions file.
        fmt (str): One of :data:`PREDICTION_FORMATS` or ``'auto'``.

    Raises:
        ValueError: an unreadable or unrecognised file, a record without
            an id or caption, an id twice (naming the file).
    """
    data = _load(path)
    if fmt == 'auto':
        fmt = detect_prediction_format(data, path)
    if fmt == 'mmidc':
        if not isinstance(data, list):
            raise ValueError(f'{path} must hold a JSON list of {{"pair_id", '
                             '"prediction", "references", "change_type"}')
        return ({pair_key(r.get('pair_id')): r.get('prediction')
                 for r in data if isinstance(r, dict)}, list(data), fmt)
    pairs: List[Tuple[object, object]] = []
    if fmt == 'rsicc':
        if not isinstance(data, dict):
            raise ValueError(f'{path}: the rsicc format is {{"<id>": '
                             '["caption"]}')
        for pid, value in data.items():
            if isinstance(value, list):
                if len(value) != 1:
                    raise ValueError(f'{path}: id {pid!r} has {len(value)} '
                                     'captions; a prediction is one')
                value = value[0]
            pairs.append((pid, value))
    elif fmt in ('coco', 'jsonl'):
        if not isinstance(data, list):
            raise ValueError(f'{path}: the {fmt} format is a list of '
                             'records')
        for n, rec in enumerate(data):
            where = f'{path}: record {n}'
            if not isinstance(rec, dict):
                raise ValueError(f'{where} is not an object')
            if fmt == 'jsonl' and 'error' in rec and not _first_key(
                    rec, TEXT_KEYS):
                continue  # caption_pair.py: a pair that was not captioned
            id_key = 'image_id' if fmt == 'coco' else _first_key(rec, ID_KEYS)
            text_key = ('caption' if fmt == 'coco'
                        else _first_key(rec, TEXT_KEYS))
            if id_key not in rec or text_key not in rec:
                raise ValueError(f'{where} needs an id ({", ".join(ID_KEYS)}) '
                                 f'and a caption ({", ".join(TEXT_KEYS)}); '
                                 f'keys: {sorted(rec)}')
            pairs.append((rec[id_key], rec[text_key]))
    else:
        raise ValueError(f'--format {fmt!r}: choose from '
                         f'{("auto", *PREDICTION_FORMATS)}')
    predictions: Dict[str, str] = {}
    for pid, caption in pairs:
        key = pair_key(pid)
        if not isinstance(caption, str):
            raise ValueError(f'{path}: the prediction of {pid!r} is not a '
                             f'string: {caption!r}')
        if key in predictions:
            raise ValueError(f'{path}: id {pid!r} has two predictions '
                             '(ids match without their image extension)')
        predictions[key] = caption
    return predictions, None, fmt


#: What an annotation file of :class:`~mmidc.datasets.ImagePairDataset`
#: (your own pairs) given as references is told.
OWN_PAIRS_REFERENCES = (
    'records of {"img1", "img2", "captions"} are an annotation file of your own '
    'pairs, whose references are read through the config that reads it: '
    '--config CONFIG --split test (with --cfg-options data_root=... if needed), '
    'in place of --references')


def read_metric_records(path: str, keys: Sequence[str], fix: str
                        ) -> List[dict]:
    """The records of an :class:`~mmidc.evaluation.IDCMetric` predictions
    file (``predictions_<stamp>.json``: a JSON list of ``{"pair_id",
    "prediction", "references", "change_type"}``), each holding ``keys``.

    Args:
        path (str): The file.
        keys (Sequence[str]): The keys every record must hold.
        fix (str): What to do with a file of another form, for the error.

    Raises:
        ValueError: naming the file, the form expected and ``fix``.
    """
    try:
        with open(path, encoding='utf-8') as f:
            records = json.load(f)
    except ValueError:
        records = None
    if not isinstance(records, list) or not all(
            isinstance(r, dict) and all(k in r for k in keys) for r in records):
        raise ValueError(
            f'{path}: not a predictions file of IDCMetric (a JSON list of '
            '{"pair_id", "prediction", "references", "change_type"}, '
            f"predictions_<stamp>.json in a run's folder); {fix}")
    return records


def detect_reference_format(data, path: str) -> str:
    """The format of loaded reference data (see the module)."""
    if isinstance(data, dict) and isinstance(data.get('annotations'), list):
        return 'coco'
    if isinstance(data, dict) and isinstance(data.get('images'), list):
        return 'karpathy'
    if isinstance(data, list) and data and isinstance(data[0], dict):
        if {'img_id', 'sentences'} <= set(data[0]):
            return 'spot_the_diff'
        if {'pair_id', 'references'} <= set(data[0]):
            return 'mmidc'
        if {'img1', 'img2', 'captions'} <= set(data[0]):
            raise ValueError(f'{path}: {OWN_PAIRS_REFERENCES}')
    raise ValueError(
        f'{path}: the references format is not recognised; read are '
        'coco-caption {"annotations": [{"image_id", "caption"}]}, Karpathy '
        '{"images": [{"filename", "sentences": [{"raw"}]}]}, Spot-the-Diff '
        '[{"img_id", "sentences"}] and mmidc\'s predictions file '
        '(--references-format names one)')


def read_references(path: str, fmt: str = 'auto', split: str = 'test',
                    no_change=None) -> Dict[str, dict]:
    """``{key: {"pair_id", "references", "change_type"}}`` of a references
    file (keys: :func:`pair_key`).

    Args:
        path (str): The references file.
        fmt (str): One of :data:`REFERENCE_FORMATS` or ``'auto'``.
        split (str): The split a Karpathy file's records are read from
            (records with a ``"split"`` key).
        no_change (Sequence[str], optional): Karpathy files: a pair whose
            every caption is one of these is a no-change pair (``'none'``;
            ``"changeflag"`` decides where the file has it); else
            ``'change'``. None: ``'unknown'``.
    """
    from mmidc.text.no_change import no_change_set, normalize_sentence
    if path.endswith('.jsonl'):
        raise ValueError(f'{path}: a JSON Lines file, which no references format is; '
                         f'{OWN_PAIRS_REFERENCES}')
    data = load_json(path)
    if fmt == 'auto':
        fmt = detect_reference_format(data, path)
    refs: Dict[str, dict] = {}

    def add(pid, captions, change_type='unknown'):
        entry = refs.setdefault(pair_key(pid), dict(
            pair_id=pair_key(pid), references=[], change_type=change_type))
        entry['references'] += [c for c in captions]

    try:
        if fmt == 'coco':
            for ann in data['annotations']:
                add(ann['image_id'], [ann['caption']])
        elif fmt == 'spot_the_diff':
            for rec in data:
                sentences = rec['sentences']
                add(rec['img_id'], [sentences] if isinstance(sentences, str)
                    else sentences)
        elif fmt == 'mmidc':
            for rec in data:
                add(rec['pair_id'], rec['references'],
                    rec.get('change_type') or 'unknown')
        elif fmt == 'karpathy':
            sentences = no_change_set(no_change) if no_change else None
            for rec in data['images']:
                if 'split' in rec and rec['split'] != split:
                    continue
                captions = [s['raw'] for s in rec['sentences']]
                if 'changeflag' in rec:
                    ctype = 'change' if int(rec['changeflag']) else 'none'
                elif sentences is not None:
                    ctype = ('none' if all(normalize_sentence(c) in sentences
                                           for c in captions) else 'change')
                else:
                    ctype = 'unknown'
                add(rec['filename'], captions, ctype)
        else:
            raise ValueError(f'--references-format {fmt!r}: choose from '
                             f'{("auto", *REFERENCE_FORMATS)}')
    except (KeyError, TypeError) as e:
        raise ValueError(f'{path}: not a {fmt} references file ({e!r} '
                         'missing or of the wrong kind)') from None
    if not refs:
        raise ValueError(f'{path}: no references'
                         + (f' of split {split!r}' if fmt == 'karpathy'
                            else ''))
    return refs


def match_records(predictions: Dict[str, str], references: Dict[str, dict],
                  pred_path: str, ref_source: str) -> Tuple[List[dict],
                                                            List[str]]:
    """The scorer's records: each referenced pair with its prediction;
    returns ``(records, extra ids)``.

    Raises:
        ValueError: pairs of the references have no prediction (naming
            both files, the count and the first ids).
    """
    missing = [k for k in references if k not in predictions]
    if missing:
        shown = ', '.join(repr(k) for k in missing[:5])
        raise ValueError(
            f'{pred_path}: {len(missing)} of the {len(references)} pairs of '
            f'{ref_source} have no prediction ({shown}'
            f'{", ..." if len(missing) > 5 else ""}); every pair of the '
            'references is scored (ids match without an image extension)')
    extra = [k for k in predictions if k not in references]
    records = [dict(pair_id=ref['pair_id'], prediction=predictions[key],
                    references=list(ref['references']),
                    change_type=ref['change_type'])
               for key, ref in references.items()]
    return records, extra
