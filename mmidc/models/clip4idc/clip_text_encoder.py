"""CLIP's text transformer as a standalone MMEngine module."""
from typing import Optional, Union

import torch
from mmengine.model import BaseModule

from mmidc.registry import MODELS
from ..open_clip import (build_clip_text_tower, load_clip_state_dict,
                         load_tower_weights, text_state_dict)

__all__ = ['CLIPTextEncoder']


@MODELS.register_module()
class CLIPTextEncoder(BaseModule):
    """open_clip's text tower: causal transformer, EOT pooling, projection.

    Parameter names are those of open_clip's ``CLIP`` (``token_embedding``,
    ``positional_embedding``, ``transformer``, ``ln_final``,
    ``text_projection``; buffer ``attn_mask``), so CLIP's text weights load
    unchanged. Token sequences may be shorter than the arch's context length
    (the paper uses 32 of CLIP's 77): the first ``L`` positional rows and the
    top-left ``L x L`` of the causal mask are used, which gives exactly the
    same features as padding to the full context (the mask is causal).

    Args:
        arch (str | dict): open_clip model name or config dict.
        pretrained (str | dict, optional): CLIP weights (see
            :mod:`mmidc.models.open_clip`); missing text keys are an error.
        grad_checkpointing (bool): Recompute blocks in backward.
        frozen_stages (int): -1 freezes nothing; k >= 0 freezes the token
            and positional embeddings and the first k blocks. Default -1.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 arch: Union[str, dict] = 'ViT-B-32',
                 pretrained: Optional[Union[str, dict]] = None,
                 grad_checkpointing: bool = False,
                 frozen_stages: int = -1,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        text = build_clip_text_tower(arch)
        num_layers = len(text.transformer.resblocks)
        if not -1 <= frozen_stages <= num_layers:
            raise ValueError(f'CLIPTextEncoder: frozen_stages={frozen_stages}'
                             f' must be in [-1, {num_layers}]')
        self.frozen_stages = frozen_stages
        self.context_length = text.context_length
        self.vocab_size = text.vocab_size
        self.output_dim = text.output_dim
        self.token_embedding = text.token_embedding
        self.positional_embedding = text.positional_embedding
        self.transformer = text.transformer
        self.transformer.grad_checkpointing = grad_checkpointing
        self.ln_final = text.ln_final
        self.text_projection = text.text_projection
        self.register_buffer('attn_mask', text.attn_mask, persistent=False)
        if pretrained is not None:
            source = pretrained if isinstance(pretrained, str) else 'state dict'
            state = text_state_dict(load_clip_state_dict(pretrained, arch))
            load_tower_weights(self, state, source)
        self._freeze_stages()

    def _freeze_stages(self) -> None:
        if self.frozen_stages < 0:
            return
        self.token_embedding.requires_grad_(False)
        self.positional_embedding.requires_grad = False
        for block in self.transformer.resblocks[:self.frozen_stages]:
            block.eval()
            block.requires_grad_(False)

    def train(self, mode: bool = True):
        super().train(mode)
        self._freeze_stages()
        return self

    def forward(self, text_tokens: torch.Tensor) -> torch.Tensor:
        """Encode token ids ``[B, L]`` (``L <= context_length``) to
        ``[B, D_out]`` (not normalised)."""
        B, L = text_tokens.shape
        if L > self.context_length:
            raise ValueError(f'text_tokens has length {L} > the arch '
                             f'context length {self.context_length}')
        x = self.token_embedding(text_tokens)  # [B, L, W]
        x = x + self.positional_embedding[:L].to(x.dtype)
        mask = self.attn_mask[:L, :L].to(x.dtype)  # causal, additive
        x = self.transformer(x, attn_mask=mask)  # [B, L, W]
        x = self.ln_final(x)
        eot = text_tokens.argmax(dim=-1)  # end-of-text has the largest id
        x = x[torch.arange(B, device=x.device), eot]  # [B, W]
        return x @ self.text_projection.to(x.dtype)  # [B, D_out]
