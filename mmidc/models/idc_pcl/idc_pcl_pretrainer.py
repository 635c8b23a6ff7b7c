"""IDC-PCL pre-training: MLM, MVCL and FDA on image pairs and captions."""
import random
from functools import lru_cache
from typing import Dict, List, Optional

import torch
from mmengine.logging import MessageHub
from torch import nn

from mmidc.registry import MODELS
from mmidc.text import clip_tokenizer
from ..data_preprocessors.caption_tokens import stack_text_tokens
from .idc_pcl_base import IDCPCLBase
from .masking import mask_caption_tokens, mask_one_image

__all__ = ['IDCPCLPretrainer']

TASKS = ('mlm', 'mvcl', 'fda')


@lru_cache(maxsize=65536)
def caption_tokens(caption: str, length: int) -> torch.Tensor:
    """CLIP ids ``[length]`` of one caption, cached: a training set's hard
    negatives are tokenised once, not at every step."""
    return clip_tokenizer()(caption, length)[0]


@MODELS.register_module()
class IDCPCLPretrainer(IDCPCLBase):
    """IDC-PCL's pre-training stage: one self-supervised task per step,
    drawn with ``task_weights``, all with the bidirectional mask.

    - ``mlm``: ``mlm_mask_prob`` of the caption tokens (``[EOS]`` included)
      are masked (BERT's 80/10/10) and predicted from the rest and both
      images (``mlm_loss``); ``loss_mlm``, ``mlm_accuracy``.
    - ``mvcl``: in each pair one image has ``mvcl_mask_prob`` of its feature
      positions zeroed before the token embedding; ``mvcl_head`` maps the
      outputs there to the feature space, where ``mvcl_loss`` matches them
      with their original features (targets only) against the negatives it
      chooses; ``loss_mvcl``, ``mvcl_accuracy`` (share of masked positions
      whose own original scores highest).
    - ``fda``: a pair is read with its own caption and the ``K``
      ``negative_captions`` of its data sample (``SampleHardNegatives``);
      ``fda_loss`` compares the pair vector (mean of the ``[IMG1]``,
      ``[IMG2]`` outputs) and the ``[CLS]`` output of each reading and
      chooses how many of the batch's pairs are read; ``loss_fda``,
      ``fda_accuracy``.

    The task of a step depends only on ``task_seed`` and the iteration:
    every process of a distributed run draws the same one.

    Args:
        task_weights (dict): Relative frequency of ``mlm``, ``mvcl`` and
            ``fda``; a task left out or at 0 is never drawn. Defaults to
            ``dict(mlm=8, mvcl=1, fda=2)``.
        mlm_mask_prob (float): Share of caption tokens masked. Defaults to
            0.15.
        mvcl_mask_prob (float): Share of one image's feature positions
            masked. Defaults to 0.15.
        mvcl_head (dict, optional): A registered regressor of the masked
            outputs (``hidden`` and ``feature_dim`` filled in), e.g.
            ``dict(type='FeatureRegressionHead', tied=True)``. Defaults to
            ``Linear, GELU, LayerNorm, Linear``.
        mlm_loss (dict): Defaults to ``MaskedLMLoss``.
        mvcl_loss (dict): Defaults to ``MaskedVisualContrastiveLoss``
            (``tau1 = 1``, the original features at the unmasked positions
            as negatives); the published code's is
            ``PredictedNegativeVisualContrastiveLoss``.
        fda_loss (dict): Defaults to ``DifferenceAlignmentLoss``
            (``tau2 = 1``, every pair of the batch read); the published
            code's is ``SplitBatchDifferenceAlignmentLoss``.
        task_seed (int): Seed of the task draw. Defaults to 0.
        **trunk: :class:`IDCPCLBase`'s arguments (``feature_encoder``,
            ``cross_modal``, ``hidden``, ... ``init_cfg``).
    """

    def __init__(self,
                 task_weights: Optional[dict] = None,
                 mlm_mask_prob: float = 0.15,
                 mvcl_mask_prob: float = 0.15,
                 mvcl_head: Optional[dict] = None,
                 mlm_loss: Optional[dict] = None,
                 mvcl_loss: Optional[dict] = None,
                 fda_loss: Optional[dict] = None,
                 task_seed: int = 0,
                 **trunk):
        super().__init__(**trunk)
        task_weights = dict(mlm=8, mvcl=1, fda=2) if task_weights is None \
            else dict(task_weights)
        unknown = set(task_weights) - set(TASKS)
        if unknown:
            raise KeyError(f'task_weights: unknown tasks {sorted(unknown)}; '
                           f'expected some of {TASKS}')
        if any(w < 0 for w in task_weights.values()) or \
                sum(task_weights.values()) <= 0:
            raise ValueError(f'task_weights must be >= 0 with a positive sum, '
                             f'got {task_weights}')
        self.tasks = [t for t in TASKS if task_weights.get(t, 0) > 0]
        self.task_weights = [task_weights[t] for t in self.tasks]
        self.task_seed = task_seed
        self._steps = 0
        self.mlm_mask_prob = mlm_mask_prob
        self.mvcl_mask_prob = mvcl_mask_prob
        self.mlm_loss = MODELS.build(mlm_loss or dict(type='MaskedLMLoss'))
        self.mvcl_loss = MODELS.build(
            mvcl_loss or dict(type='MaskedVisualContrastiveLoss'))
        self.fda_loss = MODELS.build(fda_loss or dict(type='DifferenceAlignmentLoss'))
        feature_dim = self.feature_encoder.feature_dim
        # output at a masked position -> the feature space
        if mvcl_head is None:
            self.mvcl_head = nn.Sequential(
                nn.Linear(self.hidden, self.hidden), nn.GELU(),
                nn.LayerNorm(self.hidden), nn.Linear(self.hidden, feature_dim))
        else:
            head = dict(mvcl_head, hidden=self.hidden, feature_dim=feature_dim)
            if head.get('tied'):
                head['projection'] = self.token_embedding.proj
            self.mvcl_head = MODELS.build(head)

    # ------------------------------------------------------------- the tasks
    def next_task(self) -> str:
        """The task of this step: a draw seeded by ``task_seed`` and the
        runner's iteration (an internal step count outside a runner)."""
        hub = MessageHub.get_current_instance()
        step = hub.get_info('iter') if 'iter' in hub.runtime_info else self._steps
        self._steps += 1
        if len(self.tasks) == 1:
            return self.tasks[0]
        rng = random.Random(self.task_seed * 1_000_003 + int(step))
        return rng.choices(self.tasks, weights=self.task_weights)[0]

    def forward(self, inputs: torch.Tensor, data_samples: Optional[list] = None,
                mode: str = 'tensor'):
        if mode == 'loss':
            return self.loss(inputs, data_samples)
        if mode == 'tensor':
            return self.visual_tokens(self.extract_feat(inputs))
        raise ValueError(f'mode={mode!r}: the pre-trainer has loss and tensor '
                         'modes (caption with IDCPCLCaptioner)')

    def loss(self, inputs: torch.Tensor, data_samples: list,
             task: Optional[str] = None) -> Dict[str, torch.Tensor]:
        """The loss of one task (``task``, default :meth:`next_task`)."""
        task = task or self.next_task()
        if task not in TASKS:
            raise ValueError(f'unknown task {task!r}; expected one of {TASKS}')
        features = self.extract_feat(inputs)  # [B, 2, N, C]
        tokens = stack_text_tokens(data_samples, inputs.device)  # [B, L]
        return getattr(self, f'{task}_loss_of')(features, tokens, data_samples)

    def mlm_loss_of(self, features, tokens, data_samples=None) -> Dict:
        cm = self.cross_modal
        ids, valid = cm.caption_ids(tokens)  # [B, L] each
        maskable = valid.clone()
        maskable[:, 0] = False  # never [BOS]
        masked, targets = mask_caption_tokens(
            ids, maskable, self.mlm_mask_prob, cm.mask_id,
            (2, cm.num_words))  # random words: not pad (0) or unk (1)
        visual = self.visual_tokens(features)  # [B, Tv, H]
        hidden = cm(visual, masked, valid, 'bidirectional', with_cls=True)
        text = hidden[:, visual.shape[1] + 1:]  # [B, L, H], after [CLS]
        chosen = targets != -100  # [B, L]
        logits = cm.word_logits(text[chosen])  # [M, V]
        loss = self.mlm_loss(logits, targets[chosen])
        accuracy = (logits.argmax(-1) == targets[chosen]).float().mean()
        return dict(loss_mlm=loss, mlm_accuracy=accuracy.detach())

    def mvcl_loss_of(self, features, tokens, data_samples=None) -> Dict:
        cm = self.cross_modal
        B, _, N, _ = features.shape
        mask = mask_one_image(B, N, self.mvcl_mask_prob,
                              device=features.device)  # [B, 2, N]
        visual = self.visual_tokens(features, mask)  # [B, Tv, H]
        ids, valid = cm.caption_ids(tokens)
        hidden = cm(visual, ids, valid, 'bidirectional', with_cls=True)
        # [B, Tv, H] -> [B, 2, N+1, H] -> patches [B, 2, N, H]
        patches = hidden[:, :visual.shape[1]].view(B, 2, N + 1, -1)[:, :, 1:]

        def regress(where):  # the predictions at the chosen positions
            return self.mvcl_head(patches[where])

        predictions = regress(mask)  # [M, C]
        originals = features.detach()
        negatives = self.mvcl_loss.negatives(originals, mask, regress)  # [U, C]
        negative_mask = self.mvcl_loss.negative_mask(mask)  # [M, U] or None
        loss = self.mvcl_loss(predictions, originals[mask], negatives,
                              negative_mask)
        with torch.no_grad():
            p = torch.nn.functional.normalize(predictions.float(), dim=-1)
            c = torch.nn.functional.normalize(
                torch.cat([originals[mask], negatives]).float(), dim=-1)
            scores = p @ c.t()  # [M, M+U]
            if negative_mask is not None:
                scores[:, p.shape[0]:].masked_fill_(negative_mask, float('-inf'))
            accuracy = (scores.argmax(-1) == torch.arange(
                p.shape[0], device=p.device)).float().mean()
        return dict(loss_mvcl=loss, mvcl_accuracy=accuracy)

    def negative_tokens(self, data_samples: List, length: int, device) -> torch.Tensor:
        """Each sample's ``negative_captions`` (K strings) -> ``[B, K, L]``."""
        rows = []
        for ds in data_samples:
            negatives = ds.get('negative_captions')
            if not negatives:
                raise KeyError('the fda task needs negative_captions on every '
                               'data sample: put SampleHardNegatives after '
                               'TokenizeCaptions in the pipeline (and '
                               "'negative_captions' in PackIDCInputs' meta_keys)")
            rows.append(torch.stack([caption_tokens(c, length) for c in negatives]))
        if len({r.shape[0] for r in rows}) != 1:
            raise ValueError('every sample needs the same number of '
                             'negative_captions')
        return torch.stack(rows).to(device)  # [B, K, L]

    def fda_loss_of(self, features, tokens, data_samples) -> Dict:
        cm = self.cross_modal
        negatives = self.negative_tokens(data_samples, tokens.shape[1],
                                         tokens.device)  # [B, K, L]
        keep = self.fda_loss.num_pairs(*negatives.shape[:2])  # the first ones
        features, tokens, negatives = (features[:keep], tokens[:keep],
                                       negatives[:keep])
        candidates = torch.cat([tokens[:, None], negatives], 1)  # [B, 1+K, L]
        B, K1, _ = candidates.shape
        ids, valid = cm.caption_ids(candidates.flatten(0, 1))  # [B(1+K), L']
        visual = self.visual_tokens(features)  # [B, Tv, H]
        visual = visual.repeat_interleave(K1, dim=0)  # [B(1+K), Tv, H]
        hidden = cm(visual, ids, valid, 'bidirectional', with_cls=True)
        img1, img2 = self.image_token_outputs(hidden)  # [B(1+K), H] each
        pair = ((img1 + img2) / 2).view(B, K1, -1)  # [B, 1+K, H]
        text = hidden[:, visual.shape[1]].view(B, K1, -1)  # [CLS]: [B, 1+K, H]
        loss = self.fda_loss(pair, text)
        with torch.no_grad():
            sims = torch.cosine_similarity(pair, text, dim=-1)  # [B, 1+K]
            accuracy = (sims.argmax(-1) == 0).float().mean()
        return dict(loss_fda=loss, fda_accuracy=accuracy)
