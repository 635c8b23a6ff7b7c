"""CLIP4IDC adaptation stage: contrastive pair-caption retrieval model."""
import copy
from typing import List, Optional, Union

import torch
import torch.nn.functional as F
from mmengine.model import BaseModel

from mmidc.registry import MODELS
from ..data_preprocessors import build_data_preprocessor
from ..data_preprocessors.caption_tokens import stack_text_tokens
from ..open_clip import load_clip_state_dict

__all__ = ['CLIP4IDCRetriever']


def _build(cfg: Union[dict, torch.nn.Module], name: str,
           pretrained=None) -> torch.nn.Module:
    if isinstance(cfg, torch.nn.Module):
        return cfg
    if not isinstance(cfg, dict) or 'type' not in cfg:
        raise ValueError(f'{name} must be a config dict with a "type" key, '
                         f'got {cfg!r}')
    cfg = copy.deepcopy(cfg)
    if pretrained is not None and cfg.get('pretrained') is None:
        cfg['pretrained'] = pretrained
    return MODELS.build(cfg)


@MODELS.register_module()
class CLIP4IDCRetriever(BaseModel):
    """Pair encoder + text encoder trained with a contrastive head.

    Modes of ``forward(inputs, data_samples, mode)`` (``inputs`` is the
    preprocessed ``[B, 2, 3, H, W]``):

    - ``'loss'``: each data sample's ``text_tokens`` ``[L]`` is the caption
      of its pair; returns the head's losses.
    - ``'predict'``: sets ``pair_embedding`` ``[D]`` and ``text_embeddings``
      ``[K, D]`` (both L2-normalised; ``text_tokens`` may be ``[L]`` or
      ``[K, L]``) on each data sample and returns the samples.
    - ``'tensor'``: returns ``(pair_embeddings [B, D], text_embeddings
      [B, D] or None)``, L2-normalised; text only when data samples with
      ``[L]`` tokens are given.

    Args:
        backbone (dict): ``CLIP4IDCBackbone`` config.
        text_encoder (dict): ``CLIPTextEncoder`` config.
        neck (dict, optional): Pools the backbone's tokens into the pair
            vector, built with the backbone's ``segments``. Default
            ``PairPooling`` in ``'cls'`` mode (the paper: the mean of the two
            images' CLS tokens).
        head (dict): ``ContrastiveAdaptationHead`` config.
        data_preprocessor (dict, optional): Default ``IDCDataPreprocessor``.
        pretrained (str, optional): One CLIP checkpoint for both towers (read
            once) and the head's ``logit_scale`` when it holds one. A tower
            config's own ``pretrained`` takes precedence.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 backbone: dict,
                 text_encoder: dict,
                 neck: Optional[dict] = None,
                 head: Optional[dict] = None,
                 data_preprocessor: Optional[dict] = None,
                 pretrained: Optional[str] = None,
                 init_cfg: Optional[dict] = None):
        super().__init__(
            data_preprocessor=build_data_preprocessor(data_preprocessor),
            init_cfg=init_cfg)
        state = None
        if pretrained is not None:
            arch = backbone.get('arch', 'ViT-B-32') \
                if isinstance(backbone, dict) else None
            state = load_clip_state_dict(pretrained, arch)
        self.backbone = _build(backbone, 'backbone', state)
        self.text_encoder = _build(text_encoder, 'text_encoder', state)
        neck = dict(type='PairPooling') if neck is None else neck
        self.neck = MODELS.build(dict(neck, segments=self.backbone.segments))
        self.head = _build(head or dict(type='ContrastiveAdaptationHead'),
                           'head')
        if state is not None and 'logit_scale' in state:
            with torch.no_grad():
                self.head.logit_scale.copy_(
                    state['logit_scale'].reshape(()).float())
        if self.backbone.output_dim != self.text_encoder.output_dim:
            raise ValueError(f'backbone output dim {self.backbone.output_dim}'
                             f' != text encoder output dim '
                             f'{self.text_encoder.output_dim}')

    def extract_pair_feat(self, inputs: torch.Tensor) -> torch.Tensor:
        """``[B, 2, 3, H, W]`` -> pooled pair features ``[B, D]``."""
        tokens = self.backbone(inputs[:, 0], inputs[:, 1])  # [B, S(n+1), D]
        return self.neck(tokens)

    def forward(self, inputs: torch.Tensor, data_samples: list = None,
                mode: str = 'tensor'):
        if mode == 'loss':
            return self.loss(inputs, data_samples)
        if mode == 'predict':
            return self.predict(inputs, data_samples)
        if mode == 'tensor':
            pair = F.normalize(self.extract_pair_feat(inputs), dim=-1)
            if not data_samples:
                return pair, None
            tokens = stack_text_tokens(data_samples, inputs.device)
            return pair, F.normalize(self.text_encoder(tokens), dim=-1)
        raise ValueError(f'mode={mode!r}: expected loss, predict or tensor')

    def loss(self, inputs: torch.Tensor, data_samples: list) -> dict:
        tokens = stack_text_tokens(data_samples, inputs.device)
        pair = self.extract_pair_feat(inputs)  # [B, D]
        text = self.text_encoder(tokens)  # [B, D]
        return self.head.loss(pair, text, tokens)

    def predict(self, inputs: torch.Tensor, data_samples: list) -> List:
        pair = F.normalize(self.extract_pair_feat(inputs), dim=-1)  # [B, D]
        tokens = [ds.text_tokens for ds in data_samples]
        tokens = [t[None] if t.ndim == 1 else t for t in tokens]  # [K_i, L]
        counts = [t.shape[0] for t in tokens]
        text = self.text_encoder(torch.cat(tokens).to(inputs.device))
        text = F.normalize(text, dim=-1).split(counts)  # [K_i, D] each
        for ds, p, t in zip(data_samples, pair, text):
            ds.set_field(p.float(), 'pair_embedding')
            ds.set_field(t.float(), 'text_embeddings')
        return data_samples
