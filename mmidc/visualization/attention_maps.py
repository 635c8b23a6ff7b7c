"""CLS attention maps of the CLIP4IDC pair encoder (the paper's figures 3-5).

The backbone, called with ``return_attentions=True``, returns per block:

- ``intra``: ``[B, 2, heads, n+1, n+1]``, each image attending to itself;
- ``inter``: ``[B, heads, 2(n+1), 2(n+1)]``, the joint sequence
  ``[CLS1, patches1, CLS2, patches2]`` (with difference tokens
  ``[B, heads, 3(n+1), 3(n+1)]``, the difference segment last; its columns
  are left out of the maps).

From the last block of each kind we take the CLS rows, average the heads and
keep the attention paid to each image's patches:

- intra map of image k: CLS_k over the patches of image k;
- inter map of image k: the mean of CLS_1's and CLS_2's attention over the
  patches of image k. The pair embedding is the mean of the two CLS tokens,
  so this is where the pooled representation looks. Per-query maps are kept
  in ``inter_per_query`` (``[B, query, image, gh, gw]``).

Values are attention probabilities (mass per patch), not normalised per map:
an inter map's two images share one softmax, so their sums compare.
"""
import math
from typing import Dict, List, Optional, Tuple

import torch.nn.functional as F
from torch import Tensor


def patch_grid_shape(num_patches: int, image_hw: Tuple[int, int]) -> Tuple[int, int]:
    """The ``(rows, cols)`` patch grid of an ``image_hw`` input.

    Args:
        num_patches (int): patches per image (``n``).
        image_hw (tuple[int, int]): the model input's ``(H, W)``.
    """
    height, width = image_hw
    rows = max(1, round(math.sqrt(num_patches * height / width)))
    cols = num_patches // rows
    if rows * cols != num_patches:
        raise ValueError(f'cannot arrange {num_patches} patches in a grid for '
                         f'an input of {height}x{width}')
    return rows, cols


def cls_attention_maps(attentions: Dict[str, List[Tensor]],
                       image_hw: Tuple[int, int]) -> Dict[str, Optional[Tensor]]:
    """Head-averaged CLS attention over each image's patches, last blocks.

    Args:
        attentions (dict): ``{'intra': [...], 'inter': [...]}`` as returned
            by ``CLIP4IDCBackbone(..., return_attentions=True)``.
        image_hw (tuple[int, int]): the model input's ``(H, W)``, to lay
            the patches out in a grid.

    Returns:
        dict: ``intra`` and ``inter`` ``[B, 2, gh, gw]`` (image 1, image 2),
        ``inter_per_query`` ``[B, 2, 2, gh, gw]`` (CLS query, image); a kind
        the backbone has no block of is None.
    """
    if not attentions.get('intra') and not attentions.get('inter'):
        raise ValueError('the backbone returned no attention maps')
    maps = {'intra': None, 'inter': None, 'inter_per_query': None}
    if attentions.get('intra'):
        intra = attentions['intra'][-1]  # [B, 2, heads, n+1, n+1]
        batch, _, _, tokens, _ = intra.shape
        grid = patch_grid_shape(tokens - 1, image_hw)
        cls_rows = intra.float().mean(2)[:, :, 0, 1:]  # [B, 2, n]
        maps['intra'] = cls_rows.reshape(batch, 2, *grid)  # [B, 2, gh, gw]
    if attentions.get('inter'):
        inter = attentions['inter'][-1]  # [B, heads, S(n+1), S(n+1)]
        segments = attentions.get('num_segments', 2)  # 3: + difference
        batch, tokens = inter.shape[0], inter.shape[-1] // segments  # n+1
        grid = patch_grid_shape(tokens - 1, image_hw)
        joint = inter.float().mean(1)  # [B, S(n+1), S(n+1)]
        # the images' CLS rows over the images' tokens (difference
        # segment's columns left out)
        cls_rows = joint[:, [0, tokens], :2 * tokens]  # [B, query, 2(n+1)]
        per_image = cls_rows.reshape(batch, 2, 2, tokens)  # [B, query, image, n+1]
        per_query = per_image[..., 1:].reshape(batch, 2, 2, *grid)  # [B, q, img, gh, gw]
        maps['inter_per_query'] = per_query
        maps['inter'] = per_query.mean(1)  # [B, image, gh, gw]
    return maps


def upsample_map(attention: Tensor, size_hw: Tuple[int, int]) -> Tensor:
    """Bilinear upsampling of a ``[..., gh, gw]`` map to ``size_hw``.

    Patch values are spread over their pixels, so the mean of the result
    over a region is the attention mass per patch-sized area there.
    """
    lead = attention.shape[:-2]
    flat = attention.reshape(-1, 1, *attention.shape[-2:])  # [N, 1, gh, gw]
    up = F.interpolate(flat, size=size_hw, mode='bilinear', align_corners=False)
    return up.reshape(*lead, *size_hw)  # [..., H, W]
