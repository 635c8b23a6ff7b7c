"""Convert a checkpoint of the from-scratch options to the components.

In earlier versions of mmidc the from-scratch options were arguments of
``CLIP4IDCBackbone`` (``conv_stem``, ``difference_tokens``,
``aligned_difference``, ``pool``) and ``ScratchCaptionHead``
(``pooled_memory_tokens``, ``change_tokens``, ``word_loss_weight``,
``word_prior``). They are now components that a config composes
(``ConvStem``, ``DifferenceSegment``, ``PairPooling``, ``ChangeSummaryNeck``,
``BagOfWordsHead``, see projects/from_scratch/). The weights are the same;
only some names moved::

    python projects/from_scratch/tools/mmidc_flags_to_components.py \\
        OLD.pth NEW.pth

``NEW.pth`` loads into the model of the matching config of
projects/from_scratch/configs/ (``tools/test.py CONFIG NEW.pth``) and gives
the same outputs. Optimizer and scheduler states are not carried over.

A new run from the same seed does not start from the earlier versions'
initial weights: the components draw them in another order (module by module
instead of inside the caption head), and ``ChangeSummaryNeck`` keeps PyTorch's default
initialisation of its change scorer (the earlier versions drew it from
N(0, 0.02)).
"""
import argparse
import re
from typing import Dict

import torch

from mmidc.utils.checkpoint_io import read_checkpoint

# (regex on the old name, replacement): one row per moved tensor.
RENAMES = (
    (r'^backbone\.aligned_difference\.', 'backbone.extra_segments.0.aligned.'),
    (r'^head\.change_score\.', 'neck.change_score.'),
    (r'^head\.word_classifier\.', 'aux_head.fc.'),
    (r'^head\.word_prior_scale$', 'aux_head.prior_scale'),
)
# The caption head's extra-token embeddings: the pooled tokens' rows, then
# the change readouts' rows (the order the old head appended them in).
MERGED = ('head.extra_embed', ('head.pooled_embed', 'head.change_embed'))


def convert_state_dict(
        state: Dict[str, torch.Tensor]) -> Dict[str, torch.Tensor]:
    """Rename an old state dict's keys (:data:`RENAMES`, :data:`MERGED`)."""
    out = {}
    for key, value in state.items():
        if key in MERGED[1]:
            continue
        for pattern, repl in RENAMES:
            key = re.sub(pattern, repl, key)
        out[key] = value
    parts = [state[k] for k in MERGED[1] if k in state]
    if parts:
        out[MERGED[0]] = torch.cat(parts)  # [S + 2K, H]
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('src', help='checkpoint written by an earlier mmidc (flag options)')
    parser.add_argument('dst', help='where to write the converted checkpoint')
    args = parser.parse_args(argv)
    state, meta = read_checkpoint(args.src)
    state = convert_state_dict(state)
    torch.save(dict(state_dict=state, meta=meta), args.dst)
    print(f'{args.src} -> {args.dst}: {len(state)} tensors')


if __name__ == '__main__':
    main()
