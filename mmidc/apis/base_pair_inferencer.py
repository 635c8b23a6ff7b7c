"""What the captioning and retrieval inferencers share: model loading, input
checking, batching, and the pair encoder's attention maps."""
import logging
import os
from typing import Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from mmengine.config import Config
from mmengine.logging import print_log
from mmpretrain.apis import BaseInferencer
from mmpretrain.structures import DataSample
from torch.utils.data import DataLoader

from mmidc.visualization import PairAttentionVisualizer, cls_attention_maps
from mmidc.datasets.image_io import check_value_range
from .image_loading import DEFAULT_MAX_PIXELS, ImageInput
from .model_loading import ConfigType, init_model
from .pair_loader import (DecodedPairs, PairBatch, PairDecoder,
                          batch_to_inputs, collate_pairs)
from .pair_pipeline import build_image_pipeline, value_range_of

Pair = Tuple[ImageInput, ImageInput]

WORKER_TYPES = ('process', 'thread')


def resolve_worker_type(worker_type: str) -> str:
    """``'auto'`` and ``'process'``: the ``DataLoader``'s worker processes;
    ``'thread'`` is accepted for old scripts, and runs on processes too
    (logged). Any other name is a ``ValueError``."""
    if worker_type not in WORKER_TYPES + ('auto', ):
        raise ValueError(f"worker_type must be 'auto' or one of {WORKER_TYPES}, "
                         f'got {worker_type!r}')
    if worker_type == 'thread':
        print_log("worker_type='thread' is deprecated: images are decoded in "
                  "the DataLoader's worker processes", logger='current',
                  level=logging.WARNING)
    return 'process'


class BasePairInferencer(BaseInferencer):
    """Base of the image-pair inferencers, in MMPretrain's inferencer flow:
    :meth:`preprocess` (a ``DataLoader`` of batches of pairs), :meth:`forward`
    (the model on one batch), :meth:`postprocess` (result dicts), chained
    by :meth:`stream`, which every caller goes through (the attention maps
    too: ``attention=True``). A subclass gives
    ``_predict(data, **forward_kwargs)`` (the model's data samples of a
    :meth:`batch_inputs` batch) and ``to_result(data_sample)`` (a result's
    fields).

    Args:
        config (str | Config | dict): model config (path or object). The
            image part of ``test_dataloader.dataset.pipeline`` (everything
            but ``LoadImagePair`` and ``TokenizeCaptions``) prepares inputs.
        checkpoint (str, optional): trained weights, ``.pth`` (loaded with
            ``weights_only=True``) or ``.safetensors``. None only for tests.
        device (str, optional): ``'cpu'``, ``'cuda'``... Defaults to CUDA if
            available.
        max_pixels (int, optional): pixel budget of one input image; larger
            JPEGs are decoded at reduced size, other formats refused (see
            :func:`load_rgb_image`). Defaults to 40 megapixels.
        aspect_tolerance (float, optional): the two images' aspect ratios
            may differ by this relative amount without a warning; more is
            logged (the pair is captioned all the same, each image resized
            to the input size on its own, as in training). None disables
            the check. Defaults to 0.25.
        cfg_options (dict, optional): overrides merged into the config.
        value_range (str | Sequence[float], optional): how 16-bit and float
            images map to 8 bits (``'full'``, ``(low, high)``, ``'image'``,
            ``'percentile'``; :func:`mmidc.datasets.image_io.to_uint8`).
            Defaults to None: the config's test pipeline's
            ``LoadImagePair.value_range`` (``'full'`` where it sets none),
            so that inference reads images as training did.
    """

    preprocess_kwargs = {'pair_ids', 'workers', 'prefetch', 'worker_type',
                         'resize_on_device'}
    forward_kwargs = {'attention'}

    def __init__(self,
                 config: ConfigType,
                 checkpoint: Union[str, os.PathLike, None] = None,
                 device: Optional[str] = None,
                 max_pixels: Optional[int] = DEFAULT_MAX_PIXELS,
                 aspect_tolerance: Optional[float] = 0.25,
                 cfg_options: Optional[dict] = None,
                 value_range=None) -> None:
        if max_pixels is not None and max_pixels < 1:
            raise ValueError(f'max_pixels must be positive, got {max_pixels}')
        self.max_pixels = max_pixels
        self.aspect_tolerance = aspect_tolerance
        #: How 16-bit and float images map to 8 bits (set with the pipeline).
        self.value_range = value_range
        model = init_model(config, checkpoint, device, cfg_options)
        super().__init__(model=model, pretrained=False)
        self.visualizer = None  # built on first use

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def _init_pipeline(self, cfg: Config):
        if self.value_range is None:
            self.value_range = value_range_of(cfg)
        else:
            self.value_range = check_value_range(self.value_range)
        pipeline = build_image_pipeline(cfg)
        steps = pipeline.transforms
        #: ``(H, W)`` the images are resized to on the model's device, when
        #: the image pipeline is ``ResizePair`` + ``PackIDCInputs`` (else
        #: None: the pipeline runs on each pair in the workers).
        self.input_size = None
        self.meta_keys = getattr(steps[-1], 'meta_keys', ())
        if len(steps) == 2 and type(steps[0]).__name__ == 'ResizePair':
            self.input_size = tuple(steps[0].size)
        return pipeline

    def decoder(self, run_pipeline: bool = False) -> PairDecoder:
        """What loads and checks a pair, with this inferencer's budget and
        ``value_range``; it runs the image pipeline too when
        ``run_pipeline`` or when the pipeline cannot run on the device."""
        return PairDecoder(
            self.max_pixels, self.value_range, self.aspect_tolerance,
            self.pipeline if run_pipeline or self.input_size is None else None)

    # ------------------------------------------------------------ inputs
    def prepare_pair(self, img1: ImageInput, img2: ImageInput,
                     pair_id: Optional[str] = None) -> dict:
        """One pair loaded, checked and packed through the config's image
        pipeline (Pillow's resize, as in training): ``{'inputs': uint8
        [2, 3, H, W], 'data_samples'}``. An unusable image raises its
        :class:`ImageInputError` (:func:`load_rgb_image`)."""
        return self.decoder(run_pipeline=True)(img1, img2, pair_id)

    def _inputs_to_list(self, inputs: Sequence[Pair]) -> List[Pair]:
        """A list of ``(before, after)`` pairs, checked."""
        if not isinstance(inputs, (list, tuple)) or not all(
                isinstance(p, (list, tuple)) and len(p) == 2 for p in inputs):
            raise TypeError('give two images, or one list of (before, after) '
                            'pairs')
        return [tuple(p) for p in inputs]

    def preprocess(self,
                   inputs: Sequence[Pair],
                   batch_size: int = 1,
                   pair_ids: Optional[Sequence] = None,
                   workers: Optional[int] = None,
                   prefetch: int = 2,
                   worker_type: str = 'auto',
                   resize_on_device: Optional[bool] = None) -> DataLoader:
        """A ``DataLoader`` of :class:`~mmidc.apis.pair_loader.PairBatch`
        es, ``batch_size`` pairs each, in input order: each batch is one
        :meth:`forward`'s input. The workers decode and check the images
        (on the CPU they resize them too), the model's process resizes and
        normalises on its device (:meth:`batch_inputs`); a pair that cannot
        be used is an entry of the batch's ``errors``, never stopping the
        batch (:mod:`mmidc.apis.pair_loader`).

        Args:
            inputs (Sequence[tuple]): ``(before, after)`` images.
            batch_size (int): pairs per batch.
            pair_ids (Sequence, optional): ids carried in the data samples
                and results (default: the pairs' positions).
            workers (int, optional): decoding processes. Defaults to the
                number of cores, at most 16; 0 decodes in this process.
            prefetch (int): batches each worker decodes ahead. Defaults to 2.
            worker_type (str): ``'auto'`` or ``'process'``
                (:func:`resolve_worker_type`).
            resize_on_device (bool, optional): resize on the model's device
                (True) or in the workers (False). Defaults to None: on the
                device unless it is the CPU.
        """
        if batch_size < 1:
            raise ValueError(f'batch_size must be >= 1, got {batch_size}')
        resolve_worker_type(worker_type)
        pairs = self._inputs_to_list(inputs)
        ids = list(pair_ids) if pair_ids is not None else list(range(len(pairs)))
        if workers is None:
            workers = min(16, os.cpu_count() or 1)
        workers = min(workers, -(-len(pairs) // batch_size))
        if resize_on_device is None:
            resize_on_device = self.device.type != 'cpu'
        decoder = self.decoder(run_pipeline=not resize_on_device)
        return DataLoader(
            DecodedPairs(pairs, ids, decoder), batch_size,
            shuffle=False, num_workers=workers, collate_fn=collate_pairs,
            pin_memory=self.device.type == 'cuda',
            prefetch_factor=max(1, prefetch) if workers else None)

    def batch_inputs(self, batch: PairBatch) -> dict:
        """The usable pairs of ``batch`` as the model takes them: the data
        preprocessor's ``{'inputs': [b, 2, 3, H, W], 'data_samples'}``,
        resized on the model's device, with ``images`` (the same before
        normalisation, 0-255) and ``indices`` (the pairs' positions)."""
        samples = [DataSample(metainfo={k: meta[k] for k in self.meta_keys
                                        if k in meta}) for meta in batch.metas]
        if self.input_size is not None and 'img_shape' in self.meta_keys:
            for sample in samples:
                sample.set_metainfo(dict(img_shape=self.input_size))
        inputs = batch_to_inputs(batch, self.input_size, self.device)
        data = self.model.data_preprocessor(dict(inputs=inputs, data_samples=samples), False)
        usable = [i for i in batch.indices if i not in batch.errors]
        return dict(data, images=inputs, indices=usable)

    # ------------------------------------------------------------ the flow
    @torch.no_grad()
    def forward(self, batch: PairBatch, attention: bool = False, **kwargs) -> List[DataSample]:
        """The model on one :meth:`preprocess` batch: one data sample per
        pair, in the batch's order, with the pair's ``pair_id`` (and
        ``img1`` / ``img2``) in its metainfo, and the model's prediction
        (:meth:`_predict`), or with ``attention`` its ``attention_maps``
        (:meth:`_attention`), or, for a pair that could not be used, its
        ``error``."""
        predict = self._attention if attention else self._predict
        preds = iter(predict(self.batch_inputs(batch), **kwargs) if batch.metas else ())
        samples = [DataSample() if i in batch.errors else next(preds)
                   for i in batch.indices]
        for sample, index, fields in zip(samples, batch.indices, batch.fields):
            sample.set_metainfo(fields)
            if index in batch.errors:  # set, not copied: any exception
                sample.set_field(batch.errors[index], 'error', field_type='metainfo')
        return samples

    def postprocess(self, preds: List[DataSample], visualization=None,
                    return_datasamples: bool = False) -> List[Dict]:
        """One result per data sample of :meth:`forward`: the pair's
        ``pair_id`` (and ``img1`` / ``img2``), then :meth:`to_result` (or
        the ``attention_maps``), or ``error`` (the exception) for a pair
        that could not be used. The data samples themselves if
        ``return_datasamples``."""
        if return_datasamples:
            return preds
        results = []
        for sample in preds:
            result = {k: sample.metainfo[k] for k in ('pair_id', 'img1', 'img2')
                      if k in sample.metainfo}
            if 'error' in sample:
                result['error'] = sample.error
            else:
                result.update(sample.get('attention_maps') or self.to_result(sample))
            results.append(result)
        return results

    def stream(self, pairs: Sequence[Pair], batch_size: int = 1,
               **kwargs) -> Iterator[List[Dict]]:
        """Results batch by batch, as each batch finishes: :meth:`preprocess`
        (the next batches' images are decoded by worker processes while the
        model runs on this one), :meth:`forward`, :meth:`postprocess`. A pair
        that cannot be used has its ``error`` in its result; the others go
        on. ``kwargs``: those of :meth:`preprocess` (``pair_ids``,
        ``workers``, ``prefetch``, ``worker_type``, ``resize_on_device``)
        and of :meth:`forward` (``attention``; the captioner's ``strategy``,
        ``beam_size``, ``captions``), checked before the first batch."""
        preprocess_kwargs, forward_kwargs, _, _ = self._dispatch_kwargs(**kwargs)
        batches = self.preprocess(pairs, batch_size, **preprocess_kwargs)
        return (self.postprocess(self.forward(batch, **forward_kwargs))
                for batch in batches)

    def _results(self, pairs: Sequence[Pair], batch_size: int = 1,
                 **kwargs) -> List[Dict]:
        """:meth:`stream`'s results in one list; a pair that cannot be used
        raises its error (an unusable image: its :class:`ImageInputError`)."""
        results = []
        for batch in self.stream(pairs, batch_size, **kwargs):
            for result in batch:
                if 'error' in result:
                    raise result['error']
            results.extend(batch)
        return results

    # ------------------------------------------------------------ attention
    def _attention(self, data: dict, **decode_options) -> List[DataSample]:
        """Data samples with ``attention_maps`` (see :meth:`attention_maps`)."""
        inputs = data['inputs']  # [b, 2, 3, H, W], normalised
        _, attentions = self.model.backbone(inputs[:, 0], inputs[:, 1], return_attentions=True)
        maps = cls_attention_maps(attentions, tuple(inputs.shape[-2:]))
        images = data['images'].to(torch.uint8).permute(0, 1, 3, 4, 2).cpu()  # [b, 2, H, W, 3]
        for k, sample in enumerate(data['data_samples']):
            pair = {key: None if v is None else v[k].cpu() for key, v in maps.items()}
            sample.set_field(dict(pair, images=images[k].numpy()), 'attention_maps')
        return data['data_samples']

    def attention_maps(self, img1: ImageInput, img2: ImageInput) -> dict:
        """CLS attention of the pair encoder's last intra and inter blocks
        (:meth:`stream` with ``attention=True``, the pipeline's resize).

        Returns:
            dict: ``images`` (the model inputs, RGB uint8 ``[2, H, W, 3]``),
            ``intra`` and ``inter`` (``[2, gh, gw]`` per image, or None),
            ``inter_per_query`` (``[2, 2, gh, gw]``: CLS query, image). See
            :func:`mmidc.visualization.cls_attention_maps`.
        """
        (result, ) = self._results([(img1, img2)], workers=0, resize_on_device=False,
                                   attention=True)
        return {k: result[k] for k in ('images', 'intra', 'inter', 'inter_per_query')}

    def visualize_attention(self,
                            img1: ImageInput,
                            img2: ImageInput,
                            out_file: Union[str, os.PathLike, None] = None,
                            title: str = '') -> np.ndarray:
        """Draw :meth:`attention_maps` as a labelled grid (PNG if
        ``out_file``); returns the RGB figure."""
        maps = self.attention_maps(img1, img2)
        if self.visualizer is None:
            self.visualizer = PairAttentionVisualizer(
                name=f'pair_attention_{id(self)}')
        before, after = maps['images']
        return self.visualizer.draw_pair_attention(
            before, after, maps, title, out_file)
