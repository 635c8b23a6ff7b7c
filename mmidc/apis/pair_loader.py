"""Pairs to model inputs on a ``torch.utils.data.DataLoader`` (what the
inferencers' ``preprocess`` returns).

Workers decode and check the images (:class:`PairDecoder`, through
:func:`load_rgb_image`, the decoder training uses) into RGB ``uint8`` arrays
and collate each batch into one ``uint8`` tensor per image size
(:func:`collate_pairs`); the model's process resizes the batch on the
model's device (:func:`resize_like_pil`) before the data preprocessor
normalises it. A pair that cannot be used is an error of its batch, not an
exception: the other pairs of the batch go on.
"""
import os
import pickle
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import Dataset

from .image_loading import (ImageInput, check_pair_sizes, describe_image,
                            load_rgb_image)


@dataclass
class PairBatch:
    """One collated batch of pairs.

    Attributes:
        indices (list[int]): the pairs' positions in the input list, in order.
        fields (list[dict]): per pair, in order, what tells it in a result
            (:func:`pair_fields`).
        errors (dict[int, Exception]): position -> why that pair cannot be
            used (usually an :class:`ImageInputError` naming the image).
        metas (list[dict]): the usable pairs' metainfo, in order.
        images (list[tuple[list[int], Tensor]]): the usable pairs' images,
            ``uint8 [n, H, W, 3]`` per size, with their slots (``2 * k`` the
            before and ``2 * k + 1`` the after image of ``metas[k]``).
        packed (Tensor, optional): ``uint8 [b, 2, 3, H, W]``, the usable
            pairs already through the config's pipeline (a pipeline this
            module cannot run on the device); ``images`` is then empty.
    """
    indices: List[int]
    fields: List[dict] = field(default_factory=list)
    errors: Dict[int, Exception] = field(default_factory=dict)
    metas: List[dict] = field(default_factory=list)
    images: List[Tuple[List[int], torch.Tensor]] = field(default_factory=list)
    packed: Optional[torch.Tensor] = None

    def pin_memory(self) -> 'PairBatch':
        """Page-locked image tensors (``DataLoader(pin_memory=True)``)."""
        self.images = [(slots, x.pin_memory()) for slots, x in self.images]
        if self.packed is not None:
            self.packed = self.packed.pin_memory()
        return self


class PairDecoder:
    """Load and check one pair (picklable: it travels to the workers).

    Args:
        max_pixels (int, optional): pixel budget of one image
            (:func:`load_rgb_image`).
        value_range: how 16-bit and float images map to 8 bits.
        aspect_tolerance (float, optional): see :func:`check_pair_sizes`.
        pipeline (callable, optional): the config's image pipeline, run on
            the decoded pair; None leaves the arrays to be resized on the
            model's device.
    """

    def __init__(self, max_pixels: Optional[int], value_range,
                 aspect_tolerance: Optional[float], pipeline=None):
        self.max_pixels = max_pixels
        self.value_range = value_range
        self.aspect_tolerance = aspect_tolerance
        self.pipeline = pipeline

    def __call__(self, img1: ImageInput, img2: ImageInput,
                 pair_id=None) -> dict:
        """The pipeline's input of one pair: ``img1``, ``img2`` (RGB
        ``uint8 [H, W, 3]``), their names as ``img1_path`` / ``img2_path``,
        ``ori_shape``, ``pair_id`` and empty reference captions; or, with a
        ``pipeline``, its output.

        Raises:
            ImageInputError: an image is missing, unreadable or too large.
        """
        names = [describe_image(img1), describe_image(img2)]
        before = load_rgb_image(img1, self.max_pixels, names[0],
                                self.value_range)
        after = load_rgb_image(img2, self.max_pixels, names[1],
                               self.value_range)
        check_pair_sizes(before.shape[1::-1], after.shape[1::-1], names,
                         self.aspect_tolerance)
        results = dict(img1=before, img2=after, img1_path=names[0],
                       img2_path=names[1],
                       ori_shape=(before.shape[:2], after.shape[:2]),
                       pair_id=str(pair_id if pair_id is not None else 0),
                       change_type='unknown', gt_captions=[])
        return results if self.pipeline is None else self.pipeline(results)


def pair_fields(pair: tuple, pair_id) -> dict:
    """``pair_id``, and ``img1`` / ``img2`` where the pair's images are
    paths: what tells a result's pair in a list."""
    fields = {'pair_id': pair_id}
    if all(isinstance(p, (str, os.PathLike)) for p in pair):
        fields.update(img1=str(pair[0]), img2=str(pair[1]))
    return fields


class DecodedPairs(Dataset):
    """The pairs to caption, decoded by ``decoder``: item ``i`` is ``(i,
    pair_fields, what the decoder returns)``, or ``(i, pair_fields, the
    exception)`` when it fails."""

    def __init__(self, pairs: Sequence[tuple], pair_ids: Sequence,
                 decoder: PairDecoder):
        if len(pair_ids) != len(pairs):
            raise ValueError(f'{len(pair_ids)} pair_ids for {len(pairs)} pairs')
        self.pairs, self.pair_ids, self.decoder = list(pairs), list(pair_ids), decoder

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, index: int) -> Tuple[int, dict, Union[dict, Exception]]:
        pair, pair_id = self.pairs[index], self.pair_ids[index]
        try:
            return index, pair_fields(pair, pair_id), self.decoder(*pair, pair_id)
        except Exception as err:  # noqa: B902 (one pair's failure)
            return index, pair_fields(pair, pair_id), err


def _sendable(err: Exception) -> Exception:
    """``err``, or a RuntimeError with its type and message when it cannot
    be pickled (to cross from a worker process)."""
    try:
        pickle.dumps(err)
        return err
    except Exception:  # noqa: B902
        return RuntimeError(f'{type(err).__name__}: {err}')


def collate_pairs(items: Sequence[Tuple[int, dict, Union[dict, Exception]]]) -> PairBatch:
    """``DecodedPairs`` items -> one :class:`PairBatch`: the images stacked
    into one ``uint8`` tensor per size (one for a batch of equal sizes), or
    the pipeline's packed ``inputs`` stacked."""
    batch = PairBatch(indices=[index for index, _, _ in items],
                      fields=[fields for _, fields, _ in items])
    by_size: Dict[tuple, Tuple[List[int], List[np.ndarray]]] = {}
    packed = []
    for index, _, item in items:
        if isinstance(item, Exception):
            batch.errors[index] = _sendable(item)
            continue
        if 'inputs' in item:  # through the config's own pipeline
            packed.append(item['inputs'])
            batch.metas.append(item['data_samples'].metainfo)
            continue
        slot = 2 * len(batch.metas)
        for side, key in enumerate(('img1', 'img2')):
            image = item.pop(key)
            slots, images = by_size.setdefault(image.shape, ([], []))
            slots.append(slot + side)
            images.append(image)
        batch.metas.append(item)
    batch.images = [(slots, torch.from_numpy(np.stack(images)))
                    for slots, images in by_size.values()]
    if packed:
        batch.packed = torch.stack(packed)
    return batch


def resize_like_pil(images: torch.Tensor, size: Tuple[int, int]) -> torch.Tensor:
    """Bicubic resize of float images ``[n, 3, H, W]`` (0-255) to ``size``
    ``(h, w)``, as the data pipeline's ``ResizePair`` does with Pillow.

    Pillow resizes in two separable passes, the one that shrinks more
    first, with antialiasing and rounding to 8 bits after each pass; this
    does the same with ``torch.nn.functional.interpolate``. The result
    differs from Pillow's by at most one grey level, on a small share of
    the pixels (fixed-point rounding; tests/test_apis/test_pair_loader.py).

    Returns:
        Tensor: float ``[n, 3, h, w]``, integer values 0-255.
    """
    height, width = images.shape[-2:]
    target_h, target_w = size
    if (height, width) == (target_h, target_w):
        return images
    passes = [(height, target_w), (target_h, target_w)]
    if target_h * width < target_w * height:  # the vertical pass shrinks more
        passes[0] = (target_h, width)
    for step in passes:
        if tuple(images.shape[-2:]) != step:
            images = F.interpolate(images, step, mode='bicubic',
                                   antialias=True, align_corners=False)
            images = torch.floor(images + 0.5).clamp_(0, 255)
    return images


def batch_to_inputs(batch: PairBatch, size: Optional[Tuple[int, int]],
                    device: torch.device) -> torch.Tensor:
    """The usable pairs of ``batch`` as float ``[b, 2, 3, h, w]`` images
    (0-255, not normalised) on ``device``, resized there to ``size``."""
    non_blocking = device.type == 'cuda'
    if batch.packed is not None:
        return batch.packed.to(device, non_blocking=non_blocking).float()
    count = 2 * len(batch.metas)
    out = torch.empty(count, 3, *size, device=device)
    for slots, images in batch.images:
        images = images.to(device, non_blocking=non_blocking)
        resized = resize_like_pil(images.permute(0, 3, 1, 2).float(), size)
        if len(slots) == count:  # one size: the slots are 0..count-1
            out = resized
        else:
            out[torch.tensor(slots, device=device)] = resized
    return out.reshape(-1, 2, 3, *size)
