"""What the captioning and retrieval inferencers share: model loading, input
checking, batching, and the pair encoder's attention maps."""
import itertools
import multiprocessing
import os
import pickle
from collections import deque
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
from mmengine.config import Config
from mmengine.dataset import pseudo_collate
from mmpretrain.apis import BaseInferencer

from mmidc.visualization import PairAttentionVisualizer, cls_attention_maps
from mmidc.datasets.image_io import check_value_range
from .image_loading import (DEFAULT_MAX_PIXELS, ImageInput,
                            check_pair_sizes, describe_image, load_rgb_image)
from .model_loading import ConfigType, init_model
from .pair_pipeline import build_image_pipeline, value_range_of

Pair = Tuple[ImageInput, ImageInput]
#: ``(index, packed sample)``, or ``(index, error)`` for an unusable pair.
PreparedPair = Tuple[int, Union[dict, Exception]]


def _sample_or_raise(item: Union[dict, Exception]) -> dict:
    if isinstance(item, Exception):
        raise item
    return item


WORKER_TYPES = ('thread', 'process')
#: What the worker processes of ``prepared_batches`` prepare from: ``{call:
#: (inferencer, pairs, ids)}``, filled before the pool forks its workers
#: (they inherit it; nothing but the call and index crosses to them).
_FORKED_CALLS = {}
_CALL_IDS = itertools.count()


def _prepare_one(inferencer, pairs, ids, index: int) -> PreparedPair:
    before, after = pairs[index]
    try:
        return index, inferencer.prepare_pair(before, after, ids[index])
    except Exception as err:  # noqa: B902 (one pair's failure)
        return index, err


def _init_forked_worker() -> None:
    # one intra-op thread, as DataLoader workers: an OpenMP pool inherited
    # from the parent by fork must not be used in the child
    torch.set_num_threads(1)


def resolve_worker_type(worker_type: str, workers: int, num_pairs: int) -> str:
    """``'auto'``: threads (see :meth:`BasePairInferencer.prepared_batches`).

    On one H200 with 16 cores, 16 threads prepared 292 pairs/s of 480x320
    PNGs and 16 forked processes 224 (docs/benchmark.md): a process costs a
    copy of each prepared pair and one task per pair, which outweighs the
    interpreter lock that caps the threads."""
    if worker_type not in WORKER_TYPES + ('auto', ):
        raise ValueError(f"worker_type must be 'auto' or one of {WORKER_TYPES}, "
                         f'got {worker_type!r}')
    can_fork = 'fork' in multiprocessing.get_all_start_methods()
    if worker_type == 'process' and not can_fork:
        raise ValueError("worker_type='process' needs the 'fork' start method "
                         "(POSIX); use worker_type='thread'")
    if worker_type == 'auto':
        return 'thread'
    return worker_type


def _prepare_in_forked_worker(call: int, index: int) -> bytes:
    # pickled here by value: tensors then cross as bytes, not as shared-memory
    # handles (one open file each)
    index, item = _prepare_one(*_FORKED_CALLS[call], index)
    try:
        return pickle.dumps((index, item))
    except Exception as err:  # noqa: B902 (an error that cannot be pickled)
        return pickle.dumps((index, RuntimeError(
            f'{type(item).__name__}: {item}' if isinstance(item, Exception)
            else f'the prepared pair cannot be sent between processes: {err}')))


class BasePairInferencer(BaseInferencer):
    """Base of the image-pair inferencers (MMPretrain's inferencer workflow).

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
        return build_image_pipeline(cfg)

    # ------------------------------------------------------------ inputs
    def prepare_pair(self,
                     img1: ImageInput,
                     img2: ImageInput,
                     pair_id: Optional[str] = None,
                     names: Optional[Sequence[str]] = None) -> dict:
        """Load, check and pack one pair.

        Args:
            img1, img2: before / after image: path, PIL image or RGB array.
            pair_id (str, optional): id carried in the data sample.
            names (Sequence[str], optional): names of the images in
                messages (default: the paths, or a description).

        Returns:
            dict: ``{'inputs': uint8 [2, 3, H, W], 'data_samples'}``.

        Raises:
            ImageInputError: see :func:`load_rgb_image` and
                :func:`check_pair_sizes`; the message names the image.
        """
        names = list(names) if names else [describe_image(img1),
                                           describe_image(img2)]
        before = load_rgb_image(img1, self.max_pixels, names[0],
                                self.value_range)
        after = load_rgb_image(img2, self.max_pixels, names[1],
                               self.value_range)
        check_pair_sizes(before.shape[1::-1], after.shape[1::-1], names,
                         self.aspect_tolerance)
        results = dict(
            img1=before, img2=after, img1_path=names[0], img2_path=names[1],
            ori_shape=(before.shape[:2], after.shape[:2]),
            pair_id=str(pair_id if pair_id is not None else 0),
            change_type='unknown', gt_captions=[])
        return self.pipeline(results)

    @staticmethod
    def _as_pairs(img1, img2) -> Tuple[List[Pair], bool]:
        """``(img1, img2)`` or a list of pairs -> (pairs, was_single)."""
        if img2 is not None:
            return [(img1, img2)], True
        if not isinstance(img1, (list, tuple)) or not all(
                isinstance(p, (list, tuple)) and len(p) == 2 for p in img1):
            raise TypeError('give two images, or one list of (before, after) '
                            'pairs')
        return [tuple(p) for p in img1], False

    def prepared_batches(self,
                         pairs: Sequence[Pair],
                         batch_size: int = 1,
                         pair_ids: Optional[Sequence[str]] = None,
                         workers: Optional[int] = None,
                         prefetch: int = 2,
                         worker_type: str = 'auto') -> Iterator[List[PreparedPair]]:
        """Prepare pairs on a pool of workers, ``batch_size`` at a time.

        Images are decoded and resized by ``workers`` threads or processes,
        up to ``prefetch`` batches ahead of the one handed out, so that
        decoding the next batches overlaps the model's work on this one.
        Threads start at once, but Pillow releases the interpreter lock only
        while it decodes and resizes: the rest of a pair's preparation (about
        a quarter of it) runs one thread at a time, so more than a few
        threads add little. Processes (forked: POSIX only) have no such limit
        but cost a copy of each prepared pair between processes. Each item of
        a batch is ``(index, sample)``, or ``(index, error)`` for a pair that
        could not be prepared (usually an :class:`ImageInputError`; any
        ``Exception``, so that one pair never stops a batch), in input order.

        Args:
            pairs (Sequence[tuple]): ``(before, after)`` images.
            batch_size (int): pairs per batch.
            pair_ids (Sequence[str], optional): ids carried in the data
                samples (default: the pairs' positions).
            workers (int, optional): decoding threads or processes.
                Defaults to the number of cores, at most 16; 0 decodes in
                this thread.
            prefetch (int): batches decoded ahead. Defaults to 2.
            worker_type (str): ``'thread'``, ``'process'`` or ``'auto'``
                (default: threads, the faster kind where measured; see
                :func:`resolve_worker_type`).
        """
        if batch_size < 1:
            raise ValueError(f'batch_size must be >= 1, got {batch_size}')
        pairs = list(pairs)
        ids = list(pair_ids) if pair_ids is not None else list(range(len(pairs)))
        if workers is None:
            workers = min(16, os.cpu_count() or 1)
        worker_type = resolve_worker_type(worker_type, workers, len(pairs))
        if workers == 0:
            for start in range(0, len(pairs), batch_size):
                yield [_prepare_one(self, pairs, ids, i) for i in range(
                    start, min(start + batch_size, len(pairs)))]
            return
        if worker_type == 'thread':
            pool = ThreadPoolExecutor(workers, thread_name_prefix='decode')

            def submit(index):
                return pool.submit(_prepare_one, self, pairs, ids, index)

            def result(future):
                return future.result()
        else:
            call = next(_CALL_IDS)
            _FORKED_CALLS[call] = (self, pairs, ids)
            pool = ProcessPoolExecutor(
                workers, mp_context=multiprocessing.get_context('fork'),
                initializer=_init_forked_worker)

            def submit(index):
                return pool.submit(_prepare_in_forked_worker, call, index)

            def result(future):
                return pickle.loads(future.result())
        window = batch_size * (1 + max(0, prefetch))
        try:
            pending = deque(submit(i) for i in range(min(window, len(pairs))))
            submitted = len(pending)
            while pending:
                batch = [result(pending.popleft())
                         for _ in range(min(batch_size, len(pending)))]
                while submitted < len(pairs) and len(pending) < window - len(batch):
                    pending.append(submit(submitted))
                    submitted += 1
                yield batch
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            if worker_type == 'process':
                _FORKED_CALLS.pop(call, None)

    def iter_batches(self, pairs: Sequence[Pair],
                     batch_size: int = 1) -> Iterator[dict]:
        """Collated batches of prepared pairs (for ``model.test_step``);
        an unusable image raises its :class:`ImageInputError`."""
        for batch in self.prepared_batches(pairs, batch_size):
            yield pseudo_collate([_sample_or_raise(item) for _, item in batch])

    # ------------------------------------------------------------ attention
    @torch.no_grad()
    def attention_maps(self, img1: ImageInput, img2: ImageInput) -> dict:
        """CLS attention of the pair encoder's last intra and inter blocks.

        Returns:
            dict: ``images`` (the model inputs, RGB uint8 ``[2, H, W, 3]``),
            ``intra`` and ``inter`` (``[2, gh, gw]`` per image, or None),
            ``inter_per_query`` (``[2, 2, gh, gw]``: CLS query, image). See
            :func:`mmidc.visualization.cls_attention_maps`.
        """
        sample = self.prepare_pair(img1, img2)
        data = self.model.data_preprocessor(pseudo_collate([sample]), False)
        inputs = data['inputs']  # [1, 2, 3, H, W], normalised
        _, attentions = self.model.backbone(
            inputs[:, 0], inputs[:, 1], return_attentions=True)
        maps = cls_attention_maps(attentions, tuple(inputs.shape[-2:]))
        out = {k: None if v is None else v[0].cpu() for k, v in maps.items()}
        out['images'] = sample['inputs'].permute(0, 2, 3, 1).numpy()  # [2, H, W, 3]
        return out

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

    def postprocess(self, preds, visualization=None,
                    return_datasamples: bool = False, **kwargs):
        return preds
