"""How the published CLIP4IDC code starts the inter-image parameters."""
from torch import nn

from mmidc.registry import WEIGHT_INITIALIZERS

__all__ = ['WidthScaledNormalInit']


@WEIGHT_INITIALIZERS.register_module()
class WidthScaledNormalInit:
    """``image_id_embedding`` and ``joint_positional_embedding`` ~
    N(0, ``width ** -0.5``) (0.036 for ViT-B), the published code's."""

    def __call__(self, backbone: nn.Module) -> None:
        """Initialise ``backbone``'s (a :class:`CLIP4IDCBackbone`) two
        embeddings in place."""
        std = backbone.width**-0.5
        nn.init.normal_(backbone.image_id_embedding, std=std)
        nn.init.normal_(backbone.joint_positional_embedding, std=std)
