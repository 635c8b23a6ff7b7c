import numpy as np
import pytest
import torch

from mmidc.evaluation import RetrievalMetric
from mmidc.registry import METRICS


def make_samples(num_pairs=60, dim=16, shared=True, seed=0):
    """Random L2-normalised embeddings; with ``shared`` some sentences are
    used by several pairs (and then have one embedding, as an encoder would
    give them)."""
    rng = np.random.default_rng(seed)
    common = [f'common sentence {i}' for i in range(4)]
    common_emb = {c: rng.normal(size=dim) for c in common}
    samples = []
    for i in range(num_pairs):
        caps = [f'pair {i} caption {k}' for k in range(rng.integers(1, 5))]
        if shared and i % 3 == 0:
            caps.append(common[i % len(common)])
        emb = np.stack([common_emb.get(c, rng.normal(size=dim)) for c in caps])
        emb /= np.linalg.norm(emb, axis=1, keepdims=True)
        pair = rng.normal(size=dim)
        samples.append(
            dict(pair_id=f'{i:06d}.png',
                 pair_embedding=torch.tensor(pair / np.linalg.norm(pair),
                                             dtype=torch.float32),
                 text_embeddings=torch.tensor(emb, dtype=torch.float32),
                 gt_captions=caps))
    return samples


def brute_force(samples):
    """Full similarity matrix and argsort, one query per caption."""
    gallery, emb = [], []
    for s in samples:
        for cap, vec in zip(s['gt_captions'], s['text_embeddings'].numpy()):
            if cap not in gallery:
                gallery.append(cap)
                emb.append(vec)
    pairs = np.stack([s['pair_embedding'].numpy() for s in samples])
    sim = pairs.astype(np.float64) @ np.stack(emb).astype(np.float64).T
    p2t = []
    for i, s in enumerate(samples):
        order = list(np.argsort(-sim[i]))
        p2t.append(1 + min(order.index(gallery.index(c))
                           for c in s['gt_captions']))
    t2p = []
    for s in samples:
        for cap in s['gt_captions']:
            j = gallery.index(cap)
            order = list(np.argsort(-sim[:, j]))
            positives = [i for i, o in enumerate(samples)
                         if cap in o['gt_captions']]
            t2p.append(1 + min(order.index(i) for i in positives))
    out = {}
    for name, ranks in (('p2t', np.array(p2t)), ('t2p', np.array(t2p))):
        for k in (1, 5, 10):
            out[f'{name}/R@{k}'] = 100 * np.mean(ranks <= k)
        out[f'{name}/MdR'] = np.median(ranks)
        out[f'{name}/MnR'] = np.mean(ranks)
    out['rsum'] = sum(out[f'{d}/R@{k}'] for d in ('p2t', 't2p')
                      for k in (1, 5, 10))
    return out


def run_metric(samples, **kwargs):
    metric = METRICS.build(dict(type='RetrievalMetric', **kwargs))
    metric.process(None, samples)
    return metric.compute_metrics(metric.results)


@pytest.mark.parametrize('shared', [False, True])
def test_matches_brute_force(shared):
    samples = make_samples(shared=shared)
    result = run_metric(samples)
    expected = brute_force(samples)
    assert set(result) == set(expected)
    for key, value in expected.items():
        assert result[key] == pytest.approx(value, abs=1e-9), key


def test_small_chunks_identical():
    samples = make_samples(num_pairs=50)
    assert run_metric(samples, chunk_size=7) == run_metric(samples,
                                                           chunk_size=1024)


def test_shared_caption_is_never_a_miss():
    # Two pairs with the same embedding and the same sentence: both are
    # correct for it, so every query ranks first.
    vec = torch.nn.functional.normalize(torch.randn(8), dim=0)
    samples = [
        dict(pair_id=str(i), pair_embedding=vec, text_embeddings=vec[None],
             gt_captions=['there is no change']) for i in range(2)
    ]
    result = run_metric(samples)
    assert result['p2t/R@1'] == 100 and result['t2p/R@1'] == 100
    assert result['p2t/MdR'] == 1 and result['t2p/MnR'] == 1


def _ddp_evaluate(rank, world, port, samples, out):
    """One rank: its DefaultSampler shard (padded), then evaluate()."""
    import os

    import torch.distributed as dist
    from mmengine.dataset import DefaultSampler
    torch.set_num_threads(1)  # a forked child must not use the parent's pool
    os.environ.update(MASTER_ADDR='127.0.0.1', MASTER_PORT=str(port))
    dist.init_process_group('gloo', rank=rank, world_size=world)
    try:
        sampler = DefaultSampler(samples, shuffle=False)
        metric = RetrievalMetric()
        metric.process(None, [samples[i] for i in sampler])
        result = metric.evaluate(size=len(samples))
        if rank == 0:
            torch.save(result, out)
    finally:
        dist.destroy_process_group()


def test_two_ranks_gather_in_order_and_drop_the_padding(tmp_path):
    """7 pairs on 2 ranks: the sampler pads to 8 (rank 1 repeats pair 0);
    MMEngine's evaluate gathers both shards and scores exactly the 7 pairs
    (a repeated positive would change the ranks), as one process does."""
    import torch.multiprocessing as mp

    from tests.helpers import free_port
    samples = make_samples(num_pairs=7)
    out = tmp_path / 'rank0.pt'
    # fork: the ranks need no fresh interpreter (and import nothing again)
    mp.start_processes(_ddp_evaluate, args=(2, free_port(), samples, str(out)),
                       nprocs=2, join=True, start_method='fork')
    expected = brute_force(samples)
    result = torch.load(out, weights_only=True)
    assert result == pytest.approx(expected)
    # scoring the padded 8 would have given other numbers
    assert run_metric(samples + samples[:1]) != pytest.approx(expected)


def test_bad_input():
    with pytest.raises(ValueError, match='chunk_size'):
        RetrievalMetric(chunk_size=0)
    metric = RetrievalMetric()
    with pytest.raises(KeyError, match='pair_embedding'):
        metric.process(None, [dict(pair_id='a', gt_captions=['x'])])
    sample = make_samples(num_pairs=1)[0]
    sample['gt_captions'] = sample['gt_captions'] + ['extra']
    metric.process(None, [sample])
    with pytest.raises(ValueError, match='text_embeddings'):
        metric.compute_metrics(metric.results)


# MMPretrain 1.2 passes copy=False to np.array for every row (thousands of
# NumPy 2 deprecation warnings that say nothing about mmidc).
@pytest.mark.filterwarnings('ignore::DeprecationWarning')
@pytest.mark.parametrize('shared', [False, True])
def test_recall_equals_mmpretrain_retrieval_recall(monkeypatch, shared):
    """R@K of both directions as MMPretrain's RetrievalRecall computes it
    from the full similarity matrix and a one-hot target."""
    from mmpretrain.evaluation import RetrievalRecall
    if not hasattr(np, 'in1d'):  # mmpretrain 1.2.0 on NumPy >= 2.4
        monkeypatch.setattr(np, 'in1d', np.isin, raising=False)
    samples = make_samples(num_pairs=80, shared=shared)
    ours = run_metric(samples, chunk_size=7)
    gallery = {}
    for s in samples:
        for cap, vec in zip(s['gt_captions'], s['text_embeddings']):
            gallery.setdefault(cap, vec)
    captions = list(gallery)
    sim = torch.stack([s['pair_embedding'] for s in samples]) @ torch.stack(
        list(gallery.values())).t()
    target = torch.tensor([[int(c in s['gt_captions']) for c in captions]
                           for s in samples])
    # text->pair: one query per reference caption (repeats included)
    queries = [captions.index(c) for s in samples for c in s['gt_captions']]
    for name, scores, positives in (('p2t', sim, target),
                                    ('t2p', sim.t()[queries],
                                     target.t()[queries])):
        theirs = RetrievalRecall.calculate(scores, positives,
                                           topk=(1, 5, 10))
        for k, value in zip((1, 5, 10), theirs):
            assert ours[f'{name}/R@{k}'] == pytest.approx(float(value),
                                                          abs=1e-4)
