"""Zero-shot attribute accuracy of a CLIP on single-object renders.

Each attribute (colour, material, shape, size) is a zero-shot classification:
the image is assigned the value whose prompt ("a photo of a red object", ...)
has the highest cosine similarity with it, as CLIP's zero-shot ImageNet
evaluation does. Chance is one over the number of values.
"""
from typing import Dict, Mapping, Sequence

import numpy as np
import torch

from ..synthetic.properties import COLORS, MATERIALS, SHAPES, SIZES

__all__ = ['ATTRIBUTE_PROMPTS', 'zero_shot_accuracy', 'attribute_zero_shot',
           'to_model_input']

#: attribute -> {value: prompt}; the values are the scene graphs' names.
ATTRIBUTE_PROMPTS = {
    'color': {c: f'a photo of a {c} object' for c in COLORS},
    'material': {m: f'a photo of a {m} object' for m in MATERIALS},
    'shape': {s: f'a photo of a {s}' for s in SHAPES},
    'size': {s: f'a photo of a {s} object' for s in SIZES},
}


def zero_shot_accuracy(image_features: torch.Tensor,
                       class_features: torch.Tensor,
                       labels: torch.Tensor) -> float:
    """Fraction of images whose most similar class (cosine) is their label.

    Args:
        image_features (torch.Tensor): ``[N, D]``.
        class_features (torch.Tensor): ``[C, D]``, one row per class.
        labels (torch.Tensor): ``[N]`` class indices.
    """
    if image_features.ndim != 2 or class_features.ndim != 2 or \
            image_features.shape[1] != class_features.shape[1]:
        raise ValueError(f'features must be [N, D] and [C, D], got '
                         f'{tuple(image_features.shape)} and '
                         f'{tuple(class_features.shape)}')
    if labels.shape != (image_features.shape[0], ):
        raise ValueError(f'labels must be [N] = [{image_features.shape[0]}], '
                         f'got {tuple(labels.shape)}')
    image = torch.nn.functional.normalize(image_features.float(), dim=-1)
    text = torch.nn.functional.normalize(class_features.float(), dim=-1)
    predicted = (image @ text.t()).argmax(dim=-1)
    return float((predicted == labels).float().mean())


@torch.no_grad()
def attribute_zero_shot(
        model: torch.nn.Module,
        tokenizer,
        images: torch.Tensor,
        attributes: Sequence[Mapping[str, str]],
        prompts: Mapping[str, Mapping[str, str]] = ATTRIBUTE_PROMPTS,
        batch_size: int = 256) -> Dict[str, dict]:
    """Zero-shot accuracy of an open_clip model per attribute.

    Args:
        model (nn.Module): An open_clip CLIP (``encode_image``,
            ``encode_text``).
        tokenizer (callable): Its tokenizer (list of str -> token tensor).
        images (torch.Tensor): ``[N, 3, H, W]``, normalised as the model
            expects.
        attributes (Sequence[Mapping]): Per image, its object's value of each
            attribute in ``prompts`` (e.g. ``SceneObject.to_dict()``).
        prompts (Mapping): attribute -> {value: prompt}.
        batch_size (int): Images per forward pass.

    Returns:
        dict: attribute -> ``{'accuracy', 'chance', 'num'}``.
    """
    if len(attributes) != len(images):
        raise ValueError(f'{len(images)} images but {len(attributes)} '
                         'attribute records')
    model.eval()
    feats = torch.cat([model.encode_image(images[i:i + batch_size])
                       for i in range(0, len(images), batch_size)])
    results = {}
    for attribute, by_value in prompts.items():
        values = list(by_value)
        missing = [i for i, a in enumerate(attributes)
                   if a.get(attribute) not in by_value]
        if missing:
            raise KeyError(f'attribute {attribute!r}: image {missing[0]} has '
                           f'value {attributes[missing[0]].get(attribute)!r}, '
                           f'not one of {values}')
        text = model.encode_text(tokenizer([by_value[v] for v in values]))
        labels = torch.tensor([values.index(a[attribute])
                               for a in attributes])
        results[attribute] = dict(
            accuracy=zero_shot_accuracy(feats, text, labels),
            chance=1 / len(values), num=len(attributes))
    return results


def to_model_input(images: np.ndarray, mean: Sequence[float],
                   std: Sequence[float]) -> torch.Tensor:
    """uint8 ``[N, H, W, 3]`` -> normalised float ``[N, 3, H, W]``.

    Args:
        images (np.ndarray): RGB images.
        mean (Sequence[float]): Per-channel mean on the 0-1 scale.
        std (Sequence[float]): Per-channel std on the 0-1 scale.
    """
    x = torch.from_numpy(np.ascontiguousarray(images)).permute(0, 3, 1, 2)
    x = x.float() / 255
    mean = torch.tensor(mean, dtype=torch.float32).view(1, 3, 1, 1)
    std = torch.tensor(std, dtype=torch.float32).view(1, 3, 1, 1)
    return (x - mean) / std
