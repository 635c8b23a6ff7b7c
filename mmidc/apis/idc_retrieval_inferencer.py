"""Rank captions for a pair and pairs for a caption (adaptation-stage model)."""
from numbers import Integral
from typing import Dict, List, Optional, Sequence

import torch
import torch.nn.functional as F
from torch import Tensor

from mmidc.text import clip_tokenizer
from .base_pair_inferencer import BasePairInferencer, Pair
from .image_loading import ImageInput
from .pair_pipeline import context_length_of


class IDCRetrievalInferencer(BasePairInferencer):
    """Pair <-> caption retrieval with a ``CLIP4IDCRetriever``.

    Uses the adaptation-stage model (config and checkpoint of the
    contrastive stage): its pair embedding (mean of the two CLS tokens) and
    its CLIP text encoder, both L2-normalised; scores are cosine
    similarities. The captioning-stage model has no text encoder, so it
    cannot rank captions.

    Examples:
        >>> ranker = IDCRetrievalInferencer('retriever.py', 'retriever.pth')
        >>> ranker.rank_captions('before.png', 'after.png',
        ...                      ['the red cube is gone', 'nothing changed'])
        [{'caption': 'the red cube is gone', 'score': 0.41}, ...]
        >>> ranker.rank_pairs('a cylinder appeared', [('a1.png', 'a2.png'),
        ...                                           ('b1.png', 'b2.png')])
        [{'index': 1, 'score': 0.37}, {'index': 0, 'score': 0.12}]

    Args:
        *args, **kwargs: those of :class:`BasePairInferencer` (``config``,
            ``checkpoint``, ``device``, ``max_pixels``, ...).
        context_length (int, optional): tokens per caption (a keyword).
            Defaults to the config's ``TokenizeCaptions.context_length``
            (else 32).
    """

    def __init__(self, *args, context_length: Optional[int] = None,
                 **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if not hasattr(self.model, 'text_encoder'):
            raise TypeError(
                f'{type(self.model).__name__} has no text encoder: retrieval '
                f'needs the adaptation-stage model (CLIP4IDCRetriever) config '
                f'and checkpoint')
        self.context_length = context_length or context_length_of(self.config)
        self._cached_texts: Optional[tuple] = None
        self._cached_embeddings: Optional[Tensor] = None

    def _predict(self, data: dict) -> List:
        """Data samples with the L2-normalised ``pair_embedding`` ``[D]``
        (on CPU)."""
        pairs, _ = self.model(data['inputs'], mode='tensor')  # [b, D]
        for sample, pair in zip(data['data_samples'], pairs.float().cpu()):
            sample.set_field(pair, 'pair_embedding')
        return data['data_samples']

    def to_result(self, data_sample) -> Dict:
        """``{'embedding': Tensor [D]}`` of a data sample."""
        return {'embedding': data_sample.pair_embedding}

    def encode_pairs(self, pairs: Sequence[Pair], batch_size: int = 8) -> Tensor:
        """L2-normalised pair embeddings ``[P, D]`` (on CPU); ``ValueError``
        for an empty list."""
        pairs = list(pairs)
        if not pairs:
            raise ValueError('give a non-empty list of (before, after) pairs')
        results = self._results(pairs, batch_size, workers=0)
        return torch.stack([r['embedding'] for r in results])

    @torch.no_grad()
    def encode_texts(self, sentences: Sequence[str], batch_size: int = 256) -> Tensor:
        """L2-normalised caption embeddings ``[S, D]`` (on CPU)."""
        if not sentences or not all(isinstance(s, str) and s.strip()
                                    for s in sentences):
            raise ValueError('give a non-empty list of non-empty sentences')
        if tuple(sentences) == self._cached_texts:
            return self._cached_embeddings
        tokens = clip_tokenizer()(list(sentences), self.context_length)  # [S, L]
        chunks = [self.model.text_encoder(chunk.to(self.device)).float().cpu()
                  for chunk in tokens.split(batch_size)]
        embeddings = F.normalize(torch.cat(chunks), dim=-1)  # [S, D]
        self._cached_texts, self._cached_embeddings = tuple(sentences), embeddings
        return embeddings

    @staticmethod
    def _check_topk(topk: int) -> None:
        """``ValueError`` naming ``topk`` unless it is a whole number >= 0."""
        if isinstance(topk, bool) or not isinstance(topk, Integral) \
                or topk < 0:
            raise ValueError(f'topk must be a whole number >= 0 (the number '
                             f'of results), got {topk!r}')

    def rank_captions(self, img1: ImageInput, img2: ImageInput,
                      candidates: Sequence[str], topk: int = 5) -> List[Dict]:
        """The ``topk`` candidate captions for a pair, best first.

        Returns:
            list[dict]: ``{'caption': str, 'score': float (cosine)}``.

        Raises:
            ValueError: ``topk`` is not a whole number >= 0.
        """
        self._check_topk(topk)
        pair = self.encode_pairs([(img1, img2)])  # [1, D]
        scores = (pair @ self.encode_texts(candidates).T)[0]  # [S]
        top = scores.topk(min(topk, len(candidates)))
        return [{'caption': candidates[i], 'score': float(s)}
                for s, i in zip(top.values, top.indices)]

    def rank_pairs(self, sentence: str, pairs: Sequence[Pair], topk: int = 5,
                   batch_size: int = 8) -> List[Dict]:
        """The ``topk`` pairs for a sentence, best first.

        Returns:
            list[dict]: ``{'index': int (position in pairs), 'score': float}``.

        Raises:
            ValueError: ``topk`` is not a whole number >= 0.
        """
        self._check_topk(topk)
        text = self.encode_texts([sentence])  # [1, D]
        scores = (self.encode_pairs(pairs, batch_size) @ text.T)[:, 0]  # [P]
        top = scores.topk(min(topk, len(pairs)))
        return [{'index': int(i), 'score': float(s)}
                for s, i in zip(top.values, top.indices)]

    def __call__(self, img1: ImageInput, img2: ImageInput,
                 candidates: Sequence[str], topk: int = 5) -> List[Dict]:
        """Same as :meth:`rank_captions`."""
        return self.rank_captions(img1, img2, candidates, topk)
