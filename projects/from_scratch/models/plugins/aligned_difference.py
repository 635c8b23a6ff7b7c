"""A viewpoint-tolerant difference of two feature maps."""
import torch
import torch.nn.functional as F
from torch import nn

__all__ = ['AlignedDifference']


def _best_match_difference(query: torch.Tensor, reference: torch.Tensor,
                           radius: int) -> torch.Tensor:
    """``query - reference`` at each position's best match in ``reference``.

    For every position of ``query`` ``[B, C, h, w]`` the candidates are the
    ``(2r+1)^2`` positions of ``reference`` within ``radius`` cells (the
    border replicated); the one nearest in feature space (squared L2) is
    subtracted. A feature that only moved by up to ``radius`` cells finds
    itself and leaves about zero; one that changed finds nothing close.
    The search runs without gradients; the gradient flows through the
    difference to the chosen match.
    """
    B, C, h, w = query.shape
    r, side = radius, 2 * radius + 1
    padded = F.pad(reference, (r, r, r, r), mode='replicate')  # [B, C, h+2r, w+2r]
    with torch.no_grad():
        dist = torch.stack([
            (query - padded[:, :, dy:dy + h, dx:dx + w]).pow(2).sum(1)
            for dy in range(side) for dx in range(side)
        ])  # [K, B, h, w], K = side^2
        best = dist.argmin(0)  # [B, h, w]: offset k = dy * side + dx
        rows = torch.arange(h, device=query.device)[:, None] + best // side
        cols = torch.arange(w, device=query.device)[None, :] + best % side
        index = (rows * (w + 2 * r) + cols).flatten(1)  # [B, h*w]
    match = padded.flatten(2).gather(
        2, index[:, None].expand(B, C, h * w))  # [B, C, h*w]
    return query - match.view(B, C, h, w)


class AlignedDifference(nn.Module):
    """Per-position change features of an image pair, tolerant to a shift.

    The camera moves a little between CLEVR-Change's before and after images
    (and in most real pairs), so a plain ``after - before`` at the same
    position is large on the edge of every object, changed or not. Here each
    position of the after map is compared with its best match within
    ``radius`` cells of the before map, and each position of the before map
    with its best match in the after map: both are about zero where the
    scene only shifted, the first is large where something appeared or
    changed its look, the second where something disappeared or changed.
    The two ``[B, C, h, w]`` maps are average-pooled to the token grid and
    projected to the token width.

    Args:
        in_channels (int): Channels ``C`` of the feature maps.
        out_channels (int): Token width.
        radius (int): Search radius in cells of the feature map. Default 1.
    """

    def __init__(self, in_channels: int, out_channels: int, radius: int = 1):
        super().__init__()
        if radius < 0:
            raise ValueError(f'radius must be >= 0, got {radius}')
        self.radius = radius
        self.proj = nn.Linear(2 * in_channels, out_channels)

    def forward(self, before: torch.Tensor, after: torch.Tensor,
                grid: tuple) -> torch.Tensor:
        """``before``/``after`` ``[B, C, h, w]`` -> tokens ``[B, n, D]``,
        ``n = grid[0] * grid[1]`` (``h, w`` multiples of the grid)."""
        # the default layout: the shifted slices and the gather of the
        # search run faster in it than in the conv stem's channels-last
        before, after = before.contiguous(), after.contiguous()
        appeared = _best_match_difference(after, before, self.radius)
        vanished = _best_match_difference(before, after, self.radius)
        x = torch.cat([appeared, vanished], dim=1)  # [B, 2C, h, w]
        x = F.adaptive_avg_pool2d(x, grid)  # [B, 2C, gh, gw]
        x = x.flatten(2).transpose(1, 2)  # [B, n, 2C]
        return self.proj(x)  # [B, n, D]
