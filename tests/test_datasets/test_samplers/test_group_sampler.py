"""GroupSampler: groups shuffled per seed and epoch, split across ranks
(round_up repeats groups), each group's indices yielded together."""
from mmidc.datasets.samplers import GroupSampler, group_sampler

GROUPS = [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]]


class FixedGroups(GroupSampler):

    def build_groups(self, dataset):
        return [list(g) for g in dataset]


def _sampler(monkeypatch, rank=0, world_size=1, **kwargs):
    monkeypatch.setattr(group_sampler, 'get_dist_info',
                        lambda: (rank, world_size))
    return FixedGroups(GROUPS, seed=0, **kwargs)


def test_groups_stay_whole_and_shuffle_per_epoch(monkeypatch):
    assert list(_sampler(monkeypatch, shuffle=False)) == list(range(10))
    sampler = _sampler(monkeypatch)
    first = list(sampler)
    assert sorted(first) == list(range(10)) and len(sampler) == 10
    assert all(first[i] // 2 == first[i + 1] // 2 for i in range(0, 10, 2))
    assert list(_sampler(monkeypatch)) == first  # same seed, same order
    orders = {tuple(first)}
    for epoch in range(1, 4):
        sampler.set_epoch(epoch)
        orders.add(tuple(sampler))
    assert len(orders) > 1


def test_ranks_split_the_groups(monkeypatch):
    ranks = [list(_sampler(monkeypatch, rank, 2, shuffle=False)) for rank in range(2)]
    assert ranks == [[0, 1, 4, 5, 8, 9], [2, 3, 6, 7, 0, 1]]  # 5 groups: one repeated
    exact = [list(_sampler(monkeypatch, rank, 2, shuffle=False, round_up=False))
             for rank in range(2)]
    assert exact == [[0, 1, 4, 5, 8, 9], [2, 3, 6, 7]]
    assert len(_sampler(monkeypatch, 1, 2, round_up=False)) == 4
    assert not list(FixedGroups([], seed=0))
