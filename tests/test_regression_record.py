"""tests/helpers/regression_record.py (python -m tests.helpers.regression_record): the same seed records the same outputs
bitwise; a changed model is reported, tensor by tensor."""
import torch

import pytest

from tests.helpers import regression_record as rr

FAMILIES = ['clip4idc_paper_captioner', 'idc_pcl_captioner']


def test_records_twice_equal_and_round_trips(tmp_path):
    first = rr.record(0, FAMILIES)
    second = rr.record(0, FAMILIES)
    report = rr.compare(first, second)
    assert report and all(v == 'equal' for _, v in report)
    tensors, captions = first
    # losses, tensor mode, greedy and beam (cache on/off, early stops), captions
    for name in FAMILIES:
        for out in ('loss/loss_caption', 'tensor', 'greedy/tokens',
                    'beam_eot_nocache/score', 'predict_beam/pred_score'):
            assert f'{name}/{out}' in tensors
        assert len(captions[f'{name}/predict_greedy']) == 4
    # the state dict as built: checkpoint key names, shapes, initial weights
    assert 'idc_pcl_captioner/state_dict/cross_modal.lm_bias' in tensors
    # the early-stop runs do stop early (an end-of-text token)
    for name in FAMILIES:
        stopped = tensors[f'{name}/greedy_eot/tokens']
        assert (stopped == 49407).any()
    path = str(tmp_path / 'record.safetensors')
    rr.save_record(*first, path)
    assert all(v == 'equal' for _, v in rr.compare(first, rr.load_record(path)))


def test_a_perturbed_model_is_reported_different(monkeypatch):
    before = rr.record(0, FAMILIES)
    build = rr.build_family

    def perturbed(name, seed=0):
        model = build(name, seed)
        if name == 'idc_pcl_captioner':
            with torch.no_grad():
                model.cross_modal.lm_transform[0].weight[0, 0] += 1e-4
        return model

    monkeypatch.setattr(rr, 'build_family', perturbed)
    verdicts = dict(rr.compare(before, rr.record(0, FAMILIES)))
    assert 'elements differ' in verdicts['idc_pcl_captioner/tensor'] or \
        'elements differ' in verdicts['idc_pcl_captioner/greedy/score']
    assert 'elements differ' in verdicts['idc_pcl_captioner/loss/loss_caption']
    assert all(v == 'equal' for k, v in verdicts.items()
               if k.startswith('clip4idc_paper_captioner/'))


def test_compare_names_every_kind_of_difference():
    old = ({'a': torch.zeros(2), 'b': torch.zeros(2), 'c': torch.zeros(2),
            'd': torch.tensor([0.0, 1.0]), 'gone': torch.zeros(1)},
           {'f/predict_greedy': ['x']})
    new = ({'a': torch.zeros(2), 'b': torch.zeros(3),
            'c': torch.zeros(2, dtype=torch.float64),
            'd': torch.tensor([-0.0, 1.5]), 'added': torch.zeros(1)},
           {'f/predict_greedy': ['y']})
    verdicts = dict(rr.compare(old, new))
    assert verdicts['a'] == 'equal'
    assert verdicts['b'].startswith('shape differs')
    assert verdicts['c'].startswith('dtype differs')
    assert verdicts['d'].startswith('2 of 2 elements differ')  # -0.0 is not 0.0
    assert verdicts['gone'] == 'missing from the new record'
    assert verdicts['added'] == 'new in this record'
    assert verdicts['f/predict_greedy/captions'].startswith('captions differ')


def test_old_state_dicts_are_compared_under_their_new_names():
    """A record of the fused-qkv layer layout compares equal to the split
    layout's tensors, and a changed third of ``qkv`` is found."""
    q, kv = torch.randn(4, 4), torch.randn(8, 4)
    b = torch.randn(12)
    old = ({'fam/state_dict/enc.0.qkv.weight': torch.cat([q, kv]),
            'fam/state_dict/enc.0.qkv.bias': b,
            'fam/state_dict/enc.0.out_proj.weight': q,
            'fam/state_dict/enc.0.out_proj.bias': b[:4],
            'fam/loss': torch.ones(())}, {})
    names = ('q_proj.weight', 'kv_proj.weight', 'q_proj.bias', 'kv_proj.bias',
             'out_proj.weight', 'out_proj.bias')
    new = ({**{f'fam/state_dict/enc.0.attn.{n}': t for n, t in zip(
        names, (q, kv, b[:4], b[4:], q, b[:4]))}, 'fam/loss': torch.ones(())},
        {})
    verdicts = dict(rr.compare(old, new))
    assert len(verdicts) == 7 and set(verdicts.values()) == {'equal'}
    new[0]['fam/state_dict/enc.0.attn.kv_proj.weight'] = kv + 1
    verdicts = dict(rr.compare(old, new))
    assert verdicts['fam/state_dict/enc.0.attn.kv_proj.weight'].startswith(
        '32 of 32 elements differ')


def test_writes_then_compares_equal_and_reports_a_change(tmp_path, capsys):
    tool = rr
    path = str(tmp_path / 'record.safetensors')
    args = ['--families', 'clip4idc_retriever']
    assert tool.main([path] + args) == 0
    assert tool.main(['--compare', path] + args) == 0
    assert 'bitwise equal' in capsys.readouterr().out
    tensors, captions = rr.load_record(path)
    tensors['clip4idc_retriever/scores'] = tensors['clip4idc_retriever/scores'] + 1
    rr.save_record(tensors, captions, path)
    assert tool.main(['--compare', path] + args) == 1
    assert 'DIFFERENT clip4idc_retriever/scores' in capsys.readouterr().out


def test_bad_input_is_named(tmp_path):
    tool = rr
    bad = tmp_path / 'bad.safetensors'
    bad.write_bytes(b'not a record')
    with pytest.raises(ValueError, match='bad.safetensors'):
        tool.main(['--compare', str(bad)])
    with pytest.raises(SystemExit):
        tool.main([])  # neither an output nor --compare
    with pytest.raises(SystemExit):
        tool.main(['x.safetensors', '--families', 'no_such_family'])
    assert torch.get_num_threads() >= 1
