"""Token and feature masking, and the attention masks of IDC-PCL.

The joint sequence of the cross-modal transformer is
``[IMG1, v1_1..v1_N, IMG2, v2_1..v2_N]`` (``Tv = 2(N + 1)`` visual tokens)
followed by the caption ``[CLS]? BOS w_1 .. w_M EOS pad ..``.
"""
from typing import Optional, Tuple

import torch

__all__ = ['mask_caption_tokens', 'mask_one_image', 'joint_attention_mask']

IGNORE_INDEX = -100


def mask_caption_tokens(ids: torch.Tensor, maskable: torch.Tensor,
                        mask_prob: float, mask_id: int,
                        random_ids: Tuple[int, int],
                        generator: Optional[torch.Generator] = None
                        ) -> Tuple[torch.Tensor, torch.Tensor]:
    """BERT-style masking of caption tokens.

    Each maskable token is chosen with probability ``mask_prob``; a chosen
    token becomes ``mask_id`` 80% of the time, a random word id from
    ``[random_ids[0], random_ids[1])`` 10% of the time and stays itself 10%
    of the time. A row with maskable tokens but none chosen gets one chosen
    at random (always replaced by ``mask_id``).

    Args:
        ids (Tensor): ``[B, L]`` token ids.
        maskable (Tensor): ``[B, L]`` bool, the tokens that may be masked.
        mask_prob (float): Chance of each maskable token being chosen.
        mask_id (int): The ``[MASK]`` id.
        random_ids (tuple): ``(low, high)`` range of the random replacements.
        generator (torch.Generator, optional): Random source.

    Returns:
        tuple: the masked ids ``[B, L]`` and the targets ``[B, L]`` (the
        original id where chosen, ``-100`` elsewhere).
    """
    def rand(*shape):
        return torch.rand(*shape, generator=generator, device='cpu').to(ids.device)

    chosen = (rand(*ids.shape) < mask_prob) & maskable  # [B, L]
    # at least one chosen token in every row that has a maskable one
    empty = ~chosen.any(1) & maskable.any(1)  # [B]
    if empty.any():
        scores = rand(*ids.shape).masked_fill(~maskable, -1.0)  # [B, L]
        pick = torch.zeros_like(chosen).scatter_(1, scores.argmax(1, keepdim=True), True)
        forced = pick & empty[:, None]
        chosen |= forced
    else:
        forced = torch.zeros_like(chosen)
    action = rand(*ids.shape)  # [B, L]: < 0.8 mask, < 0.9 random, else keep
    to_mask = chosen & ((action < 0.8) | forced)
    to_random = chosen & ~to_mask & (action < 0.9)
    random_words = torch.randint(random_ids[0], random_ids[1], ids.shape,
                                 generator=generator).to(ids.device)
    masked = ids.masked_fill(to_mask, mask_id)
    masked = torch.where(to_random, random_words, masked)
    targets = ids.masked_fill(~chosen, IGNORE_INDEX)
    return masked, targets


def mask_one_image(batch_size: int, num_tokens: int, mask_prob: float,
                   generator: Optional[torch.Generator] = None,
                   device=None) -> torch.Tensor:
    """MVCL's feature mask: in each pair, one image chosen at random has
    each of its ``num_tokens`` feature positions masked with probability
    ``mask_prob`` (at least one).

    Returns:
        Tensor: bool ``[B, 2, N]``, True where the feature is masked.
    """
    chosen = torch.rand(batch_size, num_tokens, generator=generator) < mask_prob
    # at least one position per pair
    forced = torch.randint(0, num_tokens, (batch_size, ), generator=generator)
    chosen[torch.arange(batch_size), forced] |= ~chosen.any(1)
    which = torch.randint(0, 2, (batch_size, ), generator=generator)  # [B]
    mask = torch.zeros(batch_size, 2, num_tokens, dtype=torch.bool)
    mask[torch.arange(batch_size), which] = chosen  # [B, 2, N]
    return mask.to(device) if device is not None else mask


def joint_attention_mask(num_visual: int, text_valid: torch.Tensor,
                         mode: str) -> torch.Tensor:
    """Who may attend to whom in ``[visual (Tv), text (Lt)]``.

    ``'bidirectional'`` (pre-training): every token attends to every visual
    token and every non-padding text token. ``'seq2seq'`` (fine-tuning,
    UniLM's sequence-to-sequence mask): visual tokens attend to visual tokens
    only; text token ``i`` attends to every visual token and to the
    non-padding text tokens ``j <= i``. So the visual part never reads the
    caption, and a caption position never reads a later one: decoding can
    cache the keys and values of the visual tokens and of the caption so far.

    Args:
        num_visual (int): ``Tv``.
        text_valid (Tensor): bool ``[B, Lt]``, False at padding.
        mode (str): ``'bidirectional'`` or ``'seq2seq'``.

    Returns:
        Tensor: bool ``[B, 1, Tv + Lt, Tv + Lt]``, True where query (row)
        may attend to key (column).
    """
    if mode not in ('bidirectional', 'seq2seq'):
        raise ValueError(f"mode must be 'bidirectional' or 'seq2seq', got {mode!r}")
    B, Lt = text_valid.shape
    T = num_visual + Lt
    device = text_valid.device
    key_ok = torch.cat([torch.ones(B, num_visual, dtype=torch.bool, device=device),
                        text_valid], dim=1)  # [B, T]
    mask = key_ok[:, None, :].expand(B, T, T).clone()  # [B, T(query), T(key)]
    if mode == 'seq2seq':
        mask[:, :num_visual, num_visual:] = False  # visual reads no text
        causal = torch.ones(Lt, Lt, dtype=torch.bool, device=device).tril()  # [Lt, Lt]
        mask[:, num_visual:, num_visual:] &= causal
    return mask[:, None]  # [B, 1, T, T]
