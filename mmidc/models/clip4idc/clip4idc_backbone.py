"""CLIP4IDC pair encoder: intra-image CLIP blocks, then inter-image blocks."""
from typing import Optional, Sequence, Tuple, Union

import torch
import torch.nn.functional as F
from mmengine.model import BaseModule
from torch import nn
from torch.utils.checkpoint import checkpoint

from mmidc.registry import MODELS
from ..plugins.aligned_difference import AlignedDifference
from ..plugins.conv_stem import ConvStem
from ..utils.open_clip_utils import (build_clip_vision_tower, grid_of,
                              interpolate_pos_embed, load_clip_state_dict,
                              load_tower_weights, vision_state_dict)

__all__ = ['CLIP4IDCBackbone']

# Parameters this module adds on top of CLIP's vision tower.
_NEW_PARAMS = ('image_id_embedding', 'joint_positional_embedding', 'ln_joint',
               'aligned_difference')


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
    New parameters (only when ``num_inter_layers > 0``):

    - ``image_id_embedding`` ``[2, D]``: normal, std 0.02.
    - ``joint_positional_embedding`` ``[2(n+1), D]``: CLIP's (loaded,
      resized) positional embedding tiled twice, so the inter blocks start
      from position codes they were trained with.
    - ``ln_joint``: LayerNorm(D), weight 1, bias 0.

    Options for models trained from random weights (the tiny CPU configs),
    all off by default (the paper's model):

    - ``conv_stem``: ``conv1`` becomes a :class:`ConvStem` (3x3 stride-2
      convs, then a patchifying conv) instead of CLIP's single patch conv.
    - ``difference_tokens``: a third segment joins the inter blocks' input,
      ``d = x2 - x1`` (the two images' intra outputs, position by
      position), with its own image-id row and positional embedding; the
      output then has ``3(n+1)`` tokens. An explicit difference is what most
      IDC models since DUDA (Park et al., 2019) feed their decoders; CLIP's
      pretrained features let CLIP4IDC do without it, a random-init tiny
      ViT does not (docs/from_scratch.md).
    - ``aligned_difference``: an :class:`AlignedDifference` of the two
      images' early features (a stage of the conv stem, or the patch
      embeddings without a stem) is added to the difference segment's
      patch tokens: each position compared with its best match within
      ``alignment_radius`` cells of the other image, so that the small
      camera move between the images does not read as a change.

    Args:
        arch (str | dict): open_clip model name (e.g. ``'ViT-B-32'``) or an
            open_clip config dict.
        pretrained (str | dict, optional): CLIP weights: a state-dict file,
            an MMEngine checkpoint, an open_clip tag or a loaded state dict
            (see :mod:`.open_clip_utils`). Missing CLIP keys are an error.
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
        conv_stem (Sequence[int], optional): Channels of the stride-2 stages
            of a :class:`ConvStem` replacing ``conv1`` (from-scratch models
            only; CLIP's weights have a patch conv). Default None.
        difference_tokens (bool): Append the difference segment to the
            inter blocks' input (needs ``num_inter_layers > 0``). Default
            False.
        aligned_difference (bool): Add the shift-tolerant difference of the
            stem features to the difference segment (needs
            ``difference_tokens``). Default False.
        alignment_radius (int): Search radius of ``aligned_difference`` in
            cells of its feature map. Default 1.
        alignment_stage (int): Which stride-2 stage of the conv stem
            ``aligned_difference`` compares (index into ``conv_stem``; stage
            ``i``'s cells are ``2^(i+1)`` px). Ignored without a stem (the
            patch embeddings are compared). Default -1 (the last).
        pool (str): The pair vector of :meth:`pool`: ``'cls'`` (the paper:
            mean of the two images' CLS tokens) or ``'mean'`` (mean of all
            output tokens; for from-scratch models, whose CLS outputs start
            nearly input-independent, so that contrastive training collapses
            both towers to one vector) or ``'max'`` (channel-wise max of all
            output tokens, where one small changed object is not averaged
            away). Default ``'cls'``.
        init_cfg (dict, optional): MMEngine init config.
    """

    def __init__(self,
                 arch: Union[str, dict] = 'ViT-B-32',
                 pretrained: Optional[Union[str, dict]] = None,
                 num_inter_layers: int = 3,
                 img_size: Optional[Union[int, Tuple[int, int]]] = None,
                 grad_checkpointing: bool = False,
                 frozen_stages: int = -1,
                 conv_stem: Optional[Sequence[int]] = None,
                 difference_tokens: bool = False,
                 aligned_difference: bool = False,
                 alignment_radius: int = 1,
                 alignment_stage: int = -1,
                 pool: str = 'cls',
                 init_cfg: Optional[dict] = None):
        super().__init__(init_cfg=init_cfg)
        vit = build_clip_vision_tower(arch, img_size)
        num_layers = len(vit.transformer.resblocks)
        if not 0 <= num_inter_layers <= num_layers:
            raise ValueError(f'num_inter_layers={num_inter_layers} must be '
                             f'in [0, {num_layers}] for this arch')
        if pool not in ('cls', 'mean', 'max'):
            raise ValueError(f"pool must be 'cls', 'mean' or 'max', got {pool!r}")
        self.pool_mode = pool
        if difference_tokens and num_inter_layers == 0:
            raise ValueError('difference_tokens=True needs inter blocks '
                             '(num_inter_layers > 0)')
        if aligned_difference and not difference_tokens:
            raise ValueError('aligned_difference=True adds to the difference '
                             'segment: it needs difference_tokens=True')
        if not -1 <= frozen_stages <= num_layers:
            raise ValueError(f'frozen_stages={frozen_stages} must be in '
                             f'[-1, {num_layers}]')
        self.patch_size = vit.patch_size
        self.grid_size = tuple(vit.grid_size)
        self.width = vit.transformer.width
        self.output_dim = vit.output_dim
        self.num_inter_layers = num_inter_layers
        self.num_intra_layers = num_layers - num_inter_layers
        self.difference_tokens = difference_tokens
        # token segments of the output: image 1, image 2 (, difference)
        self.num_segments = 3 if difference_tokens else 2
        self.grad_checkpointing = grad_checkpointing
        self.frozen_stages = frozen_stages

        # open_clip's modules under open_clip's names
        self.conv1 = vit.conv1
        if conv_stem is not None:
            if self.patch_size[0] != self.patch_size[1]:
                raise ValueError(f'conv_stem needs a square patch, got '
                                 f'{self.patch_size}')
            self.conv1 = ConvStem(self.patch_size[0], self.width, conv_stem)
        self.aligned_difference = None
        if aligned_difference:
            channels = self.width
            if conv_stem is not None:
                stages = len(self.conv1.channels)
                if not -stages <= alignment_stage < stages:
                    raise ValueError(f'alignment_stage={alignment_stage}: the '
                                     f'conv stem has {stages} stages')
                channels = self.conv1.channels[alignment_stage]
            self.alignment_stage = alignment_stage
            self.aligned_difference = AlignedDifference(
                channels, self.width, alignment_radius)
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
            if conv_stem is not None:
                raise ValueError('conv_stem replaces the patch conv that CLIP '
                                 'weights are for: use pretrained=None or '
                                 'conv_stem=None')
            self.load_clip_weights(pretrained, arch)
        else:
            self.init_new_parameters()
        self._freeze_stages()

    # ------------------------------------------------------------ weights

    def init_new_parameters(self) -> None:
        """Initialise the parameters CLIP does not have (see class doc)."""
        if self.num_inter_layers == 0:
            return
        nn.init.normal_(self.image_id_embedding, std=0.02)
        with torch.no_grad():
            self.joint_positional_embedding.copy_(
                self.positional_embedding.repeat(self.num_segments,
                                                 1))  # [S(n+1), D]
        nn.init.ones_(self.ln_joint.weight)
        nn.init.zeros_(self.ln_joint.bias)

    def load_clip_weights(self, pretrained: Union[str, dict],
                          arch: Union[str, dict] = None) -> None:
        """Load CLIP vision weights (see ``pretrained`` in the class doc)."""
        source = pretrained if isinstance(pretrained, str) else 'state dict'
        state = vision_state_dict(load_clip_state_dict(pretrained, arch))
        if 'positional_embedding' in state:
            pos = state['positional_embedding']
            state['positional_embedding'] = interpolate_pos_embed(
                pos, grid_of(pos.shape[0]), self.grid_size)
        has_new = 'joint_positional_embedding' in state
        ids = state.get('image_id_embedding')
        if ids is not None and ids.shape[0] != self.num_segments:
            raise ValueError(
                f'{source}: image_id_embedding has {ids.shape[0]} segments, '
                f'this backbone {self.num_segments} (difference_tokens='
                f'{self.difference_tokens})')
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
                block, 'num_segments': S}``.

        Returns:
            Tensor ``[B, S(n+1), D_out]``: image 1's tokens, image 2's (and
            with ``difference_tokens`` the difference segment's; S = 3),
            each segment's CLS first; and the attention dict if asked for
            (inter maps then ``[B, heads, S(n+1), S(n+1)]``).
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
        aligned = None
        if self.aligned_difference is None:
            x = self.conv1(x)  # [2B, D, h, w]
        else:
            if isinstance(self.conv1, ConvStem):
                x, stages = self.conv1(x, return_features=True)
                features = stages[self.alignment_stage]  # [2B, C, h', w']
            else:
                x = features = self.conv1(x)  # [2B, D, h, w]
            aligned = self.aligned_difference(features[:B], features[B:],
                                              grid)  # [B, n, D]
        x = x.flatten(2).transpose(1, 2)  # [2B, n, D]
        cls = self.class_embedding.to(x.dtype).expand(2 * B, 1, -1)
        x = torch.cat([cls, x], dim=1)  # [2B, n+1, D]
        x = self.ln_pre(x + pos.to(x.dtype))
        T = x.shape[1]  # n + 1

        intra = [] if return_attentions else None
        for block in self.transformer.resblocks[:self.num_intra_layers]:
            x = self._run_block(block, x, intra)
        x = x.reshape(2, B, T, -1)  # [2, B, n+1, D]: image index first

        inter = [] if return_attentions else None
        if self.num_inter_layers > 0:
            if self.difference_tokens:
                diff = x[1] - x[0]  # [B, n+1, D]: after - before
                if aligned is not None:  # patch tokens only, not the CLS
                    diff = diff + F.pad(aligned, (0, 0, 1, 0))
                diff = diff[None]  # [1, B, n+1, D]
                x = torch.cat([x, diff])  # [3, B, n+1, D]
            S = self.num_segments
            e = self.image_id_embedding.to(x.dtype)
            x = x + e[:, None, None, :]  # e1 / e2 (/ e_diff) on every token
            x = x.transpose(0, 1).reshape(B, S * T, -1)  # [B, S(n+1), D]
            x = self.ln_joint(x + joint_pos.to(x.dtype))
            for block in self.transformer.resblocks[self.num_intra_layers:]:
                x = self._run_block(block, x, inter)
        else:
            x = x.transpose(0, 1).reshape(B, 2 * T, -1)  # [B, 2(n+1), D]

        x = self.ln_post(x) @ self.proj.to(x.dtype)  # [B, 2(n+1), D_out]
        if not return_attentions:
            return x
        intra = [a.reshape(2, B, *a.shape[1:]).transpose(0, 1)
                 for a in intra]  # each [B, 2, heads, n+1, n+1]
        return x, dict(intra=intra, inter=inter,
                       num_segments=self.num_segments)

    def pool(self, tokens: torch.Tensor) -> torch.Tensor:
        """Pair vector ``[B, D_out]``: mean of the two images' CLS tokens
        (``pool='cls'``), mean or channel-wise max of all tokens
        (``pool='mean'`` / ``'max'``)."""
        if self.pool_mode == 'mean':
            return tokens.mean(1)
        if self.pool_mode == 'max':
            return tokens.amax(1)
        num_tokens = tokens.shape[1] // self.num_segments  # n + 1
        return (tokens[:, 0] + tokens[:, num_tokens]) / 2

    def num_tokens(self, img_size: Optional[Tuple[int, int]] = None) -> int:
        """Tokens per pair, ``S(n+1)``, for an input size (default: own)."""
        grid = self.grid_size if img_size is None else (
            img_size[0] // self.patch_size[0],
            img_size[1] // self.patch_size[1])
        return self.num_segments * (grid[0] * grid[1] + 1)
