"""Grid features of both images of a pair, from any registered backbone or
from a feature cache."""
from typing import Optional, Sequence, Tuple

import torch
from mmengine.model import BaseModule

from mmidc.registry import MODELS

__all__ = ['PairFeatureEncoder']


@MODELS.register_module()
class PairFeatureEncoder(BaseModule):
    """Run one image backbone on both images of a pair: ``[B, 2, 3, H, W]``
    -> grid features ``[B, 2, N, C]``.

    The backbone is any registered image backbone (e.g.
    ``mmpretrain.ResNet``). Its output may be a feature map ``[2B, C, h, w]``
    (``N = h*w``), tokens ``[2B, N, C]``, or a tuple of them (MMPretrain's
    ``out_indices``), of which ``out_index`` is used. Both images go through
    it as one batch of ``2B``.

    With ``backbone=None`` the inputs are features already: a pipeline with
    ``LoadPairFeatures`` (a cache written by
    ``tools/dataset_converters/extract_pair_features.py``) packs them as
    ``[B, 2, C, h, w]`` and ``feature_dim`` must be given.

    Args:
        backbone (dict, optional): Backbone config, or None for cached
            features.
        out_index (int): Which output of a tuple. Defaults to -1 (the last).
        frozen (bool): No gradients into the backbone, kept in eval mode
            (the published model's fixed pre-extracted features). Defaults
            to False.
        image_size (Sequence[int]): ``(H, W)`` of the inputs, for the dry
            run that measures ``N`` and ``C`` at build time. Defaults to
            (224, 224).
        feature_dim (int, optional): ``C`` of cached features (required
            without a backbone; checked against the backbone otherwise).
        num_tokens (int, optional): ``N`` of cached features (required
            without a backbone).
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 backbone: Optional[dict] = None,
                 out_index: int = -1,
                 frozen: bool = False,
                 image_size: Sequence[int] = (224, 224),
                 feature_dim: Optional[int] = None,
                 num_tokens: Optional[int] = None,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        self.out_index = out_index
        self.frozen = frozen
        if backbone is None:
            if feature_dim is None or num_tokens is None:
                raise ValueError('PairFeatureEncoder(backbone=None) reads '
                                 'cached features: give feature_dim and '
                                 'num_tokens (the cache\'s C and h*w)')
            self.backbone = None
            self.feature_dim, self.num_tokens = feature_dim, num_tokens
            return
        self.backbone = MODELS.build(backbone)
        self.num_tokens, self.feature_dim = self._measure(tuple(image_size))
        if feature_dim is not None and feature_dim != self.feature_dim:
            raise ValueError(f'feature_dim={feature_dim}, but the backbone '
                             f'gives {self.feature_dim} channels')
        if frozen:
            self.backbone.requires_grad_(False)
            self.backbone.eval()

    @torch.no_grad()
    def _measure(self, image_size: Tuple[int, int]) -> Tuple[int, int]:
        """``(N, C)`` of the backbone's output for one image (a dry run)."""
        was_training = self.backbone.training
        self.backbone.eval()
        tokens = self._tokens(self.backbone(torch.zeros(1, 3, *image_size)))
        self.backbone.train(was_training)
        return tokens.shape[1], tokens.shape[2]

    def _tokens(self, out) -> torch.Tensor:
        """A backbone output -> tokens ``[n, N, C]``."""
        if isinstance(out, (tuple, list)):
            out = out[self.out_index]
        if out.ndim == 4:  # [n, C, h, w] -> [n, h*w, C]
            return out.flatten(2).transpose(1, 2)
        if out.ndim == 3:  # [n, N, C]
            return out
        raise ValueError(f'backbone output of shape {tuple(out.shape)}: '
                         'expected [n, C, h, w] or [n, N, C]')

    def train(self, mode: bool = True):
        super().train(mode)
        if self.frozen and self.backbone is not None:
            self.backbone.eval()
        return self

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        """``[B, 2, 3, H, W]`` images (or ``[B, 2, C, h, w]`` cached
        features) -> ``[B, 2, N, C]``."""
        if inputs.ndim != 5 or inputs.shape[1] != 2:
            raise ValueError(f'inputs must be [B, 2, ...] pairs, got '
                             f'{tuple(inputs.shape)}')
        B = inputs.shape[0]
        if self.backbone is None:
            if inputs.shape[2] != self.feature_dim:
                raise ValueError(f'cached features have {inputs.shape[2]} '
                                 f'channels, feature_dim is {self.feature_dim}')
            # [B, 2, C, h, w] -> [B, 2, h*w, C]
            return inputs.flatten(3).transpose(2, 3).float()
        with torch.set_grad_enabled(torch.is_grad_enabled() and not self.frozen):
            out = self.backbone(inputs.flatten(0, 1))  # [2B, 3, H, W] in
            tokens = self._tokens(out)  # [2B, N, C]
        return tokens.view(B, 2, *tokens.shape[1:])  # [B, 2, N, C]
