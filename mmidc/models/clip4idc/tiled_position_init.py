"""How CLIP4IDCBackbone's inter-image parameters start by default."""
import torch
from torch import nn

from mmidc.registry import WEIGHT_INITIALIZERS

__all__ = ['TiledPositionInit']


@WEIGHT_INITIALIZERS.register_module()
class TiledPositionInit:
    """Start the inter blocks from position codes they were trained with.

    ``image_id_embedding`` ~ N(0, ``std``) and ``joint_positional_embedding``
    = CLIP's (loaded, resized) positional embedding tiled once per segment.
    At the first step the inter blocks see CLIP's position codes and only
    small image-id vectors.

    Args:
        std (float): Standard deviation of the image-id vectors. Defaults to
            0.02.
    """

    def __init__(self, std: float = 0.02):
        self.std = std

    def __call__(self, backbone: nn.Module) -> None:
        """Initialise ``backbone``'s (a :class:`CLIP4IDCBackbone`) two
        embeddings in place."""
        nn.init.normal_(backbone.image_id_embedding, std=self.std)
        with torch.no_grad():
            backbone.joint_positional_embedding.copy_(
                backbone.positional_embedding.repeat(backbone.num_segments,
                                                     1))  # [S(n+1), D]
