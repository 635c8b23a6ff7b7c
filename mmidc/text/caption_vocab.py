"""The caption decoders' output vocabulary: CLIP's BPE ids, all or a subset.

Captions are tokenised with open_clip's BPE tokenizer
(:func:`~mmidc.text.clip_tokenizer`). A Transformer captioner trained from
scratch on one data set uses a few hundred of the 49,408 BPE ids, and the full
softmax is a large share of its compute. :class:`CaptionVocab` maps CLIP ids to
*compact* ids (the rows of the decoder's word embedding) and back.

Compact layout of a restricted vocabulary::

    0 -> pad (CLIP 0)   1 -> unk (no CLIP id, -1)   2.. -> sorted CLIP ids
                                                         (sot and eot included)

A full vocabulary is the identity (compact id == CLIP id, no unk).

The CLIP ids live in a persistent buffer, so a checkpoint of the decoder
holds its vocabulary. A decoder's ``vocab`` option (see
:func:`build_vocab_from_cfg`) is one of:

* ``None``: the full CLIP vocabulary.
* a path: a vocabulary file (``.json``, written from the training captions by
  ``tools/dataset_converters/build_vocab.py``, see :mod:`.vocab_file`), or a
  checkpoint (``.pth``/``.safetensors``) whose state dict holds a
  ``*vocab.clip_ids`` buffer (a trained model is self-contained).
* a list of captions: built from them (tiny configs, tests).
"""
import json
import os
import os.path as osp
import re
from typing import Iterable, List, Optional, Sequence, Union

import torch
from mmengine.logging import print_log
from torch import nn

from .clip_tokenizer import CLIP_VOCAB_SIZE, EOT_ID, PAD_ID, SOT_ID, clip_tokenizer
from .text_files import load_json

__all__ = ['CaptionVocab', 'build_caption_vocab', 'build_vocab_from_cfg',
           'iter_captions', 'read_vocab_ids', 'VOCAB_TOOL']

UNK_CLIP_ID = -1  # the restricted vocab's unk has no CLIP id
#: The tool that writes a vocabulary file (named in errors).
VOCAB_TOOL = 'tools/dataset_converters/build_vocab.py'


class CaptionVocab(nn.Module):
    """Mapping between CLIP BPE ids and the caption head's compact ids.

    Args:
        clip_ids (Sequence[int], optional): CLIP ids of the restricted
            vocabulary, in any order (pad/unk/sot/eot are added). ``None``
            means the full CLIP vocabulary.
    """

    def __init__(self, clip_ids: Optional[Sequence[int]] = None):
        super().__init__()
        self.is_full = clip_ids is None
        if self.is_full:
            table = torch.arange(CLIP_VOCAB_SIZE)
            self.unk_id = None
        else:
            ids = sorted(set(int(i) for i in clip_ids) - {PAD_ID} | {SOT_ID, EOT_ID})
            bad = [i for i in ids if not 0 < i < CLIP_VOCAB_SIZE]
            if bad:
                raise ValueError(f'CaptionVocab: CLIP ids out of range [0, '
                                 f'{CLIP_VOCAB_SIZE}): {bad[:10]}')
            table = torch.tensor([PAD_ID, UNK_CLIP_ID] + ids)
            self.unk_id = 1
        self.register_buffer('clip_ids', table)  # [V] compact -> CLIP
        self.register_buffer('compact_of_clip', self._inverse(table),
                             persistent=False)  # [49408] CLIP -> compact
        self.pad_id = PAD_ID
        self.sot_id = self.to_compact_id(SOT_ID)
        self.eot_id = self.to_compact_id(EOT_ID)

    def _inverse(self, table: torch.Tensor) -> torch.Tensor:
        unk = 1 if not self.is_full else 0
        inverse = torch.full((CLIP_VOCAB_SIZE, ), unk, dtype=torch.long)
        valid = table >= 0
        inverse[table[valid]] = torch.arange(len(table))[valid]
        return inverse

    def __len__(self) -> int:
        return len(self.clip_ids)

    def extra_repr(self) -> str:
        return 'full CLIP vocabulary' if self.is_full else f'{len(self)} tokens'

    def to_compact_id(self, clip_id: int) -> int:
        return int(self.compact_of_clip[clip_id])

    def to_compact(self, clip_ids: torch.Tensor) -> torch.Tensor:
        """CLIP ids (any shape) -> compact ids; ids outside the vocab -> unk."""
        if self.is_full:
            return clip_ids
        return self.compact_of_clip.to(clip_ids.device)[clip_ids]

    def to_clip(self, compact_ids: torch.Tensor) -> torch.Tensor:
        """Compact ids (any shape) -> CLIP ids (unk -> -1)."""
        if self.is_full:
            return compact_ids
        return self.clip_ids.to(compact_ids.device)[compact_ids]

    # ------------------------------------------------------------ persistence
    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        key = prefix + 'clip_ids'
        if key in state_dict and not torch.equal(state_dict[key].cpu(),
                                                 self.clip_ids.cpu()):
            raise RuntimeError(
                f'{key}: the checkpoint was trained with a different caption '
                f'vocabulary ({len(state_dict[key])} ids, this head has '
                f'{len(self)}). Build the head with vocab=<that checkpoint> '
                'or the vocab file used in training.')
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def save(self, path: str, meta: Optional[dict] = None) -> None:
        """Write the restricted vocabulary's CLIP ids as a JSON list, or, with
        ``meta``, as ``{**meta, "clip_ids": [...]}`` (what a vocabulary file
        holds: where its captions came from)."""
        if self.is_full:
            raise ValueError('CaptionVocab.save: the full vocabulary needs no file')
        ids = [i for i in self.clip_ids.tolist() if i > 0]
        content = ids if meta is None else dict(meta, clip_ids=ids)
        os.makedirs(osp.dirname(osp.abspath(path)), exist_ok=True)
        tmp = f'{path}.tmp{os.getpid()}'
        with open(tmp, 'w') as f:
            json.dump(content, f)
        os.replace(tmp, path)  # atomic: several ranks may write the same file

    @classmethod
    def from_file(cls, path: str) -> 'CaptionVocab':
        """Read a vocabulary file (a ``.json`` id list, or a dict whose
        ``clip_ids`` are the list) or the vocab buffer of a checkpoint."""
        if not osp.isfile(path):
            folder = osp.dirname(path) or '.'
            if not osp.isdir(folder):
                # A wrong data_root: writing the file is not the fix.
                raise FileNotFoundError(
                    f'caption vocabulary file not found: {path}: its folder '
                    f'{folder} does not exist (a relative path is read from '
                    f'{osp.abspath(".")}). Check data_root in your config (or '
                    '--cfg-options data_root=...): the file is '
                    "'{data_root}/caption_vocab_train.json' unless the config "
                    f'sets vocab_file; then write it with python {VOCAB_TOOL} '
                    'CONFIG.')
            if path.endswith('.json'):
                raise FileNotFoundError(
                    f'caption vocabulary file not found: {path}. Write it from '
                    f'the training captions with\n  python {VOCAB_TOOL} CONFIG\n'
                    '(CONFIG: the config that names the file), or with '
                    f'--dataset-type/--data-root (python {VOCAB_TOOL} --help).')
            raise FileNotFoundError(f'caption vocabulary file not found: {path}')
        if path.endswith('.json'):
            return cls(read_vocab_ids(path))
        from mmidc.utils.checkpoint_io import read_checkpoint
        state, _ = read_checkpoint(path)
        keys = [k for k in state if k.endswith('vocab.clip_ids')]
        if not keys:
            raise ValueError(
                f'{path} holds no caption vocabulary (no "*vocab.clip_ids" '
                f'entry among its {len(state)} weights): it is not the '
                'checkpoint of a captioning run. An adaptation-stage '
                '(retrieval) checkpoint, such as best_rsum_*.pth, goes with '
                'its adaptation config and IDCRetrievalInferencer; to caption, '
                'give the checkpoint that training the captioning config wrote '
                '(best_CIDEr_*.pth).')
        if len(keys) != 1:
            raise KeyError(f'{path}: expected one "*vocab.clip_ids" entry in the '
                           f'state dict, found {keys}')
        ids = state[keys[0]].tolist()
        if len(ids) == CLIP_VOCAB_SIZE and ids[1] == 1:
            return cls(None)
        return cls([i for i in ids if i > 0])

    # --------------------------------------------------------------- decoding
    def decode(self, clip_ids: Union[torch.Tensor, Sequence[int]]) -> str:
        """CLIP ids of one caption -> text, stopping at end-of-text.

        Pad, start/end-of-text and unk are dropped; spaces are collapsed and
        removed before punctuation.
        """
        ids = clip_ids.tolist() if torch.is_tensor(clip_ids) else list(clip_ids)
        if EOT_ID in ids:
            ids = ids[:ids.index(EOT_ID)]
        ids = [i for i in ids if 0 < i < SOT_ID]
        text = clip_tokenizer().decode(ids)
        text = re.sub(r'\s+', ' ', text).strip()
        return re.sub(r' ([.,!?;:])', r'\1', text)


def read_vocab_ids(path: str) -> List[int]:
    """The CLIP ids a vocabulary file (``.json``) holds, checked.

    The file is ``{..., "clip_ids": [...]}`` (:mod:`.vocab_file`) or a bare
    JSON list of ids.

    Raises:
        ValueError: naming the file and the key: not valid JSON, no
            ``clip_ids`` key, not a list, an item that is not an int (a
            bool, a string) or not a CLIP id, or no caption token at all
            (an empty list, or only the start/end-of-text ids).
    """
    content = load_json(path, 'caption vocabulary file')
    where = path
    if isinstance(content, dict):  # a vocabulary file with its metadata
        if 'clip_ids' not in content:
            raise ValueError(f'{path}: no key "clip_ids" (the CLIP ids of the '
                             f'caption tokens); write the file with\n'
                             f'  python {VOCAB_TOOL} CONFIG')
        content, where = content['clip_ids'], f'{path}: key "clip_ids"'
    if not isinstance(content, list):
        raise ValueError(f'{where}: expected a list of CLIP token ids, got '
                         f'{type(content).__name__}')
    for k, i in enumerate(content):
        if isinstance(i, bool) or not isinstance(i, int):
            raise ValueError(f'{where}: item {k} is {i!r:.40}, not a CLIP '
                             'token id (an int)')
        if not 0 <= i < CLIP_VOCAB_SIZE:
            raise ValueError(f'{where}: item {k} is {i}, not a CLIP token id '
                             f'(0 <= id < {CLIP_VOCAB_SIZE})')
    if not set(content) - {PAD_ID, SOT_ID, EOT_ID}:
        raise ValueError(f'{where}: holds no caption token ({content!r:.60}); '
                         'a caption vocabulary is the tokens of the training '
                         f'captions: write it with\n  python {VOCAB_TOOL} CONFIG')
    return content


def iter_captions(source) -> Iterable:
    """Yield str captions or token tensors from the accepted sources."""
    if hasattr(source, 'get_data_info') and hasattr(source, '__len__'):
        for i in range(len(source)):
            yield from source.get_data_info(i)['gt_captions']
    elif torch.is_tensor(source):
        yield source
    else:
        for item in source:
            if isinstance(item, (list, tuple)):
                yield from item
            else:
                yield item


def build_caption_vocab(source) -> CaptionVocab:
    """Build a restricted vocabulary from the captions a model trains on.

    Args:
        source: an MMEngine data set whose data infos hold ``gt_captions``, a
            list of caption strings (or of lists of strings), or token tensors
            (CLIP ids, any shape, e.g. ``text_tokens`` ``[N, L]``).

    Returns:
        CaptionVocab: every CLIP id that occurs, plus pad/unk/sot/eot.
    """
    tokenizer = clip_tokenizer()
    ids = set()
    num_captions = 0
    for caption in iter_captions(source):
        if torch.is_tensor(caption):
            ids.update(caption.flatten().tolist())
        elif isinstance(caption, str):
            ids.update(tokenizer.encode(caption))
        else:
            raise TypeError('build_caption_vocab: expected captions (str) or '
                            f'token tensors, got {type(caption).__name__}')
        num_captions += 1
    if num_captions == 0:
        raise ValueError('build_caption_vocab: no captions in the source')
    vocab = CaptionVocab(ids)
    print_log(f'caption vocabulary: {len(vocab)} tokens from {num_captions} '
              'captions', logger='current')
    return vocab


def build_vocab_from_cfg(vocab) -> CaptionVocab:
    """Resolve a decoder's ``vocab`` option (see the module docstring)."""
    if vocab is None:
        return CaptionVocab(None)
    if isinstance(vocab, CaptionVocab):
        return vocab
    if isinstance(vocab, str):
        return CaptionVocab.from_file(vocab)
    if isinstance(vocab, (list, tuple)):  # captions (tiny configs, tests)
        return build_caption_vocab(vocab)
    if isinstance(vocab, dict) and 'captions_from' in vocab:
        raise TypeError(
            'vocab: a data set (captions_from) is not read when the model is '
            'built; write the vocabulary of its captions to a file with\n'
            f'  python {VOCAB_TOOL} CONFIG\n'
            "and give the file: vocab='<data_root>/caption_vocab_train.json'")
    raise TypeError('vocab: expected None, a vocabulary file or checkpoint '
                    f'path, a list of captions or a CaptionVocab, got {vocab!r}')
