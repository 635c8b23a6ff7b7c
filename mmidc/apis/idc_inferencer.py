"""Caption the difference between two images of your own."""
import os
from typing import Dict, List, Optional, Sequence, Union

import numpy as np
import torch

from mmidc.text import clip_tokenizer
from .base_pair_inferencer import BasePairInferencer, Pair
from .image_loading import ImageInput
from .model_loading import ConfigType


class IDCInferencer(BasePairInferencer):
    """Image difference captioning with a captioning-stage model: a
    captioner with ``decode_cfg`` and ``predict(inputs, data_samples,
    **decode_options)`` (``CLIP4IDCCaptioner``, ``IDCPCLCaptioner`` and
    their subclasses).

    Examples:
        >>> from mmidc.apis import IDCInferencer
        >>> captioner = IDCInferencer('configs/.../captioner.py', 'epoch_50.pth')
        >>> captioner('before.png', 'after.png')
        {'caption': 'the small red cube is gone', 'score': -0.12}
        >>> captioner([('a1.png', 'a2.png'), ('b1.jpg', 'b2.jpg')],
        ...           batch_size=8, strategy='beam', beam_size=3)
        [{'caption': ..., 'score': ...}, {'caption': ..., 'score': ...}]

    Images are paths, PIL images or RGB arrays (see :func:`load_rgb_image`).
    ``score`` is the mean log-probability per generated token.

    Args:
        config, checkpoint, device: see :class:`BasePairInferencer`.
        strategy (str, optional): ``'greedy'`` or ``'beam'``; default: the
            config's ``decode_cfg`` (greedy unless it says otherwise).
        beam_size (int, optional): beams for ``'beam'``; default: config's.
        **kwargs: ``max_pixels``, ``aspect_tolerance``, ``cfg_options``,
            ``value_range`` (keywords): see :class:`BasePairInferencer`.
    """

    forward_kwargs = BasePairInferencer.forward_kwargs | {'strategy', 'beam_size', 'captions'}

    def __init__(self,
                 config: ConfigType,
                 checkpoint: Union[str, os.PathLike, None] = None,
                 device: Optional[str] = None,
                 strategy: Optional[str] = None,
                 beam_size: Optional[int] = None,
                 **kwargs) -> None:
        super().__init__(config, checkpoint, device, **kwargs)
        if not hasattr(self.model, 'decode_cfg'):
            raise TypeError(f'{type(self.model).__name__} does not write captions: IDCInferencer '
                            f'needs a captioning-stage config (CLIP4IDCCaptioner); for '
                            f'retrieval use IDCRetrievalInferencer')
        #: This inferencer's decoding options (``strategy``, ``beam_size``),
        #: given to the model's ``predict`` with each batch; the model's
        #: ``decode_cfg`` holds the rest and is never changed.
        self.decode_options = {}
        self.decode_options = self._dispatch_kwargs(strategy=strategy, beam_size=beam_size)[1]

    def _dispatch_kwargs(self, **kwargs):
        """MMPretrain's dispatch, the decoding options (``strategy``,
        ``beam_size``) and the ``captions`` to score checked once for a
        whole call, and merged into :attr:`decode_options`."""
        pre, options, vis, post = super()._dispatch_kwargs(**kwargs)
        options = {k: v for k, v in options.items() if v is not None}
        if options.get('strategy', 'greedy') not in ('greedy', 'beam'):
            raise ValueError(f"strategy must be 'greedy' or 'beam', got {options['strategy']!r}")
        if options.get('beam_size', 1) < 1:
            raise ValueError(f"beam_size must be >= 1, got {options['beam_size']}")
        if 'captions' in options:
            self._caption_tokens(options['captions'])
        return pre, dict(self.decode_options, **options), vis, post

    def _caption_tokens(self, captions: Sequence[str]) -> torch.Tensor:
        """CLIP ids ``[P, max_length]`` of captions to score (an empty one
        is its end alone, as greedy decoding may write it); ``ValueError``
        if one is not a string or longer than the decoder's ``max_length``."""
        if isinstance(captions, str) or not all(isinstance(c, str) for c in captions):
            raise ValueError(f'captions must be a list of strings, got {captions!r:.80}')
        max_length = self.model.caption_decoder.max_length
        tokens = clip_tokenizer()(list(captions), 77)  # [P, 77]
        for caption, length in zip(captions, (tokens != 0).sum(-1).tolist()):
            if length > max_length:
                raise ValueError(f'caption {caption!r} is {length} tokens long with its start '
                                 f'and end; the decoder takes at most {max_length}')
        return tokens[:, :max_length]

    def _predict(self, data: dict, captions: Optional[Sequence[str]] = None,
                 **decode_options) -> List:
        """The model's ``predict``: data samples with ``pred_caption`` and
        ``pred_score``; with ``captions`` (one per input pair), the
        teacher-forced ``sum_logprob`` and ``num_tokens`` of each pair's
        caption (``model.score_captions``) instead."""
        samples = data['data_samples']
        if captions is None:
            return self.model.predict(data['inputs'], samples, **decode_options)
        if (last := data['indices'][-1]) >= len(captions):
            raise ValueError(f'captions: one per pair, got {len(captions)} for pair {last}')
        tokens = self._caption_tokens([captions[i] for i in data['indices']])
        logprobs = self.model.score_captions(data['inputs'], tokens.to(self.device)).cpu()
        for sample, row, count in zip(samples, logprobs, (tokens[:, 1:] != 0).sum(-1).tolist()):
            sample.set_field(float(row.sum()), 'sum_logprob')
            sample.set_field(count, 'num_tokens')
        return samples

    def to_result(self, data_sample) -> Dict:
        """``{'caption': str, 'score': float}`` of a predicted data sample;
        ``sum_logprob``, ``mean_logprob``, ``num_tokens`` of a scored one."""
        if 'sum_logprob' in data_sample:
            total, count = data_sample.sum_logprob, data_sample.num_tokens
            return dict(sum_logprob=total, mean_logprob=total / max(count, 1), num_tokens=count)
        return {'caption': data_sample.pred_caption, 'score': float(data_sample.pred_score)}

    def __call__(self,
                 img1: Union[ImageInput, Sequence[Pair]],
                 img2: Optional[ImageInput] = None,
                 batch_size: int = 1,
                 **kwargs) -> Union[Dict, List[Dict]]:
        """Caption one pair, or a list of ``(before, after)`` pairs, through
        :meth:`stream`.

        Args:
            img1: the before image, or a list of pairs (then no ``img2``).
            img2: the after image.
            batch_size (int): pairs per forward pass. Defaults to 1.
            **kwargs: ``strategy`` (``'greedy'`` / ``'beam'``) and
                ``beam_size`` for this call; those of :meth:`preprocess`
                (``pair_ids``: the ids given back in a list's results;
                ``workers``: decoding processes for a list, one pair is
                decoded in this process).

        Returns:
            dict | list[dict]: ``{'caption': str, 'score': float}`` for one
            pair; for a list, one result per pair, in order, with the
            pair's ``pair_id`` too, and ``img1`` / ``img2`` where the pair
            was given as two paths.

        Raises:
            ImageInputError: an unusable image, named.
        """
        if img2 is None:
            return self._results(img1, batch_size, **kwargs)
        (result, ) = self._results([(img1, img2)], **dict(kwargs, workers=0))
        return {k: result[k] for k in ('caption', 'score')}

    def score(self, pairs: Sequence[Pair], captions: Sequence[str],
              batch_size: int = 8, workers: Optional[int] = 0) -> List[Dict]:
        """How likely the model finds given captions of given pairs
        (:meth:`stream` with ``captions=``, where an unusable pair's
        result has its ``error``).

        Each caption is scored with teacher forcing
        (``model.score_captions``): the log-probability of each of its
        tokens and its end given the pair and the tokens before it, as the
        search reads them. A caption whose words are outside the model's
        vocabulary scores ``-inf``.

        Args:
            pairs (Sequence[tuple]): ``(before, after)`` images.
            captions (Sequence[str]): one caption per pair.
            batch_size (int): pairs per forward pass. Defaults to 8.
            workers (int, optional): image-decoding processes (see
                :meth:`preprocess`). Defaults to 0 (this process).

        Returns:
            list[dict]: per pair, ``sum_logprob`` (float, the caption's
            log-probability), ``mean_logprob`` (per token, as the ``score``
            of a generated caption), ``num_tokens`` (words and the end), and
            the pair's ``pair_id`` (its position) and ``img1`` / ``img2``
            (where given as paths).

        Raises:
            ValueError: as many captions as pairs are needed, strings (an
                empty one scores the end alone); a caption longer than the
                decoder's ``max_length``.
            ImageInputError: an unusable image, named.
        """
        pairs = list(pairs)
        if isinstance(captions, str) or len(captions) != len(pairs):
            raise ValueError(f'score needs one caption per pair: '
                             f'{len(pairs)} pairs, got {captions!r:.80}')
        return self._results(pairs, batch_size, workers=workers, captions=captions)

    def visualize_attention(self,
                            img1: ImageInput,
                            img2: ImageInput,
                            out_file: Union[str, os.PathLike, None] = None,
                            title: Optional[str] = None) -> np.ndarray:
        """Attention grid (see :class:`BasePairInferencer`); the title
        defaults to the pair's caption."""
        if title is None:
            title = self(img1, img2)['caption']
        return super().visualize_attention(img1, img2, out_file, title)
