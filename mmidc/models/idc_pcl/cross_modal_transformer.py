"""F_cross: one Transformer over both images' tokens and the caption."""
from typing import List, Optional, Tuple

import torch
from mmengine.model import BaseModule
from torch import nn

from mmidc.registry import MODELS
from mmidc.text import PAD_ID
from ..generation.generation import CaptionGenerator
from ..layers.transformer_layers import bert_init_
from .masked_transformer import MaskedTransformer
from .masking import joint_attention_mask

__all__ = ['CrossModalTransformer']


@MODELS.register_module()
class CrossModalTransformer(CaptionGenerator, BaseModule):
    """IDC-PCL's cross-modal transformer ``F_cross``.

    Reads the joint sequence ``[visual tokens (Tv), [CLS]?, caption (L)]``.
    Caption ids are the compact ids of a :class:`CaptionVocab` (CLIP BPE,
    ``<start_of_text>`` as ``[BOS]``, ``<end_of_text>`` as ``[EOS]``); two
    more ids follow the vocabulary: ``cls_id = V`` and ``mask_id = V + 1``.
    Caption positions start at ``[BOS]``; ``[CLS]`` has a type embedding and
    no position. Two attention masks (:func:`joint_attention_mask`):
    ``'bidirectional'`` for pre-training, ``'seq2seq'`` for captioning.

    The word predictor (``word_logits``) is a dense + GELU + LayerNorm
    transform and the tied word embedding (rows of the ``V`` words only, so
    ``[CLS]`` and ``[MASK]`` are never predicted).

    Decoding (:class:`CaptionGenerator`'s greedy and beam search through
    :meth:`start_decoding` and :meth:`next_logits`) is UniLM's: step ``t``
    reads the word of step ``t - 1`` and a ``[MASK]`` at position ``t`` and
    predicts the word there, with a key/value cache of the visual tokens
    and the words so far.

    Args:
        hidden (int): Width; the algorithms set it.
        num_layers (int): Layers. Defaults to 3 (the published model's).
        num_heads (int): Attention heads. Defaults to 8.
        ffn_ratio (int): Feed-forward width / ``hidden``. Defaults to 4.
        dropout (float): Dropout. Defaults to 0.
        max_length (int): Caption positions (``[BOS]`` .. ``[EOS]``), also
            the decoding limit. Defaults to 32.
        vocab: Caption vocabulary: None (all CLIP BPE ids), a file, a list
            of captions (see :mod:`mmidc.text.caption_vocab`).
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 hidden: int,
                 num_layers: int = 3,
                 num_heads: int = 8,
                 ffn_ratio: int = 4,
                 dropout: float = 0.0,
                 max_length: int = 32,
                 vocab=None,
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        self.init_vocab(max_length, vocab)
        V = len(self.vocab)
        self.num_words = V
        self.cls_id, self.mask_id = V, V + 1
        self.word_embed = nn.Embedding(V + 2, hidden)
        self.text_position = nn.Parameter(torch.zeros(max_length, hidden))
        self.text_type = nn.Parameter(torch.zeros(2, hidden))  # [CLS], caption
        self.ln_text = nn.LayerNorm(hidden)
        self.drop = nn.Dropout(dropout)
        self.transformer = MaskedTransformer(hidden, num_layers, num_heads,
                                             ffn_ratio, dropout)
        self.lm_transform = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(),
                                          nn.LayerNorm(hidden))
        self.lm_bias = nn.Parameter(torch.zeros(V))
        bert_init_(self)

    # ------------------------------------------------------------------ text
    def caption_ids(self, text_tokens: torch.Tensor
                    ) -> Tuple[torch.Tensor, torch.Tensor]:
        """CLIP ids ``[..., L]`` -> compact ids and their non-padding mask,
        both cut to the longest caption (columns of padding only dropped)."""
        if text_tokens.shape[-1] > self.max_length:
            raise ValueError(f'captions of {text_tokens.shape[-1]} tokens '
                             f'exceed max_length={self.max_length}')
        valid = text_tokens != PAD_ID  # [..., L]
        length = int(valid.flatten(0, -2).sum(-1).max()) if valid.numel() else 0
        ids = self.vocab.to_compact(text_tokens[..., :length])
        return ids, valid[..., :length]

    def embed_text(self, ids: torch.Tensor, start: int = 0,
                   with_cls: bool = False) -> torch.Tensor:
        """Caption ids ``[B, L]`` at positions ``start..start+L`` ->
        ``[B, L, H]`` (``[B, 1 + L, H]`` with ``[CLS]`` first)."""
        B, L = ids.shape
        if start + L > self.max_length:
            raise ValueError(f'caption positions up to {start + L} exceed '
                             f'max_length={self.max_length}')
        x = self.word_embed(ids) + self.text_position[start:start + L] \
            + self.text_type[1]  # [B, L, H]
        if with_cls:
            cls = self.word_embed.weight[self.cls_id] + self.text_type[0]  # [H]
            x = torch.cat([cls.expand(B, 1, -1), x], dim=1)  # [B, 1+L, H]
        return self.drop(self.ln_text(x))

    def forward(self, visual: torch.Tensor, ids: torch.Tensor,
                valid: torch.Tensor, mode: str = 'bidirectional',
                with_cls: bool = False) -> torch.Tensor:
        """Encode the joint sequence.

        Args:
            visual (Tensor): ``[B, Tv, H]`` visual tokens.
            ids (Tensor): ``[B, L]`` caption ids (compact, or the special
                ids).
            valid (Tensor): ``[B, L]`` bool, False at padding.
            mode (str): ``'bidirectional'`` or ``'seq2seq'``.
            with_cls (bool): Put ``[CLS]`` before the caption.

        Returns:
            Tensor: ``[B, Tv + L, H]`` (``Tv + 1 + L`` with ``[CLS]``).
        """
        text = self.embed_text(ids, with_cls=with_cls)  # [B, (1+)L, H]
        if with_cls:
            valid = torch.cat([valid.new_ones(valid.shape[0], 1), valid], 1)
        mask = joint_attention_mask(visual.shape[1], valid, mode)  # [B, 1, T, T]
        return self.transformer(torch.cat([visual, text.to(visual.dtype)], 1), mask)

    def word_logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """``[..., H]`` -> ``[..., V]`` word scores."""
        h = self.lm_transform(hidden)
        weight = self.word_embed.weight[:self.num_words]  # [V, H]
        return h @ weight.to(h.dtype).t() + self.lm_bias

    # ------------------------------------------ decoding (CaptionGenerator)
    def start_decoding(self, memory: torch.Tensor, repeat: int,
                       use_cache: bool):
        """Decoding state for ``memory`` = visual tokens ``[B, Tv, H]``: the
        start tokens ``[B*repeat, 1]``, the visual tokens (repeated) and the
        per-layer caches of the visual keys/values (or None)."""
        visual = memory.repeat_interleave(repeat, dim=0)  # [N, Tv, H]
        caches = None
        if use_cache:  # visual tokens attend to visual tokens only
            caches = [dict() for _ in self.transformer.layers]
            self.transformer(visual, caches=caches)  # [N, h, Tv, H/h] each
        tokens = torch.full((visual.shape[0], 1), self.vocab.sot_id,
                            dtype=torch.long, device=memory.device)  # [N, 1]
        return tokens, visual, caches

    def next_logits(self, tokens: torch.Tensor, visual: torch.Tensor,
                    caches: Optional[List[dict]]) -> torch.Tensor:
        """Word scores ``[N, V]`` at position ``t`` after ``tokens`` ``[N, t]``
        (a ``[MASK]`` there, UniLM's decoding)."""
        N, t = tokens.shape
        mask_token = tokens.new_full((N, 1), self.mask_id)
        if caches is None:  # the whole sequence again, seq2seq mask
            ids = torch.cat([tokens, mask_token], 1)  # [N, t+1]
            h = self(visual, ids, torch.ones_like(ids, dtype=torch.bool), 'seq2seq')
            return self.word_logits(h[:, -1])
        ids = torch.cat([tokens[:, -1:], mask_token], 1)  # [N, 2]: word t-1, [MASK] t
        x = self.embed_text(ids, start=t - 1).to(visual.dtype)  # [N, 2, H]
        cached = caches[0]['k'].shape[2]  # Tv + t - 1
        attn = torch.ones(1, 1, 2, cached + 2, dtype=torch.bool,
                          device=x.device)
        attn[0, 0, 0, cached + 1] = False  # the word does not read the [MASK]
        h = self.transformer(x, attn, caches)  # caches: + word t-1, [MASK] t
        for cache in caches:  # keep the word's keys/values, not the [MASK]'s
            cache['k'], cache['v'] = cache['k'][:, :, :-1], cache['v'][:, :, :-1]
        return self.word_logits(h[:, 1])  # [N, V]
