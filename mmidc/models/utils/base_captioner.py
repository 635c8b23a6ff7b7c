"""What every captioner shares: its decoding options and ``predict``."""
from typing import List, Optional, Tuple

import torch

from .generation import (CaptionDecodeOutput, CaptionGenerator, check_decode_cfg,
                         generate)

__all__ = ['BaseCaptioner']


class BaseCaptioner:
    """The captioners' common part (a mixin beside MMEngine's ``BaseModel``).

    A captioner sets ``decode_cfg`` with :meth:`set_decode_cfg` and provides
    ``caption_decoder`` (its :class:`CaptionGenerator`) and
    :meth:`decoder_inputs`; :meth:`generate` decodes a preprocessed batch
    with ``decode_cfg`` and :meth:`predict` sets ``pred_caption`` (str) and
    ``pred_score`` (float, mean log-probability per token) on each data
    sample.
    """

    caption_decoder: CaptionGenerator

    def set_decode_cfg(self, decode_cfg: Optional[dict]) -> None:
        """Check and keep ``decode_cfg`` (see :func:`check_decode_cfg`)."""
        self.decode_cfg = check_decode_cfg(decode_cfg or {})

    def decoder_inputs(self, inputs: torch.Tensor) -> Tuple[torch.Tensor, dict]:
        """What ``caption_decoder`` decodes from the preprocessed ``inputs``:
        its ``memory`` and keyword arguments (e.g. ``extra_tokens``)."""
        raise NotImplementedError(f'{type(self).__name__} must implement '
                                  'decoder_inputs')

    def generate(self, inputs: torch.Tensor) -> CaptionDecodeOutput:
        """Decode the preprocessed ``inputs`` with ``decode_cfg``."""
        memory, kwargs = self.decoder_inputs(inputs)
        return generate(self.caption_decoder, memory, self.decode_cfg, **kwargs)

    def predict(self, inputs: torch.Tensor,
                data_samples: Optional[list] = None) -> List:
        """Caption each pair of ``inputs``; new ``DataSample``s when
        ``data_samples`` is None."""
        out = self.generate(inputs)
        captions = self.caption_decoder.decode_text(out.tokens)
        if data_samples is None:
            from mmpretrain.structures import DataSample
            data_samples = [DataSample() for _ in captions]
        for ds, caption, score in zip(data_samples, captions,
                                      out.mean_logprob.tolist()):
            ds.set_field(caption, 'pred_caption')
            ds.set_field(float(score), 'pred_score')
        return data_samples
