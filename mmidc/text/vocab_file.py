"""The caption vocabulary file: the CLIP ids of a data set's training
captions, written once before training and read by the caption decoders
(its content, and the configs that name it: docs/design.md, "Caption
vocabulary file").

``tools/dataset_converters/build_vocab.py`` writes it from a config's data
sets (:mod:`mmidc.datasets.preparation.vocab_sources` finds their captions);
:class:`~mmidc.text.CaptionVocab` reads its ``clip_ids``
(:func:`~mmidc.text.caption_vocab.read_vocab_ids` checks their form).
Before training, :func:`check_vocab_covers` checks that the file holds the
tokens of the captions the model trains on.
"""
import hashlib
from collections import Counter
from typing import List, Optional, Sequence, Tuple

from mmengine.logging import print_log

from .caption_vocab import (VOCAB_TOOL, CaptionVocab, build_caption_vocab,
                            read_vocab_ids)
from .clip_tokenizer import clip_tokenizer
from .text_files import load_json

__all__ = ['vocab_file_name', 'write_vocab_file', 'captions_key',
           'unknown_token_share', 'check_vocab_covers', 'MAX_UNKNOWN_SHARE']

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


def write_vocab_file(captions: Sequence[str], out: str,
                     source_name: Optional[str] = None) -> str:
    """Build the caption vocabulary of ``captions`` and write it to ``out``.

    The file of a data set's captions is written by
    :func:`mmidc.datasets.preparation.vocab_sources.write_dataset_vocab_file`.

    Args:
        captions (Sequence[str]): The captions, in order.
        out (str): The file.
        source_name (str, optional): where the captions come from, recorded
            in the file. Defaults to ``'captions'``.

    Returns:
        str: the file written.

    Raises:
        TypeError: a caption that is not a string.
    """
    captions = list(captions)
    if not all(isinstance(c, str) for c in captions):
        raise TypeError('write_vocab_file: expected a list of caption strings '
                        '(the file of a data set is written by '
                        'mmidc.datasets.write_dataset_vocab_file)')
    source_name = 'captions' if source_name is None else source_name
    vocab: CaptionVocab = build_caption_vocab(captions)
    vocab.save(out, meta=dict(source=source_name, num_captions=len(captions),
                              captions_sha256=captions_key(captions)))
    print_log(f'wrote {out}: the caption vocabulary of {source_name}',
              logger='current')
    return out


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
