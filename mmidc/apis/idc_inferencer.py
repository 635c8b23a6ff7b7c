"""Caption the difference between two images of your own."""
import os
from typing import Dict, Iterator, List, Optional, Sequence, Union

import numpy as np
import torch
from mmengine.dataset import pseudo_collate

from mmidc.text import clip_tokenizer
from .base_pair_inferencer import BasePairInferencer, Pair
from .image_loading import DEFAULT_MAX_PIXELS, ImageInput
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
        config, checkpoint, device, max_pixels, aspect_tolerance,
        cfg_options, value_range: see :class:`BasePairInferencer`.
        strategy (str, optional): ``'greedy'`` or ``'beam'``; default: the
            config's ``decode_cfg`` (greedy unless it says otherwise).
        beam_size (int, optional): beams for ``'beam'``; default: config's.

    ``strategy`` and ``beam_size`` (here, or per call) are decoding options
    passed to the model's ``predict``; the model's ``decode_cfg`` is not
    changed.
    """

    def __init__(self,
                 config: ConfigType,
                 checkpoint: Union[str, os.PathLike, None] = None,
                 device: Optional[str] = None,
                 strategy: Optional[str] = None,
                 beam_size: Optional[int] = None,
                 max_pixels: Optional[int] = DEFAULT_MAX_PIXELS,
                 aspect_tolerance: Optional[float] = 0.25,
                 cfg_options: Optional[dict] = None,
                 value_range=None) -> None:
        super().__init__(config, checkpoint, device, max_pixels,
                         aspect_tolerance, cfg_options, value_range)
        if not hasattr(self.model, 'decode_cfg'):
            raise TypeError(
                f'{type(self.model).__name__} does not write captions: '
                f'IDCInferencer needs a captioning-stage config '
                f'(CLIP4IDCCaptioner); for retrieval use '
                f'IDCRetrievalInferencer')
        #: This inferencer's decoding options (``strategy``, ``beam_size``),
        #: given to the model's ``predict`` with each batch; the model's
        #: ``decode_cfg`` holds the rest and is never changed.
        self.decode_options = self._decode_options(strategy, beam_size, {})

    @staticmethod
    def _decode_options(strategy: Optional[str], beam_size: Optional[int],
                        defaults: dict) -> dict:
        """``defaults`` with ``strategy`` and ``beam_size`` where given
        (checked)."""
        options = dict(defaults)
        if strategy is not None:
            if strategy not in ('greedy', 'beam'):
                raise ValueError(f"strategy must be 'greedy' or 'beam', got "
                                 f'{strategy!r}')
            options['strategy'] = strategy
        if beam_size is not None:
            if beam_size < 1:
                raise ValueError(f'beam_size must be >= 1, got {beam_size}')
            options['beam_size'] = beam_size
        return options

    @torch.no_grad()
    def predict_samples(self, samples: Sequence[dict],
                        strategy: Optional[str] = None,
                        beam_size: Optional[int] = None) -> List:
        """Caption prepared pairs (:meth:`prepare_pair`) as one batch;
        returns the ``DataSample`` with ``pred_caption`` / ``pred_score``.
        ``strategy`` and ``beam_size`` override :attr:`decode_options` for
        this call (passed to the model's ``predict``)."""
        options = self._decode_options(strategy, beam_size, self.decode_options)
        data = self.model.data_preprocessor(pseudo_collate(list(samples)), False)
        return self.model.predict(data['inputs'], data['data_samples'], **options)

    @torch.no_grad()
    def caption_batch(self, batch, **options) -> List[Dict]:
        """Results of one :meth:`pair_loader` batch, in its order: for each
        pair, :meth:`to_result` of its caption, or ``{'error': Exception}``
        for a pair that could not be used. ``options`` are checked decoding
        options (:meth:`_decode_options`)."""
        preds = []
        if batch.metas:
            data = self.batch_inputs(batch)
            preds = self.model.predict(data['inputs'], data['data_samples'],
                                       **options)
        preds = iter(preds)
        return [{'error': batch.errors[i]} if i in batch.errors
                else self.to_result(next(preds)) for i in batch.indices]

    def stream(self, pairs: Sequence[Pair], batch_size: int = 1,
               strategy: Optional[str] = None,
               beam_size: Optional[int] = None,
               workers: Optional[int] = None,
               worker_type: str = 'auto',
               pair_ids: Optional[Sequence] = None) -> Iterator[List[Dict]]:
        """Caption pairs batch by batch: yields a list of results per batch
        (for progress bars over long lists), each with the pair's
        ``pair_id`` (default: its position) and, where the pair was given
        as paths, ``img1`` and ``img2``. The next batches' images are
        decoded by ``workers`` processes while the model captions this one
        (:meth:`pair_loader`); an unusable image raises its
        :class:`ImageInputError`."""
        options = self._decode_options(strategy, beam_size, self.decode_options)
        pairs = list(pairs)
        ids = list(pair_ids) if pair_ids is not None else list(range(len(pairs)))
        for batch in self.pair_loader(pairs, max(1, batch_size), ids,
                                      workers, worker_type=worker_type):
            results = self.caption_batch(batch, **options)
            for index, result in zip(batch.indices, results):
                if 'error' in result:
                    raise result['error']
                result.update(self.pair_fields(pairs[index], ids[index]))
            yield results

    @staticmethod
    def pair_fields(pair: Pair, pair_id) -> Dict:
        """``pair_id``, and ``img1`` / ``img2`` where the pair's images are
        paths: what tells a result's pair in a list."""
        fields = {'pair_id': pair_id}
        if all(isinstance(p, (str, os.PathLike)) for p in pair):
            fields.update(img1=str(pair[0]), img2=str(pair[1]))
        return fields

    @staticmethod
    def to_result(data_sample) -> Dict:
        """``{'caption': str, 'score': float}`` of a predicted data sample."""
        return {'caption': data_sample.pred_caption,
                'score': float(data_sample.pred_score)}

    def __call__(self,
                 img1: Union[ImageInput, Sequence[Pair]],
                 img2: Optional[ImageInput] = None,
                 batch_size: int = 1,
                 strategy: Optional[str] = None,
                 beam_size: Optional[int] = None,
                 workers: Optional[int] = None,
                 worker_type: str = 'auto',
                 pair_ids: Optional[Sequence] = None) -> Union[Dict, List[Dict]]:
        """Caption one pair, or a list of ``(before, after)`` pairs.

        Args:
            img1: the before image, or a list of pairs (then no ``img2``).
            img2: the after image.
            batch_size (int): pairs per forward pass. Defaults to 1.
            strategy (str, optional): ``'greedy'`` / ``'beam'`` for this call.
            beam_size (int, optional): beams for this call.
            workers (int, optional): image-decoding processes (see
                :meth:`pair_loader`; default: the cores, at most 16, for a
                list; one pair is decoded in this process).
            worker_type (str): ``'auto'`` or ``'process'`` (see
                :meth:`pair_loader`).
            pair_ids (Sequence, optional): the ids of a list's pairs, given
                back in their results (default: their positions).

        Returns:
            dict | list[dict]: ``{'caption': str, 'score': float}`` for one
            pair; for a list, one result per pair, in order, with the
            pair's ``pair_id`` too, and ``img1`` / ``img2`` where the pair
            was given as two paths.
        """
        pairs, single = self._as_pairs(img1, img2)
        if batch_size < 1:
            raise ValueError(f'batch_size must be >= 1, got {batch_size}')
        if single:
            workers = 0
        results = [r for batch in self.stream(pairs, batch_size, strategy,
                                              beam_size, workers, worker_type,
                                              pair_ids)
                   for r in batch]
        if single:
            return {k: results[0][k] for k in ('caption', 'score')}
        return results

    @torch.no_grad()
    def score(self, pairs: Sequence[Pair], captions: Sequence[str],
              batch_size: int = 8, workers: Optional[int] = 0) -> List[Dict]:
        """How likely the model finds given captions of given pairs.

        Each caption is scored under the model with teacher forcing: the
        log-probability of each of its tokens (and the end of the caption)
        given the pair and the tokens before it, from the decoder's logits
        as greedy and beam search read them (the tokens the search never
        generates, padding and the start token, excluded). A caption whose
        words are outside the model's vocabulary scores ``-inf``.

        Args:
            pairs (Sequence[tuple]): ``(before, after)`` images.
            captions (Sequence[str]): one caption per pair.
            batch_size (int): pairs per forward pass. Defaults to 8.
            workers (int, optional): image-decoding processes (see
                :meth:`pair_loader`). Defaults to 0 (this process).

        Returns:
            list[dict]: per pair, ``sum_logprob`` (float, the caption's
            log-probability), ``mean_logprob`` (per token, as the ``score``
            of a generated caption), ``num_tokens`` (words and the end), and
            the :meth:`pair_fields`.

        Raises:
            ValueError: as many captions as pairs are needed, non-empty
                strings; a caption longer than the decoder's ``max_length``.
            ImageInputError: an unusable image, named.
        """
        pairs = list(pairs)
        if isinstance(captions, str) or len(captions) != len(pairs):
            raise ValueError(f'score needs one caption per pair: '
                             f'{len(pairs)} pairs, got {captions!r:.80}')
        if not all(isinstance(c, str) and c.strip() for c in captions):
            raise ValueError('captions must be non-empty strings')
        max_length = self.model.caption_decoder.max_length
        tokens = clip_tokenizer()(list(captions), 77)  # [P, 77]
        lengths = (tokens != 0).sum(-1)
        for caption, length in zip(captions, lengths.tolist()):
            if length > max_length:
                raise ValueError(
                    f'caption {caption!r} is {length} tokens long with its '
                    f'start and end; the decoder takes at most {max_length}')
        tokens = tokens[:, :max_length]
        results = []
        for batch in self.pair_loader(pairs, batch_size, workers=workers):
            for index in batch.indices:
                if index in batch.errors:
                    raise batch.errors[index]
            data = self.batch_inputs(batch)
            batch_tokens = tokens[batch.indices].to(self.device)
            logprobs = self.model.score_captions(data['inputs'], batch_tokens)
            counts = (batch_tokens[:, 1:] != 0).sum(-1).tolist()
            for index, row, count in zip(batch.indices, logprobs.cpu(), counts):
                total = float(row.sum())
                results.append(dict(sum_logprob=total,
                                    mean_logprob=total / max(count, 1),
                                    num_tokens=count,
                                    **self.pair_fields(pairs[index], index)))
        return results

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
