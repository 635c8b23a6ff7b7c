"""Caption the difference between two images of your own."""
import os
from typing import Dict, Iterator, List, Optional, Sequence, Union

import numpy as np
import torch
from mmengine.dataset import pseudo_collate

from .base_pair_inferencer import BasePairInferencer, Pair, _sample_or_raise
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

    def stream(self, pairs: Sequence[Pair], batch_size: int = 1,
               strategy: Optional[str] = None,
               beam_size: Optional[int] = None,
               workers: Optional[int] = None,
               worker_type: str = 'auto') -> Iterator[List[Dict]]:
        """Caption pairs batch by batch: yields a list of results per batch
        (for progress bars over long lists). The next batches' images are
        decoded by ``workers`` threads or processes while the model captions
        this one (:meth:`prepared_batches`); an unusable image raises its
        :class:`ImageInputError`."""
        for batch in self.prepared_batches(pairs, max(1, batch_size),
                                           workers=workers, worker_type=worker_type):
            samples = [_sample_or_raise(item) for _, item in batch]
            yield [self.to_result(ds) for ds in
                   self.predict_samples(samples, strategy, beam_size)]

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
                 worker_type: str = 'auto') -> Union[Dict, List[Dict]]:
        """Caption one pair, or a list of ``(before, after)`` pairs.

        Args:
            img1: the before image, or a list of pairs (then no ``img2``).
            img2: the after image.
            batch_size (int): pairs per forward pass. Defaults to 1.
            strategy (str, optional): ``'greedy'`` / ``'beam'`` for this call.
            beam_size (int, optional): beams for this call.
            workers (int, optional): image-decoding threads or processes
                (see :meth:`prepared_batches`).
            worker_type (str): ``'thread'``, ``'process'`` or ``'auto'``
                (see :meth:`prepared_batches`).

        Returns:
            dict | list[dict]: ``{'caption': str, 'score': float}`` per pair.
        """
        pairs, single = self._as_pairs(img1, img2)
        if batch_size < 1:
            raise ValueError(f'batch_size must be >= 1, got {batch_size}')
        results = [r for batch in self.stream(pairs, batch_size, strategy,
                                              beam_size, workers, worker_type)
                   for r in batch]
        return results[0] if single else results

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
