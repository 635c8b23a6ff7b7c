import numpy as np
import pytest
import torch

from mmidc.apis import IDCRetrievalInferencer, ImageInputError
from tests.helpers.tiny_models import square_pair


@pytest.fixture(scope='module')
def ranker(retriever_files):
    return IDCRetrievalInferencer(*retriever_files, device='cpu')


def test_rank_captions_and_pairs(ranker):
    before, after, _ = square_pair()
    candidates = ['the red square turned blue', 'nothing changed',
                  'a cube appeared']
    ranked = ranker.rank_captions(before, after, candidates, topk=2)
    assert len(ranked) == 2 and {r['caption'] for r in ranked} <= set(candidates)
    assert ranked[0]['score'] >= ranked[1]['score']
    # the scores are the cosine similarities of the normalised embeddings
    pair = ranker.encode_pairs([(before, after)])
    texts = ranker.encode_texts(candidates)
    assert torch.allclose(pair.norm(dim=-1), torch.ones(1), atol=1e-5)
    best = int((pair @ texts.T).argmax())
    assert ranked[0]['caption'] == candidates[best]

    pairs = [(before, after), (after, before), (before, before)]
    by_pair = ranker.rank_pairs('the red square turned blue', pairs, topk=5)
    assert sorted(r['index'] for r in by_pair) == [0, 1, 2]
    scores = [r['score'] for r in by_pair]
    assert scores == sorted(scores, reverse=True)


def test_batching_does_not_change_embeddings(ranker):
    before, after, _ = square_pair()
    pairs = [(before, after), (after, before), (before, before)]
    one_by_one = ranker.encode_pairs(pairs, batch_size=1)
    batched = ranker.encode_pairs(pairs, batch_size=3)
    assert torch.allclose(one_by_one, batched, atol=1e-5)


def test_bad_inputs(ranker, tmp_path):
    before, after, _ = square_pair()
    with pytest.raises(ValueError, match='non-empty'):
        ranker.rank_captions(before, after, [])
    with pytest.raises(ValueError, match='non-empty list of'):
        ranker.rank_pairs('a square turned blue', [])
    with pytest.raises(ValueError, match='non-empty list of'):
        ranker.encode_pairs([])
    with pytest.raises(ImageInputError, match='missing.png: no such image'):
        ranker.rank_captions(str(tmp_path / 'missing.png'), after, ['x'])
    wide = np.zeros((32, 96, 3), np.uint8)  # another shape: ranked all the same
    assert len(ranker.rank_captions(before, wide, ['x'])) == 1


@pytest.mark.parametrize('topk', [-1, 2.5, '3'])
def test_bad_topk_is_named(ranker, topk):
    before, after, _ = square_pair()
    with pytest.raises(ValueError, match=f'topk must be .*got {topk!r}'):
        ranker.rank_captions(before, after, ['x', 'y'], topk=topk)
    with pytest.raises(ValueError, match=f'topk must be .*got {topk!r}'):
        ranker.rank_pairs('x', [(before, after)], topk=topk)
    assert ranker.rank_captions(before, after, ['x', 'y'], topk=0) == []
    assert len(ranker.rank_captions(before, after, ['x', 'y'],
                                    topk=np.int64(1))) == 1
