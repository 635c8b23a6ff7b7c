"""TransformerCaptionHead: the published CLIP4IDC code's captioning decoder."""
from typing import List, Optional, Union

import torch
from mmengine.logging import print_log
from torch import nn

from mmidc.registry import MODELS
from mmidc.text import CLIP_VOCAB_SIZE
from mmidc.utils.checkpoint_pattern import resolve_checkpoint
from ..layers.transformer_layers import DecoderLayer, EncoderLayer, bert_init_
from ..open_clip import load_clip_state_dict, text_state_dict
from .base_caption_head import BaseCaptionHead

__all__ = ['TransformerCaptionHead']

# BERT's LayerNorm epsilon (the published decoder's).
LN_EPS = 1e-12


@MODELS.register_module()
class TransformerCaptionHead(BaseCaptionHead):
    """CLIP4IDC's captioning decoder: a BERT-style post-LN Transformer whose
    word embedding is CLIP's.

    - **Layers** (BERT's): each sub-layer is
      ``LayerNorm(x + Dropout(sublayer(x)))``, LayerNorm eps 1e-12, GELU,
      dropout on the attention weights and after each sub-layer, none
      inside the feed-forward.
    - **Encoder**: the backbone tokens enter as they are (they carry
      CLIP4IDC's joint positional embedding): no projection, positional or
      segment embedding, no dropout. Decoder layer ``i`` attends to the
      output of encoder layer ``i`` (so the two counts must be equal).
    - **Word embeddings**: ``word_embed`` holds CLIP's ``token_embedding``
      and ``word_pos`` CLIP's text ``positional_embedding`` (its first
      ``max_length`` rows), loaded from ``pretrained``. The decoder's input
      is ``Dropout(LayerNorm(word_embed[token] + word_pos[position]))``; the
      output is BERT's prediction transform (Linear, GELU, LayerNorm), then
      ``@ word_embed.weight.T + output_bias`` (tied). Both are frozen by
      default (``freeze_word_embed``, ``freeze_word_pos``).
    - **Vocabulary**: with ``vocab=None`` the output
      is CLIP's full 49,408-token vocabulary and ``word_embed`` is CLIP's
      whole table. A restricted vocabulary keeps CLIP's rows of its tokens
      (compact id ``k`` gets the row of CLIP id ``vocab.clip_ids[k]``; the
      unknown token, which has no CLIP id, a zero row): its logits are the
      full head's logits at those tokens.
    - **Loss**: ``loss``, by default the mean next-token cross-entropy over
      the batch's tokens (:class:`CaptionCrossEntropyLoss`).

    Args:
        memory_dim (int): Width of the backbone tokens; must equal
            ``hidden`` (the captioner sets it from its backbone).
        hidden (int): Width, that of CLIP's text tower (512 for ViT-B).
            Defaults to 512.
        num_heads (int): Attention heads. Defaults to 8.
        num_encoder_layers (int): Encoder layers. Defaults to 3.
        num_decoder_layers (int): Decoder layers, as many as encoder
            layers. Defaults to 3.
        ffn_ratio (int): Feed-forward width / ``hidden``. Defaults to 4.
        dropout (float): Dropout. Defaults to 0.1.
        max_length (int): Caption context length, start token included
            (also the decoding limit). Defaults to 33.
        vocab, loss, init_cfg: As in :class:`BaseCaptionHead`. ``loss``
            defaults to ``dict(type='CaptionCrossEntropyLoss')``.
        pretrained (str | dict, optional): where ``word_embed`` and
            ``word_pos`` come from: a CLIP state-dict file, an MMEngine
            checkpoint (an adaptation-stage ``CLIP4IDCRetriever``'s: its
            ``text_encoder``) or a glob
            pattern for one (the newest match), or a loaded state dict; see
            :mod:`mmidc.models.open_clip.weights`. None keeps the
            random initialisation (tests).
        freeze_word_embed (bool): no gradient into ``word_embed``. Defaults
            to True.
        freeze_word_pos (bool): no gradient into ``word_pos``. Defaults to
            True.
    """

    def __init__(self,
                 memory_dim: int = 512,
                 hidden: int = 512,
                 num_heads: int = 8,
                 num_encoder_layers: int = 3,
                 num_decoder_layers: int = 3,
                 ffn_ratio: int = 4,
                 dropout: float = 0.1,
                 max_length: int = 33,
                 vocab=None,
                 loss: dict = dict(type='CaptionCrossEntropyLoss'),
                 pretrained: Optional[Union[str, dict]] = None,
                 freeze_word_embed: bool = True,
                 freeze_word_pos: bool = True,
                 init_cfg: Optional[dict] = None):
        if num_encoder_layers != num_decoder_layers:
            raise ValueError(
                f'TransformerCaptionHead pairs decoder layer i with encoder layer i: '
                f'num_encoder_layers ({num_encoder_layers}) must equal '
                f'num_decoder_layers ({num_decoder_layers})')
        if memory_dim != hidden:
            raise ValueError(
                f'TransformerCaptionHead reads the backbone tokens as they are: '
                f'memory_dim ({memory_dim}) must equal hidden ({hidden})')
        super().__init__(max_length, vocab, loss, init_cfg)
        self.memory_dim = memory_dim
        ffn_dim = ffn_ratio * hidden
        self.encoder = nn.ModuleList(
            EncoderLayer(hidden, num_heads, ffn_dim, dropout, norm='post',
                         eps=LN_EPS, ffn_dropout=False)
            for _ in range(num_encoder_layers))
        self.word_embed = nn.Embedding(len(self.vocab), hidden)
        self.word_pos = nn.Parameter(torch.zeros(max_length, hidden))
        self.decoder = nn.ModuleList(
            DecoderLayer(hidden, num_heads, ffn_dim, dropout, norm='post',
                         eps=LN_EPS, ffn_dropout=False)
            for _ in range(num_decoder_layers))
        self.drop = nn.Dropout(dropout)
        bert_init_(self)
        self.ln_embed = nn.LayerNorm(hidden, eps=LN_EPS)
        self.transform = nn.Sequential(
            nn.Linear(hidden, hidden), nn.GELU(), nn.LayerNorm(hidden, eps=LN_EPS))
        self.output_bias = nn.Parameter(torch.zeros(len(self.vocab)))
        nn.init.normal_(self.transform[0].weight, std=0.02)
        nn.init.zeros_(self.transform[0].bias)

        if pretrained is not None:
            self.load_clip_embeddings(pretrained)
        elif freeze_word_embed or freeze_word_pos:
            print_log('TransformerCaptionHead: pretrained=None, so the frozen word '
                      'embeddings are random until a trained checkpoint is '
                      'loaded; to train, set pretrained to a CLIP or '
                      'adaptation-stage checkpoint', logger='current', level=30)
        self.word_embed.weight.requires_grad_(not freeze_word_embed)
        self.word_pos.requires_grad_(not freeze_word_pos)

    def load_clip_embeddings(self, pretrained: Union[str, dict]) -> None:
        """Copy CLIP's token and text positional embeddings into
        ``word_embed`` (the vocabulary's rows) and ``word_pos`` (the first
        ``max_length`` rows). See ``pretrained`` in the class doc."""
        source = 'state dict'
        if isinstance(pretrained, str):
            pretrained = source = resolve_checkpoint(pretrained)
        state = text_state_dict(load_clip_state_dict(pretrained))
        keys = ('token_embedding.weight', 'positional_embedding')
        missing = [k for k in keys if k not in state]
        if missing:
            raise KeyError(f'{source}: no CLIP text embeddings {missing} (expected '
                           'a CLIP state dict or a checkpoint with '
                           'text_encoder.* keys)')
        token, pos = state[keys[0]], state[keys[1]]
        hidden = self.word_embed.embedding_dim
        if tuple(token.shape) != (CLIP_VOCAB_SIZE, hidden):
            raise ValueError(
                f'{source}: token_embedding.weight is {tuple(token.shape)}; '
                f'this head needs ({CLIP_VOCAB_SIZE}, {hidden}): hidden must '
                'equal the width of CLIP\'s text tower')
        if pos.shape[1] != hidden or pos.shape[0] < self.max_length:
            raise ValueError(
                f'{source}: positional_embedding is {tuple(pos.shape)}; this '
                f'head needs at least {self.max_length} rows (max_length) of '
                f'width {hidden}')
        ids = self.vocab.clip_ids  # [V] CLIP id of each compact id, unk -1
        rows = token[ids.clamp(min=0)].float()  # [V, H]
        rows[ids < 0] = 0.0  # the unknown token has no CLIP row
        with torch.no_grad():
            self.word_embed.weight.copy_(rows)
            self.word_pos.copy_(pos[:self.max_length])
        print_log(f'TransformerCaptionHead: word embeddings from {source} '
                  f'({len(ids)} of CLIP\'s token rows, {self.max_length} '
                  'positions)', logger='current')

    # ---------------------------------------------------------------- forward
    def encode(self, memory: torch.Tensor) -> torch.Tensor:
        """Backbone tokens ``[B, T, hidden]`` -> every encoder layer's
        output, stacked ``[B, L, T, hidden]`` (decoder layer ``i`` reads
        layer ``i``)."""
        x, outputs = memory, []
        for layer in self.encoder:
            x = layer(x)
            outputs.append(x)
        return torch.stack(outputs, dim=1)  # [B, L, T, H]

    def cross_kv(self, encoded: torch.Tensor) -> List[tuple]:
        """Keys/values of decoder layer ``i`` from encoder layer ``i``."""
        return [layer.cross_attn.key_value(encoded[:, i])  # [B, T, H] each
                for i, layer in enumerate(self.decoder)]

    def embed_tokens(self, tokens: torch.Tensor, start: int = 0) -> torch.Tensor:
        t = tokens.shape[1]
        x = self.word_embed(tokens) + self.word_pos[start:start + t]  # [B, t, H]
        return self.drop(self.ln_embed(x))

    def output_logits(self, x: torch.Tensor) -> torch.Tensor:
        x = self.transform(x)  # [B, t, H]
        logits = x @ self.word_embed.weight.to(x.dtype).t()  # [B, t, V], tied
        return logits + self.output_bias.to(logits.dtype)
