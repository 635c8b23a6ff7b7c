"""What the captioners read from a training batch's data samples besides
the images: each sample's caption tokens."""
from typing import Optional

import torch

__all__ = ['stack_text_tokens']


def stack_text_tokens(data_samples: Optional[list], device) -> torch.Tensor:
    """Each sample's ``text_tokens`` ``[L]`` (one caption) -> ``[B, L]`` on
    ``device``.

    Raises:
        KeyError: a sample without ``text_tokens`` (or no samples).
        ValueError: a sample with several captions (``[K, L]``).
    """
    if not data_samples or not all('text_tokens' in ds for ds in data_samples):
        raise KeyError('every data sample needs text_tokens [L] '
                       '(TokenizeCaptions in the pipeline)')
    tokens = [ds.text_tokens for ds in data_samples]
    if any(t.ndim != 1 for t in tokens):
        raise ValueError('the loss and tensor modes take one caption per '
                         'sample: text_tokens must be [L]')
    return torch.stack(tokens).to(device)  # [B, L]
