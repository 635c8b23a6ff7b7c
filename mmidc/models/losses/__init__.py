"""Objectives as loss modules: IDC-PCL's masked language modelling, masked
visual contrastive learning, fine-grained difference aligning and
distractor judging."""
from .masked_lm_loss import *  # noqa: F401,F403
from .masked_visual_contrastive_loss import *  # noqa: F401,F403
from .difference_alignment_loss import *  # noqa: F401,F403
from .distractor_judging_loss import *  # noqa: F401,F403
from .class_margin_contrastive_loss import *  # noqa: F401,F403
