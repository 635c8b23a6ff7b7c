"""IDC-PCL pre-training with cross-task data: fine-grained classification
pairs (NABirds) beside the image-difference pairs (Birds-to-Words)."""
from typing import Dict, Optional

import torch
from torch import nn

from mmidc.registry import MODELS
from .idc_pcl_pretrainer import IDCPCLPretrainer

__all__ = ['IDCPCLCrossTaskPretrainer']


@MODELS.register_module()
class IDCPCLCrossTaskPretrainer(IDCPCLPretrainer):
    """:class:`IDCPCLPretrainer` plus the published code's NABirds task
    (the "cross-task data expansion" of Birds-to-Words).

    A batch whose samples carry ``class_labels`` (from
    :class:`NABirdsPairDataset`: two photos, their classes, ``same_class``)
    trains the ``nabirds`` task; any other batch trains the drawn MLM /
    MVCL / FDA task as in :class:`IDCPCLPretrainer`. Put the two data sets
    in a ``ConcatDataset`` with :class:`TaskRatioSampler`, so that every
    batch comes from one of them in the published ratio (pairs 12 :
    NABirds 3, i.e. MLM 9 : MVCL 1 : FDA 2 : NABirds 3).

    The ``nabirds`` task reads only the image difference encoder:

    - *classification* (``loss_cls``): each image's ``[IMGk]`` output of
      ``F_sing`` -> ``classifier`` -> its class (``cls_loss``);
    - *pair matching* (``loss_match``): the two ``[IMGk]`` outputs of
      ``F_pair``, concatenated -> ``matcher`` -> same class or not
      (``match_loss``);
    - *class contrast* (``loss_contrast``): the ``F_sing`` ``[IMGk]``
      outputs of the batch, by class (:class:`ClassMarginContrastiveLoss`).

    Args:
        num_classes (int): Classes of the classification data
            (``NABirdsPairDataset.num_classes``; 555 for NABirds).
        cls_loss (dict): Defaults to ``mmpretrain.CrossEntropyLoss``.
        match_loss (dict): Defaults to ``mmpretrain.CrossEntropyLoss``.
        contrast_loss (dict): Defaults to ``ClassMarginContrastiveLoss``
            (margin 0.4).
        **kwargs: :class:`IDCPCLPretrainer`'s arguments (it needs both
            ``single_image_encoder`` and ``pair_encoder``).
    """

    def __init__(self, num_classes: int,
                 cls_loss: Optional[dict] = None,
                 match_loss: Optional[dict] = None,
                 contrast_loss: Optional[dict] = None,
                 **kwargs):
        super().__init__(**kwargs)
        if self.single_image_encoder is None or self.pair_encoder is None:
            raise ValueError('IDCPCLCrossTaskPretrainer needs single_image_encoder '
                             'and pair_encoder (its nabirds task reads them)')
        if num_classes < 2:
            raise ValueError(f'num_classes must be >= 2, got {num_classes}')
        self.num_classes = num_classes
        self.classifier = nn.Linear(self.hidden, num_classes)
        self.matcher = nn.Linear(2 * self.hidden, 2)
        self.cls_loss = MODELS.build(cls_loss or dict(type='mmpretrain.CrossEntropyLoss'))
        self.match_loss = MODELS.build(match_loss or dict(type='mmpretrain.CrossEntropyLoss'))
        self.contrast_loss = MODELS.build(
            contrast_loss or dict(type='ClassMarginContrastiveLoss'))

    def loss(self, inputs: torch.Tensor, data_samples: list,
             task: Optional[str] = None) -> Dict[str, torch.Tensor]:
        """The ``nabirds`` loss for a batch of classification pairs, else
        :meth:`IDCPCLPretrainer.loss`."""
        labelled = ['class_labels' in ds for ds in data_samples]
        if any(labelled) and not all(labelled):
            raise ValueError('a batch mixes classification pairs (class_labels) '
                             'and caption pairs: sample whole batches from one '
                             "data set (train_dataloader.sampler=dict(type="
                             "'TaskRatioSampler', ...))")
        if all(labelled) or task == 'nabirds':
            return self.nabirds_loss_of(inputs, data_samples)
        return super().loss(inputs, data_samples, task)

    def nabirds_loss_of(self, inputs: torch.Tensor, data_samples: list) -> Dict:
        device = inputs.device
        try:
            labels = torch.tensor([ds.class_labels for ds in data_samples],
                                  device=device)  # [B, 2]
            same = torch.tensor([int(ds.same_class) for ds in data_samples],
                                device=device)  # [B]
        except AttributeError as e:
            raise KeyError('the nabirds task needs class_labels and same_class '
                           "on every data sample (PackIDCInputs' meta_keys)") from e
        if labels.shape[1:] != (2, ) or labels.min() < 0 or \
                labels.max() >= self.num_classes:
            raise ValueError(f'class_labels must be [c1, c2] in [0, '
                             f'{self.num_classes}), got {labels.tolist()[:3]}...')
        features = self.extract_feat(inputs)  # [B, 2, N, C]
        single = self.single_image_encoder(self.token_embedding(features))  # [B, 2, N+1, H]
        pair = self.pair_encoder(single)  # [B, 2, N+1, H]
        image_vectors = single[:, :, 0].flatten(0, 1)  # [2B, H]: [IMG1], [IMG2]
        flat_labels = labels.flatten()  # [2B]
        class_logits = self.classifier(image_vectors)  # [2B, classes]
        match_logits = self.matcher(pair[:, :, 0].flatten(1))  # [B, 2]
        return dict(
            loss_cls=self.cls_loss(class_logits, flat_labels),
            loss_match=self.match_loss(match_logits, same),
            loss_contrast=self.contrast_loss(image_vectors, flat_labels),
            cls_accuracy=(class_logits.argmax(-1) == flat_labels).float().mean().detach(),
            match_accuracy=(match_logits.argmax(-1) == same).float().mean().detach())
