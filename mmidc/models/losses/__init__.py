"""Objectives as loss modules: CLIP4IDC's pair-caption contrastive and
captioning losses; IDC-PCL's masked language modelling, masked visual
contrastive learning, fine-grained difference aligning and distractor
judging."""
from .masked_lm_loss import *  # noqa: F401,F403
from .masked_visual_contrastive_loss import *  # noqa: F401,F403
from .predicted_negative_visual_contrastive_loss import *  # noqa: F401,F403
from .difference_alignment_loss import *  # noqa: F401,F403
from .split_batch_difference_alignment_loss import *  # noqa: F401,F403
from .distractor_judging_loss import *  # noqa: F401,F403
from .class_margin_contrastive_loss import *  # noqa: F401,F403
from .symmetric_info_nce_loss import *  # noqa: F401,F403
from .multi_positive_info_nce_loss import *  # noqa: F401,F403
from .caption_cross_entropy_loss import *  # noqa: F401,F403
from .paired_scene_cross_entropy_loss import *  # noqa: F401,F403
