"""A caption head whose decoder weighs the word prior at each position."""
import torch
from torch import nn

from mmidc.registry import MODELS
from .transformer_caption_head import TransformerCaptionHead

__all__ = ['GatedPriorCaptionHead']


@MODELS.register_module()
class GatedPriorCaptionHead(TransformerCaptionHead):
    """:class:`TransformerCaptionHead` with a per-position gate on the prior.

    The base head adds an auxiliary head's word prior ``logit_bias`` ``[B, V]``
    (e.g. :class:`BagOfWordsHead`'s) with the same weight at every position,
    so a word that all of a pair's references contain is pushed at every
    slot of the caption: a colour change's new colour also where the caption
    names the object by its old colour. Here the decoder chooses how much of
    the prior each position takes: ``logits_t + g_t * bias`` with
    ``g_t = sigmoid(w . LN(h_t) + b)``, ``h_t`` the last decoder layer's
    output at position ``t`` (``[B, t, H]`` -> ``g`` ``[B, t, 1]``).

    The gate starts closed to nothing (``w = 0``, ``b = gate_init``: every
    position takes ``sigmoid(gate_init)`` of the prior, 0.98 by default), so
    training starts from the base head's behaviour. Without a ``logit_bias``
    the head is the base head (the gate is unused).

    Args:
        gate_init (float): The gate's initial bias ``b``. Default 4.
        *args, **kwargs: :class:`TransformerCaptionHead`'s arguments.
    """

    def __init__(self, *args, gate_init: float = 4.0, **kwargs):
        super().__init__(*args, **kwargs)
        hidden = self.word_pos.shape[1]
        self.gate_norm = nn.LayerNorm(hidden)
        self.prior_gate = nn.Linear(hidden, 1)
        nn.init.zeros_(self.prior_gate.weight)
        nn.init.constant_(self.prior_gate.bias, gate_init)

    def prior_weight(self, hidden: torch.Tensor) -> torch.Tensor:
        """The gate ``[B, t, 1]`` of the decoder's output ``[B, t, H]``."""
        return torch.sigmoid(self.prior_gate(self.gate_norm(hidden)))

    def bias_logits(self, logits: torch.Tensor, logit_bias: torch.Tensor,
                    hidden: torch.Tensor) -> torch.Tensor:
        gate = self.prior_weight(hidden).to(logits.dtype)  # [B, t, 1]
        return logits + gate * logit_bias[:, None].to(logits.dtype)  # [B, t, V]
