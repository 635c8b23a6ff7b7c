"""Tokenise reference captions with open_clip's BPE tokenizer."""
from mmcv.transforms import BaseTransform

from mmidc.registry import TRANSFORMS
from mmidc.text import clip_tokenizer
from .sample_rng import sample_rng


@TRANSFORMS.register_module()
class TokenizeCaptions(BaseTransform):
    """Turn ``gt_captions`` into CLIP token ids ``text_tokens``.

    ``<start_of_text>`` = 49406, ``<end_of_text>`` = 49407, padding 0.
    A caption longer than the context is truncated and its last token set
    to ``<end_of_text>`` (the text encoder reads its feature there).

    Required key: ``gt_captions``. Added keys: ``text_tokens`` (LongTensor
    ``[L]``, or ``[K, L]`` in ``'all'`` mode; the name is ``key``) and, for
    ``key='text_tokens'``, ``caption_index`` (the caption used, ``-1`` in
    ``'all'`` mode).

    Args:
        context_length (int): Tokens per caption ``L``. Defaults to 32
            (the paper's sentence length).
        mode (str): ``'random'``: one caption drawn at random each time the
            sample is loaded (training; the draw is the sample's, see
            :func:`sample_rng`); ``'first'``: the first caption;
            ``'all'``: every caption, in ``gt_captions`` order (retrieval
            evaluation). Defaults to ``'random'``.
        key (str): Where the tokens go: ``'text_tokens'`` (the caption to
            train on or to retrieve) or ``'ref_tokens'`` (all references of
            the pair, for objectives that read them, with ``mode='all'``).
            Defaults to ``'text_tokens'``.
    """

    MODES = ('random', 'first', 'all')
    KEYS = ('text_tokens', 'ref_tokens')

    def __init__(self, context_length: int = 32, mode: str = 'random',
                 key: str = 'text_tokens'):
        if mode not in self.MODES:
            raise ValueError(f'TokenizeCaptions.mode must be one of '
                             f'{", ".join(self.MODES)}, got "{mode}"')
        if key not in self.KEYS:
            raise ValueError(f'TokenizeCaptions.key must be one of '
                             f'{", ".join(self.KEYS)}, got "{key}"')
        if not isinstance(context_length, int) or context_length < 2:
            raise ValueError(f'TokenizeCaptions.context_length must be an '
                             f'int >= 2, got {context_length!r}')
        self.context_length = context_length
        self.mode = mode
        self.key = key

    def transform(self, results: dict) -> dict:
        captions = results['gt_captions']
        tokenizer = clip_tokenizer()
        if self.mode == 'all':
            tokens = tokenizer(captions, self.context_length)  # [K, L]
            index = -1
        else:
            index = (sample_rng(results, f'TokenizeCaptions.{self.key}')
                     .integers(len(captions)) if self.mode == 'random' else 0)
            tokens = tokenizer(captions[index], self.context_length)[0]  # [L]
        results[self.key] = tokens
        if self.key == 'text_tokens':
            results['caption_index'] = int(index)
        return results

    def __repr__(self) -> str:
        return (f'{self.__class__.__name__}(context_length='
                f'{self.context_length}, mode={self.mode!r}, key={self.key!r})')
