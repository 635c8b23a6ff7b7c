"""What IDC-PCL's pre-trainer and captioner share: the feature encoder, the
image difference encoder and the cross-modal transformer."""
import copy
from typing import Optional, Tuple

import torch
from mmengine.model import BaseModel

from mmidc.registry import MODELS
from ..data_preprocessors import build_data_preprocessor

__all__ = ['IDCPCLBase']

#: Modules both stages have, under the same names (the captioner loads
#: them from a pre-trainer checkpoint).
SHARED_MODULES = ('feature_encoder', 'token_embedding', 'single_image_encoder',
                  'pair_encoder', 'cross_modal')


class IDCPCLBase(BaseModel):
    """The IDC-PCL trunk (Yao et al., AAAI 2022).

    ``[B, 2, 3, H, W]`` pairs -> features ``[B, 2, N, C]``
    (:class:`PairFeatureEncoder`) -> tokens ``[B, 2, N + 1, H]``
    (:class:`PairTokenEmbedding`) -> ``F_pair(F_sing(.))`` (the image
    difference encoder: :class:`SingleImageEncoder` on each image, then
    :class:`PairEncoder` across both) -> visual tokens ``[B, Tv, H]``,
    ``Tv = 2(N + 1)`` -> :class:`CrossModalTransformer` with the caption.
    Leaving out both encoders (``None``) is the ablation "without the
    difference encoder": the tokens go straight to ``F_cross``.

    Args:
        feature_encoder (dict): :class:`PairFeatureEncoder` config.
        cross_modal (dict): :class:`CrossModalTransformer` config.
        hidden (int): Width of every transformer (set in the sub-configs
            that do not give it). Defaults to 512.
        token_embedding (dict, optional): :class:`PairTokenEmbedding`
            config (``feature_dim``, ``hidden`` and ``max_tokens`` are
            filled in). Defaults to ``dict(type='PairTokenEmbedding')``.
        single_image_encoder (dict, optional): ``F_sing``; None leaves it
            out.
        pair_encoder (dict, optional): ``F_pair``; None leaves it out.
        data_preprocessor (dict, optional): Defaults to
            ``IDCDataPreprocessor`` (images); ``PairFeaturePreprocessor``
            for cached features.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 feature_encoder: dict,
                 cross_modal: dict,
                 hidden: int = 512,
                 token_embedding: Optional[dict] = None,
                 single_image_encoder: Optional[dict] = None,
                 pair_encoder: Optional[dict] = None,
                 data_preprocessor: Optional[dict] = None,
                 init_cfg: Optional[dict] = None):
        super().__init__(
            data_preprocessor=build_data_preprocessor(data_preprocessor),
            init_cfg=init_cfg)
        self.hidden = hidden
        self.feature_encoder = MODELS.build(feature_encoder)
        token_embedding = copy.deepcopy(token_embedding or dict(type='PairTokenEmbedding'))
        token_embedding.setdefault('feature_dim', self.feature_encoder.feature_dim)
        token_embedding.setdefault('max_tokens', self.feature_encoder.num_tokens)
        self.token_embedding = MODELS.build(self._with_hidden(token_embedding))
        self.single_image_encoder = (
            MODELS.build(self._with_hidden(single_image_encoder))
            if single_image_encoder is not None else None)
        self.pair_encoder = (MODELS.build(self._with_hidden(pair_encoder))
                             if pair_encoder is not None else None)
        self.cross_modal = MODELS.build(self._with_hidden(cross_modal))

    def _with_hidden(self, cfg: dict) -> dict:
        cfg = copy.deepcopy(cfg)
        cfg.setdefault('hidden', self.hidden)
        if cfg['hidden'] != self.hidden:
            raise ValueError(f"{cfg['type']}: hidden={cfg['hidden']} differs "
                             f'from the model\'s hidden={self.hidden}')
        return cfg

    @property
    def num_image_tokens(self) -> int:
        """``N + 1``: one image's tokens, ``[IMGk]`` included."""
        return self.feature_encoder.num_tokens + 1

    def extract_feat(self, inputs: torch.Tensor) -> torch.Tensor:
        """``[B, 2, 3, H, W]`` -> grid features ``[B, 2, N, C]``."""
        return self.feature_encoder(inputs)

    def visual_tokens(self, features: torch.Tensor,
                      feature_mask: Optional[torch.Tensor] = None) -> torch.Tensor:
        """Features ``[B, 2, N, C]`` -> visual tokens ``[B, Tv, H]``.

        ``feature_mask`` (bool ``[B, 2, N]``): positions whose feature is
        replaced by zeros first (MVCL).
        """
        if feature_mask is not None:
            features = features.masked_fill(feature_mask[..., None], 0.0)
        x = self.token_embedding(features)  # [B, 2, N+1, H]
        if self.single_image_encoder is not None:
            x = self.single_image_encoder(x)  # F_sing, each image alone
        if self.pair_encoder is not None:
            x = self.pair_encoder(x)  # F_pair, across both
        return x.flatten(1, 2)  # [B, 2(N+1), H]

    def image_token_outputs(self, hidden: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        """The ``[IMG1]`` and ``[IMG2]`` outputs ``[B, H]`` of ``F_cross``."""
        n = self.num_image_tokens
        return hidden[:, 0], hidden[:, n]
