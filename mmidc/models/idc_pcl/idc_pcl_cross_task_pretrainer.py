"""IDC-PCL pre-training with cross-task data: fine-grained classification
pairs (NABirds) beside the image-difference pairs (Birds-to-Words)."""
from typing import Dict, List, Optional

import torch
from mmpretrain.structures import DataSample

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
    MVCL / FDA task as in :class:`IDCPCLPretrainer`. A batch must come from
    one data set (:class:`TaskRatioSampler` over a ``ConcatDataset``).

    The ``nabirds`` task reads only the image difference encoder; each of
    its objectives is a registered part:

    - *classification* (``cls_head``, an MMPretrain classification head):
      each image's ``[IMGk]`` output of ``F_sing`` -> its class;
    - *pair matching* (``match_head``, the same kind of head with two
      classes): the two ``[IMGk]`` outputs of ``F_pair``, concatenated ->
      same class or not;
    - *class contrast* (``contrast_loss``): the ``F_sing`` ``[IMGk]``
      outputs of the batch, by class (:class:`ClassMarginContrastiveLoss`).

    Args:
        num_classes (int): Classes of the classification data
            (``NABirdsPairDataset.num_classes``; 555 for NABirds).
        cls_head (dict, optional): The classification head; its
            ``num_classes`` and ``in_channels`` (the width) are filled in.
            Defaults to ``mmpretrain.LinearClsHead`` with
            ``mmpretrain.CrossEntropyLoss``.
        match_head (dict, optional): The pair-matching head; its
            ``num_classes`` (2) and ``in_channels`` (twice the width) are
            filled in. Defaults as ``cls_head``.
        contrast_loss (dict, optional): Defaults to
            ``ClassMarginContrastiveLoss`` (margin 0.4).
        **kwargs: :class:`IDCPCLPretrainer`'s arguments (it needs both
            ``single_image_encoder`` and ``pair_encoder``).
    """

    def __init__(self, num_classes: int,
                 cls_head: Optional[dict] = None,
                 match_head: Optional[dict] = None,
                 contrast_loss: Optional[dict] = None,
                 **kwargs):
        super().__init__(**kwargs)
        if self.single_image_encoder is None or self.pair_encoder is None:
            raise ValueError('IDCPCLCrossTaskPretrainer needs single_image_encoder '
                             'and pair_encoder (its nabirds task reads them)')
        if num_classes < 2:
            raise ValueError(f'num_classes must be >= 2, got {num_classes}')
        self.num_classes = num_classes
        self.cls_head = MODELS.build(_head_cfg(cls_head, num_classes, self.hidden))
        self.match_head = MODELS.build(_head_cfg(match_head, 2, 2 * self.hidden))
        self.contrast_loss = MODELS.build(
            contrast_loss or dict(type='ClassMarginContrastiveLoss'))

    #: state-dict prefixes of checkpoints whose heads were plain linear layers
    _OLD_HEAD_PREFIXES = {'classifier.': 'cls_head.fc.', 'matcher.': 'match_head.fc.'}

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        for old, new in self._OLD_HEAD_PREFIXES.items():
            for key in [k for k in state_dict if k.startswith(prefix + old)]:
                state_dict[prefix + new + key[len(prefix + old):]] = state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def loss(self, inputs: torch.Tensor, data_samples: list,
             task: Optional[str] = None) -> Dict[str, torch.Tensor]:
        """The ``nabirds`` loss for a batch of classification pairs, else
        :meth:`IDCPCLPretrainer.loss`."""
        labelled = ['class_labels' in ds for ds in data_samples]
        if any(labelled) and not all(labelled):
            raise ValueError('a batch mixes classification pairs (class_labels) '
                             'and caption pairs: sample whole batches from one '
                             "data set (train_dataloader.sampler=dict(type="
                             "'SampleSeedSampler', sampler=dict(type="
                             "'TaskRatioSampler', ...)))")
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
        pair_vectors = pair[:, :, 0].flatten(1)  # [B, 2H]
        flat_labels = labels.flatten()  # [2B]
        cls_loss = self.cls_head.loss((image_vectors, ), _labelled(flat_labels))
        match_loss = self.match_head.loss((pair_vectors, ), _labelled(same))
        with torch.no_grad():
            class_logits = self.cls_head((image_vectors, ))  # [2B, classes]
            match_logits = self.match_head((pair_vectors, ))  # [B, 2]
        return dict(
            loss_cls=cls_loss['loss'],
            loss_match=match_loss['loss'],
            loss_contrast=self.contrast_loss(image_vectors, flat_labels),
            cls_accuracy=(class_logits.argmax(-1) == flat_labels).float().mean(),
            match_accuracy=(match_logits.argmax(-1) == same).float().mean())


def _head_cfg(cfg: Optional[dict], num_classes: int, in_channels: int) -> dict:
    """A classification head's config with its sizes filled in."""
    cfg = dict(cfg or dict(type='mmpretrain.LinearClsHead',
                           loss=dict(type='mmpretrain.CrossEntropyLoss')))
    for key, value in (('num_classes', num_classes), ('in_channels', in_channels)):
        if cfg.setdefault(key, value) != value:
            raise ValueError(f'{cfg["type"]}: {key} is set by '
                             f'IDCPCLCrossTaskPretrainer ({value}), got {cfg[key]}')
    return cfg


def _labelled(labels: torch.Tensor) -> List[DataSample]:
    """One :class:`DataSample` with ``gt_label`` per label (the heads'
    ``loss`` input)."""
    return [DataSample().set_gt_label(label) for label in labels]
