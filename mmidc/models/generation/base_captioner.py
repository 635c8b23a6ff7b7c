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
    and :meth:`predict` sets ``pred_caption`` (str) and ``pred_score``
    (float, mean log-probability per token) on each data sample.

    Both decode with ``decode_cfg``, or with decoding options given to the
    call, which override its keys for that call only (``decode_cfg`` is not
    changed): ``strategy``, ``beam_size``, ``length_penalty``,
    ``max_length`` (:func:`check_decode_cfg`; an unknown one is a
    ``KeyError``). ``model.predict(inputs, strategy='beam', beam_size=5)``
    searches five beams once.
    """

    caption_decoder: CaptionGenerator

    def set_decode_cfg(self, decode_cfg: Optional[dict]) -> None:
        """Check and keep ``decode_cfg`` (see :func:`check_decode_cfg`)."""
        self.decode_cfg = check_decode_cfg(decode_cfg or {})

    def decoder_inputs(self, inputs: torch.Tensor) -> Tuple[torch.Tensor, dict]:
        """What ``caption_decoder`` decodes from the preprocessed ``inputs``:
        its ``memory`` and keyword arguments of its search (the decoder's
        further inputs, e.g. ``extra_tokens``, and ``logits_processors``)."""
        raise NotImplementedError(f'{type(self).__name__} must implement '
                                  'decoder_inputs')

    def generate(self, inputs: torch.Tensor,
                 **decode_options) -> CaptionDecodeOutput:
        """Decode the preprocessed ``inputs`` with ``decode_cfg``, its keys
        overridden by ``decode_options`` for this call."""
        cfg = check_decode_cfg(dict(self.decode_cfg, **decode_options))
        memory, kwargs = self.decoder_inputs(inputs)
        return generate(self.caption_decoder, memory, cfg, **kwargs)

    def predict(self, inputs: torch.Tensor,
                data_samples: Optional[list] = None,
                **decode_options) -> List:
        """Caption each pair of the preprocessed ``inputs``.

        Args:
            inputs (Tensor): the batch, as the data preprocessor returns it.
            data_samples (list, optional): the batch's data samples, which
                get the predictions; new ``DataSample``s when None.
            **decode_options: ``decode_cfg`` keys for this call only.

        Returns:
            list: the data samples with ``pred_caption`` and ``pred_score``.
        """
        out = self.generate(inputs, **decode_options)
        captions = self.caption_decoder.decode_text(out.tokens)
        if data_samples is None:
            from mmpretrain.structures import DataSample
            data_samples = [DataSample() for _ in captions]
        for ds, caption, score in zip(data_samples, captions,
                                      out.mean_logprob.tolist()):
            ds.set_field(caption, 'pred_caption')
            ds.set_field(float(score), 'pred_score')
        return data_samples

    @torch.no_grad()
    def score_captions(self, inputs: torch.Tensor,
                       text_tokens: torch.Tensor) -> torch.Tensor:
        """Teacher-forced log-probabilities of given captions.

        The decoder reads each caption's tokens in turn (with its key/value
        cache, as the search does) and gives the log-probability of the
        next one, under the distribution the search picks from (its
        ``logits_processors`` applied; padding, start and unknown tokens
        never generated).

        Args:
            inputs (Tensor): the batch, as the data preprocessor returns it.
            text_tokens (Tensor): CLIP ids ``[B, L]``, ``<sot> ... <eot> 0``,
                ``L`` at most the decoder's ``max_length``.

        Returns:
            Tensor: ``[B, L-1]`` the log-probability of token ``t + 1``
            given the pair and tokens ``0..t``; 0 after the end.
        """
        decoder = self.caption_decoder
        memory, kwargs = self.decoder_inputs(inputs)
        processors = kwargs.pop('logits_processors', ())
        targets = decoder.vocab.to_compact(text_tokens)  # [B, L]
        tokens, context, caches = decoder.start_decoding(memory, 1, True, **kwargs)
        scores = []
        for t in range(1, targets.shape[1]):
            log_probs = decoder._log_probs(  # [B, V]
                decoder.next_logits(tokens, context, caches), tokens, processors)
            scores.append(log_probs.gather(1, targets[:, t:t + 1])[:, 0])
            tokens = torch.cat([tokens, targets[:, t:t + 1]], dim=1)
        scores = torch.stack(scores, dim=1)  # [B, L-1]
        return scores.masked_fill(text_tokens[:, 1:] == 0, 0.0)
