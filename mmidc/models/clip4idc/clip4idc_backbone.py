"""CLIP4IDC pair encoder: intra-image CLIP blocks, then inter-image blocks."""
from typing import Dict, Optional, Sequence, Tuple, Union

import torch
from mmengine.model import BaseModule
from torch import nn
from torch.utils.checkpoint import checkpoint

from mmidc.registry import MODELS, WEIGHT_INITIALIZERS
from ..open_clip import (build_clip_vision_tower, grid_of,
                         interpolate_pos_embed, load_clip_state_dict,
                         load_tower_weights, vision_state_dict)
from .segments import split_segments

__all__ = ['CLIP4IDCBackbone']

# Parameters this module adds on top of CLIP's vision tower.
_NEW_PARAMS = ('image_id_embedding', 'joint_positional_embedding', 'ln_joint',
               'extra_segments')


def _block_with_attention(block: nn.Module,
                          x: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
    """open_clip ``ResidualAttentionBlock.forward`` that also returns the
    attention weights ``[B, heads, N, N]`` (explicit softmax, no SDPA)."""
    h = block.ln_1(x)
    attn_out, weights = block.attn(h, h, h, need_weights=True,
                                   average_attn_weights=False)
    x = x + block.ls_1(attn_out)
    x = x + block.ls_2(block.mlp(block.ln_2(x)))
    return x, weights


@MODELS.register_module()
class CLIP4IDCBackbone(BaseModule):
    """CLIP ViT over an image pair: intra blocks per image, inter blocks jointly.

    The first ``L - num_inter_layers`` CLIP blocks run on each image alone
    (both images as one batch of ``2B``). Then an image-id embedding
    (``e1``/``e2``) is added to every token of its image, the two sequences
    are concatenated to ``2(n+1)`` tokens, a joint positional embedding is
    added, a new LayerNorm applied, and the last ``num_inter_layers`` blocks
    run on the joint sequence. Every output token goes through ``ln_post``
    and ``proj``.

    Parameter names are open_clip's (``conv1``, ``class_embedding``,
    ``positional_embedding``, ``ln_pre``, ``transformer.resblocks.N``,
    ``ln_post``, ``proj``), so CLIP's ``visual.*`` weights load unchanged.
    New parameters (only when ``num_inter_layers > 0``), initialised when
    the CLIP weights do not hold them:

    - ``image_id_embedding`` ``[S, D]`` (one row per segment) and
      ``joint_positional_embedding`` ``[S(n+1), D]``: by the
      ``new_param_init`` component (:class:`TiledPositionInit`: image-id
      vectors of std 0.02 and CLIP's positional embedding tiled per segment;
      :class:`WidthScaledNormalInit`: both ~ N(0, ``D ** -0.5``), the
      published code's).
    - ``ln_joint``: LayerNorm(D), weight 1, bias 0.

    Output segments: ``segments`` names them in order, each ``n + 1`` tokens
    with its CLS token first: ``'before'`` and ``'after'`` (the paper's), then
    one per extra segment. Consumers find a segment by name
    (:meth:`split_segments`), not by position.

    Extension points (both unused by the paper's configs):

    - ``patch_embed``: a registered module that replaces CLIP's ``conv1``
      (kept under that name). It is built with ``patch_size`` and ``width``
      and maps ``[N, 3, H, W]`` to ``[N, width, H/p, W/p]``; one with a
      ``channels`` attribute also returns its intermediate feature maps when
      called with ``return_features=True`` (e.g. the from-scratch project's
      ``ConvStem``).
    - ``extra_segments``: registered modules that each add a segment of
      ``n + 1`` tokens to the inter blocks' input (or, without inter blocks,
      to the output). Each is built with ``width`` and ``stem_channels``
      (the patch embedding's feature-map channels), has a ``name`` and is
      called as ``segment(intra, stem_features, grid)`` with the intra
      blocks' output ``[2, B, n+1, D]`` (before, after) and, when its
      ``needs_stem_features`` is true, the patch embedding's maps (a list of
      ``[2B, C_i, h_i, w_i]``, the patch embeddings themselves for a plain
      conv); it returns ``[B, n+1, D]`` (e.g. the from-scratch project's
      ``DifferenceSegment``).

    Args:
        arch (str | dict): open_clip model name (e.g. ``'ViT-B-32'``) or an
            open_clip config dict.
        pretrained (str | dict, optional): CLIP weights: a state-dict file,
            an MMEngine checkpoint, an open_clip tag or a loaded state dict
            (see :mod:`mmidc.models.open_clip.weights`). Missing CLIP keys
            are an error.
        num_inter_layers (int): Blocks run on the joint sequence. 0 = no
            fusion (the CLIP-FT baseline; no new parameters). Default 3.
        img_size (int | tuple, optional): Input size (divisible by the patch
            size). Defaults to the arch's. Checkpoint positional embeddings
            are resized bicubically; inputs of another size resize them on
            the fly.
        grad_checkpointing (bool): Recompute blocks in backward. Default
            False.
        frozen_stages (int): -1 freezes nothing; k >= 0 freezes the patch
            embedding (conv1, class/positional embeddings, ln_pre) and the
            first k blocks. Default -1.
        patch_embed (dict, optional): Config of a module replacing ``conv1``
            (see above). Default None (CLIP's patch conv).
        extra_segments (Sequence[dict]): Configs of extra token segments
            (see above). Default none.
        new_param_init (dict): Config of the weight initializer of the
            image-id and joint positional embeddings, called with the
            backbone (see above). Default
            ``dict(type='TiledPositionInit')``.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 arch: Union[str, dict] = 'ViT-B-32',
                 pretrained: Optional[Union[str, dict]] = None,
                 num_inter_layers: int = 3,
                 img_size: Optional[Union[int, Tuple[int, int]]] = None,
                 grad_checkpointing: bool = False,
                 frozen_stages: int = -1,
                 patch_embed: Optional[dict] = None,
                 extra_segments: Sequence[dict] = (),
                 new_param_init: dict = dict(type='TiledPositionInit'),
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        if not isinstance(new_param_init, dict):
            raise TypeError(
                f'CLIP4IDCBackbone(new_param_init={new_param_init!r}): give '
                "an initializer's config, e.g. dict(type='TiledPositionInit') "
                "or dict(type='WidthScaledNormalInit')")
        self.new_param_init = WEIGHT_INITIALIZERS.build(new_param_init)
        vit = build_clip_vision_tower(arch, img_size)
        num_layers = len(vit.transformer.resblocks)
        if not 0 <= num_inter_layers <= num_layers:
            raise ValueError(f'num_inter_layers={num_inter_layers} must be '
                             f'in [0, {num_layers}] for this arch')
        if not -1 <= frozen_stages <= num_layers:
            raise ValueError(f'frozen_stages={frozen_stages} must be in '
                             f'[-1, {num_layers}]')
        self.patch_size = vit.patch_size
        self.grid_size = tuple(vit.grid_size)
        self.width = vit.transformer.width
        self.output_dim = vit.output_dim
        self.num_inter_layers = num_inter_layers
        self.num_intra_layers = num_layers - num_inter_layers
        self.grad_checkpointing = grad_checkpointing
        self.frozen_stages = frozen_stages

        # open_clip's modules under open_clip's names
        self.conv1 = vit.conv1
        if patch_embed is not None:
            if pretrained is not None:
                raise ValueError('patch_embed replaces the patch conv that '
                                 'CLIP weights are for: use pretrained=None '
                                 'or patch_embed=None')
            self.conv1 = MODELS.build(dict(patch_embed,
                                           patch_size=self.patch_size,
                                           width=self.width))
        stem_channels = tuple(getattr(self.conv1, 'channels', (self.width, )))
        self.extra_segments = nn.ModuleList(
            MODELS.build(dict(cfg, width=self.width,
                              stem_channels=stem_channels))
            for cfg in extra_segments)
        self.segments = ('before', 'after') + tuple(
            seg.name for seg in self.extra_segments)
        if len(set(self.segments)) != len(self.segments):
            raise ValueError(f'segment names must be unique, got '
                             f'{self.segments}')
        self.class_embedding = vit.class_embedding
        self.positional_embedding = vit.positional_embedding
        self.ln_pre = vit.ln_pre
        self.transformer = vit.transformer
        self.ln_post = vit.ln_post
        self.proj = vit.proj

        if num_inter_layers > 0:
            num_tokens = self.grid_size[0] * self.grid_size[1] + 1
            self.image_id_embedding = nn.Parameter(
                torch.zeros(self.num_segments, self.width))
            self.joint_positional_embedding = nn.Parameter(
                torch.zeros(self.num_segments * num_tokens, self.width))
            self.ln_joint = nn.LayerNorm(self.width)

        if pretrained is not None:
            self.load_clip_weights(pretrained, arch)
        else:
            self.init_new_parameters()
        self._freeze_stages()

    @property
    def num_segments(self) -> int:
        """Token segments of the output (2 + extra segments)."""
        return len(self.segments)

    # ------------------------------------------------------------ weights

    def init_new_parameters(self) -> None:
        """Initialise the parameters CLIP does not have (see class doc)."""
        if self.num_inter_layers == 0:
            return
        self.new_param_init(self)
        nn.init.ones_(self.ln_joint.weight)
        nn.init.zeros_(self.ln_joint.bias)

    def load_clip_weights(self, pretrained: Union[str, dict],
                          arch: Union[str, dict] = None) -> None:
        """Load CLIP vision weights (see ``pretrained`` in the class doc)."""
        source = pretrained if isinstance(pretrained, str) else 'state dict'
        state = vision_state_dict(load_clip_state_dict(pretrained, arch))
        if 'positional_embedding' in state:
            pos = state['positional_embedding']
            # a table of this model's size is on this model's grid (also
            # when it is not square, e.g. 6x9 for 96x144 images)
            same = pos.shape == self.positional_embedding.shape
            state['positional_embedding'] = interpolate_pos_embed(
                pos, self.grid_size if same else grid_of(pos.shape[0]),
                self.grid_size)
        has_new = 'joint_positional_embedding' in state
        ids = state.get('image_id_embedding')
        if ids is not None and ids.shape[0] != self.num_segments:
            raise ValueError(
                f'{source}: image_id_embedding has {ids.shape[0]} segments, '
                f'this backbone {self.num_segments} {self.segments}')
        if has_new and state['joint_positional_embedding'].shape != \
                self.joint_positional_embedding.shape:
            state['joint_positional_embedding'] = self._resize_joint_pos(
                state['joint_positional_embedding'], self.grid_size)
        load_tower_weights(self, state, source, new_params=_NEW_PARAMS)
        if not has_new:
            self.init_new_parameters()

    def _freeze_stages(self) -> None:
        if self.frozen_stages < 0:
            return
        frozen = [self.conv1, self.ln_pre,
                  *self.transformer.resblocks[:self.frozen_stages]]
        for module in frozen:
            module.eval()
            for param in module.parameters():
                param.requires_grad = False
        self.class_embedding.requires_grad = False
        self.positional_embedding.requires_grad = False

    def train(self, mode: bool = True):
        super().train(mode)
        self._freeze_stages()
        return self

    # ------------------------------------------------------------ forward

    def _resize_joint_pos(self, joint_pos: torch.Tensor,
                          grid: Tuple[int, int]) -> torch.Tensor:
        segments = joint_pos.chunk(self.num_segments)  # S x [n+1, D]
        old = grid_of(segments[0].shape[0])
        return torch.cat(
            [interpolate_pos_embed(seg, old, grid) for seg in segments])

    def _pos_embeds(self, grid: Tuple[int, int]):
        """Positional embeddings for a ``grid``, resized if it differs."""
        pos = interpolate_pos_embed(self.positional_embedding, self.grid_size,
                                    grid)
        joint = None
        if self.num_inter_layers > 0:
            joint = self.joint_positional_embedding
            if grid != self.grid_size:
                joint = self._resize_joint_pos(joint, grid)
        return pos, joint

    def _run_block(self, block: nn.Module, x: torch.Tensor,
                   attentions: Optional[list]) -> torch.Tensor:
        if attentions is not None:
            x, weights = _block_with_attention(block, x)
            attentions.append(weights)
            return x
        if self.grad_checkpointing and self.training and x.requires_grad:
            return checkpoint(block, x, use_reentrant=False)
        return block(x)  # nn.MultiheadAttention, need_weights=False: SDPA

    def _embed_patches(self, x: torch.Tensor):
        """``[2B, 3, H, W]`` -> patch embeddings ``[2B, D, h, w]`` and, when
        an extra segment needs them, the patch embedding's feature maps."""
        if not any(seg.needs_stem_features for seg in self.extra_segments):
            return self.conv1(x), None
        if hasattr(self.conv1, 'channels'):
            return self.conv1(x, return_features=True)
        x = self.conv1(x)
        return x, [x]

    def forward(self,
                img1: torch.Tensor,
                img2: torch.Tensor,
                return_attentions: bool = False):
        """Encode a batch of image pairs.

        Args:
            img1 (Tensor): Before images ``[B, 3, H, W]``, normalised.
            img2 (Tensor): After images ``[B, 3, H, W]``, normalised.
            return_attentions (bool): Also return the attention maps
                ``{'intra': [Tensor[B, 2, heads, n+1, n+1]] per intra block,
                'inter': [Tensor[B, heads, S(n+1), S(n+1)]] per inter
                block, 'segments': names, 'num_segments': S}``.

        Returns:
            Tensor ``[B, S(n+1), D_out]``: the segments of ``segments`` in
            order, each CLS first; and the attention dict if asked for.
        """
        if img1.shape != img2.shape:
            raise ValueError(f'img1 {tuple(img1.shape)} and img2 '
                             f'{tuple(img2.shape)} differ in shape')
        B, _, H, W = img1.shape
        ph, pw = self.patch_size
        if H % ph or W % pw:
            raise ValueError(f'input size {H}x{W} is not divisible by the '
                             f'patch size {ph}x{pw}')
        grid = (H // ph, W // pw)
        pos, joint_pos = self._pos_embeds(grid)

        x = torch.cat([img1, img2], dim=0)  # [2B, 3, H, W]
        x, stem = self._embed_patches(x)  # [2B, D, h, w]
        x = x.flatten(2).transpose(1, 2)  # [2B, n, D]
        cls = self.class_embedding.to(x.dtype).expand(2 * B, 1, -1)
        x = torch.cat([cls, x], dim=1)  # [2B, n+1, D]
        x = self.ln_pre(x + pos.to(x.dtype))
        T = x.shape[1]  # n + 1

        intra = [] if return_attentions else None
        for block in self.transformer.resblocks[:self.num_intra_layers]:
            x = self._run_block(block, x, intra)
        x = x.reshape(2, B, T, -1)  # [2, B, n+1, D]: image index first
        if len(self.extra_segments):
            extra = [seg(x, stem, grid)[None] for seg in self.extra_segments]
            x = torch.cat([x, *extra])  # [S, B, n+1, D]
        S = self.num_segments

        inter = [] if return_attentions else None
        if self.num_inter_layers > 0:
            e = self.image_id_embedding.to(x.dtype)
            x = x + e[:, None, None, :]  # e1 / e2 (/ extra) on every token
            x = x.transpose(0, 1).reshape(B, S * T, -1)  # [B, S(n+1), D]
            x = self.ln_joint(x + joint_pos.to(x.dtype))
            for block in self.transformer.resblocks[self.num_intra_layers:]:
                x = self._run_block(block, x, inter)
        else:
            x = x.transpose(0, 1).reshape(B, S * T, -1)  # [B, S(n+1), D]

        x = self.ln_post(x) @ self.proj.to(x.dtype)  # [B, S(n+1), D_out]
        if not return_attentions:
            return x
        intra = [a.reshape(2, B, *a.shape[1:]).transpose(0, 1)
                 for a in intra]  # each [B, 2, heads, n+1, n+1]
        return x, dict(intra=intra, inter=inter, segments=self.segments,
                       num_segments=S)

    def split_segments(self, tokens: torch.Tensor) -> Dict[str, torch.Tensor]:
        """Output tokens ``[B, S(n+1), D]`` -> ``{name: [B, n+1, D]}``."""
        return split_segments(tokens, self.segments)

    def num_tokens(self) -> int:
        """Tokens per pair at the backbone's input size, ``S(n+1)``."""
        return self.num_segments * (self.grid_size[0] * self.grid_size[1] + 1)
