"""Zero-shot attribute accuracy of a CLIP on single-object renders.

Each attribute (colour, material, shape, size) is a zero-shot classification:
the image is assigned the value whose prompt ("a photo of a red object", ...)
has the highest cosine similarity with it, as CLIP's zero-shot ImageNet
evaluation does. Chance is one over the number of values.

A linear probe asks the image tower alone: a multinomial logistic regression
on the image embeddings of held-out training renders, scored on the test
renders. An attribute the probe reads but zero-shot misses is a text-side
(alignment) gap; one the probe cannot read is not in the image embedding.

A fine-tuned probe trains a copy of the image tower itself with the labels:
what the architecture can learn of an attribute from that many labelled
renders, a ceiling for what pre-training could put in the embedding.
"""
import copy
from typing import Dict, List, Mapping, Sequence

import numpy as np
import torch
from mmengine.logging import print_log

from mmidc.synthetic.properties import COLORS, MATERIALS, SHAPES, SIZES

__all__ = ['ATTRIBUTE_PROMPTS', 'zero_shot_accuracy', 'attribute_zero_shot',
           'linear_probe_accuracy', 'attribute_linear_probe',
           'finetune_probe_accuracy', 'attribute_finetune_probe',
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
        text = model.encode_text(tokenizer([by_value[v] for v in values]))
        labels = attribute_labels(attribute, values, attributes)
        results[attribute] = dict(
            accuracy=zero_shot_accuracy(feats, text, labels),
            chance=1 / len(values), num=len(attributes))
    return results


def _check_labelled(kind: str, layout: str, train: torch.Tensor,
                    train_labels: torch.Tensor, test: torch.Tensor,
                    test_labels: torch.Tensor) -> None:
    """Each split's ``kind`` has ``layout``'s rank and one label per row."""
    for split, x, labels in (('train', train, train_labels),
                             ('test', test, test_labels)):
        if x.ndim != layout.count(',') + 1 or labels.shape != (x.shape[0], ):
            raise ValueError(f'{split} {kind} must be {layout} with [N] '
                             f'labels, got {tuple(x.shape)} and '
                             f'{tuple(labels.shape)}')


def linear_probe_accuracy(train_features: torch.Tensor,
                          train_labels: torch.Tensor,
                          test_features: torch.Tensor,
                          test_labels: torch.Tensor, num_classes: int,
                          weight_decay: float = 1e-3,
                          max_iter: int = 200) -> float:
    """Test accuracy of a logistic regression fitted on the train features.

    The features are standardised with the train set's mean and std; the
    regression (``num_classes`` outputs, L2 penalty ``weight_decay`` on the
    weights) is fitted by L-BFGS, deterministically from zero weights.

    Args:
        train_features (torch.Tensor): ``[N, D]``.
        train_labels (torch.Tensor): ``[N]`` class indices.
        test_features (torch.Tensor): ``[M, D]``.
        test_labels (torch.Tensor): ``[M]`` class indices.
        num_classes (int): Number of classes.
        weight_decay (float): L2 penalty on the weights.
        max_iter (int): L-BFGS iterations.
    """
    _check_labelled('features', '[N, D]', train_features, train_labels,
                    test_features, test_labels)
    if train_features.shape[1] != test_features.shape[1]:
        raise ValueError(f'train and test features differ in width: '
                         f'{train_features.shape[1]} vs '
                         f'{test_features.shape[1]}')
    mean = train_features.float().mean(0)
    std = train_features.float().std(0) + 1e-6
    x_train = (train_features.float() - mean) / std  # [N, D]
    x_test = (test_features.float() - mean) / std  # [M, D]
    weight = torch.zeros(num_classes, x_train.shape[1], requires_grad=True)
    bias = torch.zeros(num_classes, requires_grad=True)
    optimizer = torch.optim.LBFGS([weight, bias], max_iter=max_iter,
                                  line_search_fn='strong_wolfe')

    def closure():
        optimizer.zero_grad()
        logits = x_train @ weight.t() + bias  # [N, C]
        loss = torch.nn.functional.cross_entropy(logits, train_labels) \
            + weight_decay * weight.pow(2).sum()
        loss.backward()
        return loss

    with torch.enable_grad():
        optimizer.step(closure)
    with torch.no_grad():
        predicted = (x_test @ weight.t() + bias).argmax(-1)  # [M]
    return float((predicted == test_labels).float().mean())


def attribute_labels(attribute: str, values: Sequence[str],
                     records: Sequence[Mapping[str, str]],
                     split: str = '') -> torch.Tensor:
    """``[N]`` indices in ``values`` of each record's ``attribute``; a value
    not in ``values`` is named with its image (and ``split``)."""
    values = list(values)
    bad = [i for i, a in enumerate(records) if a.get(attribute) not in values]
    if bad:
        where = f'{split} image' if split else 'image'
        raise KeyError(f'attribute {attribute!r}: {where} {bad[0]} has value '
                       f'{records[bad[0]].get(attribute)!r}, not one of '
                       f'{values}')
    return torch.tensor([values.index(a[attribute]) for a in records])


@torch.no_grad()
def attribute_linear_probe(
        model: torch.nn.Module,
        train_images: torch.Tensor,
        train_attributes: Sequence[Mapping[str, str]],
        test_images: torch.Tensor,
        test_attributes: Sequence[Mapping[str, str]],
        attributes: Mapping[str, Sequence[str]] = None,
        batch_size: int = 256) -> Dict[str, dict]:
    """Linear-probe accuracy of a model's image embedding per attribute.

    Args:
        model (nn.Module): A model with ``encode_image``.
        train_images (torch.Tensor): ``[N, 3, H, W]``, normalised.
        train_attributes (Sequence[Mapping]): Per train image, its object's
            attribute values.
        test_images (torch.Tensor): ``[M, 3, H, W]``, normalised.
        test_attributes (Sequence[Mapping]): Per test image, likewise.
        attributes (Mapping): attribute -> its values (default: those of
            :data:`ATTRIBUTE_PROMPTS`).
        batch_size (int): Images per forward pass.

    Returns:
        dict: attribute -> ``{'accuracy', 'chance', 'num_train', 'num'}``.
    """
    if attributes is None:
        attributes = {a: list(v) for a, v in ATTRIBUTE_PROMPTS.items()}
    for name, images, records in (('train', train_images, train_attributes),
                                  ('test', test_images, test_attributes)):
        if len(records) != len(images):
            raise ValueError(f'{len(images)} {name} images but '
                             f'{len(records)} attribute records')
    model.eval()

    def embed(images):  # [N, 3, H, W] -> [N, D]
        return torch.cat([model.encode_image(images[i:i + batch_size])
                          for i in range(0, len(images), batch_size)])

    train_feats, test_feats = embed(train_images), embed(test_images)
    results = {}
    for attribute, values in attributes.items():
        values = list(values)
        labels = [attribute_labels(attribute, values, train_attributes,
                                   'train'),
                  attribute_labels(attribute, values, test_attributes, 'test')]
        results[attribute] = dict(
            accuracy=linear_probe_accuracy(train_feats, labels[0], test_feats,
                                           labels[1], len(values)),
            chance=1 / len(values), num_train=len(train_attributes),
            num=len(test_attributes))
    return results


def finetune_probe_accuracy(tower: torch.nn.Module,
                            train_images: torch.Tensor,
                            train_labels: torch.Tensor,
                            test_images: torch.Tensor,
                            test_labels: torch.Tensor, num_classes: int,
                            epochs: int = 5, lr: float = 3e-4,
                            weight_decay: float = 0.05, batch_size: int = 64,
                            seed: int = 0, name: str = 'probe') -> List[float]:
    """Test accuracy after each epoch of supervised training of a copy of
    ``tower`` with a linear classifier on its output.

    ``tower`` itself is left unchanged. AdamW trains every parameter of the
    copy and the classifier (a ``Linear`` over the tower's ``[N, D]``
    output) with cross-entropy, in shuffled batches; the classifier's
    initialisation and the order of the batches come from ``seed``.

    Args:
        tower (nn.Module): ``[N, 3, H, W]`` -> ``[N, D]`` (e.g. an open_clip
            model's ``visual``).
        train_images (torch.Tensor): ``[N, 3, H, W]``, normalised.
        train_labels (torch.Tensor): ``[N]`` class indices.
        test_images (torch.Tensor): ``[M, 3, H, W]``, normalised.
        test_labels (torch.Tensor): ``[M]`` class indices.
        num_classes (int): Number of classes.
        epochs (int): Passes over the train images.
        lr (float): AdamW learning rate.
        weight_decay (float): AdamW weight decay.
        batch_size (int): Images per step.
        seed (int): Seed of the classifier's initialisation and the order.
        name (str): Name in the progress log.
    """
    _check_labelled('images', '[N, 3, H, W]', train_images, train_labels,
                    test_images, test_labels)
    if epochs < 1:
        raise ValueError(f'epochs must be >= 1, got {epochs}')
    tower = copy.deepcopy(tower)
    generator = torch.Generator().manual_seed(seed)

    def predict(images):  # [M, 3, H, W] -> [M]
        tower.eval()
        with torch.no_grad():
            return torch.cat([
                classifier(tower(images[i:i + batch_size])).argmax(-1)
                for i in range(0, len(images), batch_size)])

    with torch.no_grad():
        width = tower(test_images[:1]).shape[-1]
    classifier = torch.nn.Linear(width, num_classes)
    with torch.no_grad():
        bound = 1 / width**0.5
        classifier.weight.uniform_(-bound, bound, generator=generator)
        classifier.bias.uniform_(-bound, bound, generator=generator)
    optimizer = torch.optim.AdamW(
        list(tower.parameters()) + list(classifier.parameters()), lr=lr,
        weight_decay=weight_decay)
    accuracies = []
    with torch.enable_grad():
        for epoch in range(epochs):
            tower.train()
            order = torch.randperm(len(train_images), generator=generator)
            total = 0.
            for i in range(0, len(order), batch_size):
                batch = order[i:i + batch_size]
                logits = classifier(tower(train_images[batch]))  # [B, C]
                loss = torch.nn.functional.cross_entropy(
                    logits, train_labels[batch])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * len(batch)
            accuracies.append(float(
                (predict(test_images) == test_labels).float().mean()))
            print_log(f'fine-tuned probe ({name}): epoch {epoch + 1}/'
                      f'{epochs}, train loss {total / len(order):.3f}, test '
                      f'accuracy {100 * accuracies[-1]:.1f}%',
                      logger='current')
    return accuracies


def attribute_finetune_probe(
        model: torch.nn.Module,
        train_images: torch.Tensor,
        train_attributes: Sequence[Mapping[str, str]],
        test_images: torch.Tensor,
        test_attributes: Sequence[Mapping[str, str]],
        attributes: Mapping[str, Sequence[str]],
        **kwargs) -> Dict[str, dict]:
    """Fine-tuned-probe accuracy of an open_clip model's image tower per
    attribute, each attribute trained from the model's own weights.

    Args:
        model (nn.Module): An open_clip CLIP (its ``visual`` is trained, on a
            copy).
        train_images (torch.Tensor): ``[N, 3, H, W]``, normalised.
        train_attributes (Sequence[Mapping]): Per train image, its object's
            attribute values.
        test_images (torch.Tensor): ``[M, 3, H, W]``, normalised.
        test_attributes (Sequence[Mapping]): Per test image, likewise.
        attributes (Mapping): attribute -> its values.
        **kwargs: :func:`finetune_probe_accuracy`'s options.

    Returns:
        dict: attribute -> ``{'accuracy'`` (after the last epoch),
        ``'per_epoch', 'chance', 'num_train', 'num'}``.
    """
    results = {}
    for attribute, values in attributes.items():
        values = list(values)
        labels = [attribute_labels(attribute, values, train_attributes,
                                   'train'),
                  attribute_labels(attribute, values, test_attributes, 'test')]
        per_epoch = finetune_probe_accuracy(
            model.visual, train_images, labels[0], test_images, labels[1],
            len(values), name=attribute, **kwargs)
        results[attribute] = dict(
            accuracy=per_epoch[-1], per_epoch=per_epoch,
            chance=1 / len(values), num_train=len(train_attributes),
            num=len(test_attributes))
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
