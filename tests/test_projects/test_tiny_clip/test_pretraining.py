"""projects.tiny_clip.pretraining: a few open_clip_train steps on a
tiny corpus give a checkpoint that open_clip and the CLIP4IDC paper configs
load."""
import copy
import os.path as osp

import pytest
import torch
from mmengine.config import Config
from mmengine.registry import init_default_scope

from projects.tiny_clip import TinyCLIPError
from projects.tiny_clip.pretraining import PretrainSettings, pretrain
from tests.helpers import REPO

for _name in ('pandas', 'braceexpand', 'webdataset'):
    pytest.importorskip(_name, reason='open_clip_train needs the '
                        'clip-pretrain extra (pandas, braceexpand, webdataset)')

ROOT = str(REPO)
ADAPT = osp.join(ROOT, 'configs/clip4idc/clip4idc-adapt_vit-b32_clevr-change.py')
CAPTION = osp.join(ROOT,
                   'configs/clip4idc/clip4idc-caption_vit-b32_clevr-change.py')
NEW_BACKBONE_PARAMS = {'image_id_embedding', 'joint_positional_embedding',
                       'ln_joint.weight', 'ln_joint.bias'}


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """Two epochs of 3 steps each, the second one resumed."""
    work = tmp_path_factory.mktemp('tiny_clip')
    common = dict(work_dir=str(work), num_images=24, batch_size=8, workers=0,
                  warmup=2, name='run', log_every=1)
    torch.set_num_threads(1)
    first = pretrain(PretrainSettings(**common, epochs=1))
    weights_1 = _read(first)
    second = pretrain(PretrainSettings(**common, epochs=2))
    return dict(work=work, export=second, weights_1=weights_1,
                weights_2=_read(second))


def _read(path):
    from safetensors.torch import load_file
    return load_file(path)


def test_trains_resumes_and_exports(run):
    checkpoints = osp.join(run['work'], 'logs', 'run', 'checkpoints')
    assert osp.isfile(osp.join(checkpoints, 'epoch_1.pt'))
    assert osp.isfile(osp.join(checkpoints, 'epoch_2.pt'))
    log = open(osp.join(run['work'], 'logs', 'run', 'out.log')).read()
    assert 'Train Epoch: 0' in log and 'Train Epoch: 1' in log
    # the second call resumed epoch 1 instead of starting over
    assert 'epoch_1.pt' in log and "=> resuming checkpoint" in log
    changed = [k for k in run['weights_1']
               if not torch.equal(run['weights_1'][k], run['weights_2'][k])]
    assert 'visual.conv1.weight' in changed and 'logit_scale' in changed
    # a finished run is kept: the same command again only re-exports
    ckpt = torch.load(osp.join(checkpoints, 'epoch_2.pt'), weights_only=True)
    assert ckpt['epoch'] == 2
    for key, value in ckpt['state_dict'].items():
        assert torch.equal(value, run['weights_2'][key]), key


def test_open_clip_loads_the_export(run):
    import open_clip
    model = open_clip.create_model('mmidc-tiny-clip', pretrained=run['export'])
    state = model.state_dict()
    assert set(state) == set(run['weights_2'])
    for key, value in run['weights_2'].items():
        assert torch.equal(state[key], value), key
    assert tuple(model.visual.image_size) == (96, 144)


def _tiny(cfg: Config, export: str) -> dict:
    """The paper config's model at the tiny CLIP's scale."""
    model = copy.deepcopy(cfg.model.to_dict())
    model['backbone'].update(arch='mmidc-tiny-clip', img_size=None,
                             num_inter_layers=1)
    return model


def test_paper_adaptation_config_loads_every_tensor(run):
    from mmidc.registry import MODELS
    init_default_scope('mmidc')
    model_cfg = _tiny(Config.fromfile(ADAPT), run['export'])
    model_cfg['text_encoder']['arch'] = 'mmidc-tiny-clip'
    model_cfg['pretrained'] = run['export']
    model = MODELS.build(model_cfg)
    weights = run['weights_2']
    backbone = model.backbone.state_dict()
    clip_visual = {k[len('visual.'):] for k in weights
                   if k.startswith('visual.')}
    assert set(backbone) - clip_visual == NEW_BACKBONE_PARAMS
    assert clip_visual <= set(backbone)
    for key in clip_visual:
        assert torch.equal(backbone[key], weights['visual.' + key]), key
    text = model.text_encoder.state_dict()
    clip_text = {k for k in weights if not k.startswith('visual.')
                 and k != 'logit_scale' and k != 'attn_mask'}
    assert set(text) - {'attn_mask'} == clip_text
    for key in clip_text:
        assert torch.equal(text[key], weights[key]), key
    assert torch.equal(model.head.logit_scale.detach().reshape(()),
                       weights['logit_scale'].reshape(()))


def test_paper_caption_config_ties_the_clip_token_embedding(run):
    from mmidc.registry import MODELS
    init_default_scope('mmidc')
    model_cfg = _tiny(Config.fromfile(CAPTION), run['export'])
    model_cfg['backbone']['pretrained'] = run['export']
    model_cfg['init_backbone_from'] = None
    model_cfg['head'].update(hidden=128, num_heads=4,
                             pretrained=run['export'])
    model = MODELS.build(model_cfg)
    head, weights = model.head, run['weights_2']
    token = weights['token_embedding.weight']
    assert torch.equal(head.word_embed.weight, token)
    assert torch.equal(head.word_pos[:head.max_length],
                       weights['positional_embedding'][:head.max_length])
    # tied: the output matrix is CLIP's token embedding
    with torch.no_grad():
        x = torch.randn(1, 2, 128)
        expected = head.transform(x) @ token.t() + head.output_bias
        assert torch.allclose(head.output_logits(x), expected, atol=1e-5)
    assert not head.word_embed.weight.requires_grad
    for key, value in model.backbone.state_dict().items():
        if key not in NEW_BACKBONE_PARAMS:
            assert torch.equal(value, weights['visual.' + key]), key


def test_missing_training_packages_are_named(run, monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_open_clip_train(name, *args, **kwargs):
        if name.startswith('open_clip_train'):
            raise ImportError("No module named 'pandas'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, '__import__', no_open_clip_train)
    with pytest.raises(TinyCLIPError, match='pandas braceexpand webdataset'):
        pretrain(PretrainSettings(work_dir=str(run['work'])))


def test_model_option_trains_and_names_another_config(tmp_path):
    """``model=`` trains another config, the project's (8 px patches), and
    names the export and its metadata after it."""
    import open_clip
    from safetensors import safe_open
    torch.set_num_threads(1)
    out = pretrain(PretrainSettings(
        work_dir=str(tmp_path), num_images=8, batch_size=8, workers=0,
        warmup=1, epochs=1, log_every=1, model='mmidc-tiny-clip-p8'))
    assert osp.basename(out) == 'mmidc-tiny-clip-p8.safetensors'
    assert osp.isdir(osp.join(tmp_path, 'logs',
                              'mmidc-tiny-clip-p8_n8_s0_b8_lr0.001'))
    with safe_open(out, 'pt') as f:
        assert f.metadata()['arch'] == 'mmidc-tiny-clip-p8'
    model = open_clip.create_model('mmidc-tiny-clip-p8', pretrained=out)
    # 8 px patches on 96x144: a 12x18 grid and its class token
    assert model.visual.positional_embedding.shape[0] == 12 * 18 + 1


def _logged(monkeypatch):
    from projects.tiny_clip import pretraining
    logged = []
    original = pretraining.print_log

    def record(msg, *args, **kwargs):
        logged.append(msg)
        original(msg, *args, **kwargs)

    monkeypatch.setattr(pretraining, 'print_log', record)
    return logged


def test_latest_checkpoint_skips_those_that_do_not_load(tmp_path,
                                                        monkeypatch):
    from projects.tiny_clip.pretraining import latest_checkpoint
    logged = _logged(monkeypatch)
    for epoch in (1, 2):
        torch.save(dict(epoch=epoch, state_dict={'w': torch.ones(2)}),
                   tmp_path / f'epoch_{epoch}.pt')
    (tmp_path / 'epoch_3.pt').write_bytes(b'')  # a save killed midway
    (tmp_path / 'epoch_10.pt').write_bytes(b'PK\x03\x04 cut')
    assert latest_checkpoint(str(tmp_path)) == (2, str(tmp_path / 'epoch_2.pt'))
    assert 'epoch_10.pt does not load' in logged[0]
    assert 'epoch_3.pt does not load (an empty file); skipped' in logged[1]
    assert (tmp_path / 'epoch_3.pt').exists()
    assert latest_checkpoint(str(tmp_path), set_aside=True)[0] == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        'epoch_1.pt', 'epoch_10.pt.unreadable', 'epoch_2.pt',
        'epoch_3.pt.unreadable']
    for path in tmp_path.iterdir():
        path.unlink()
    (tmp_path / 'epoch_1.pt').write_bytes(b'')
    assert latest_checkpoint(str(tmp_path)) is None
    assert 'training starts from scratch' in logged[-1]


def test_a_killed_epoch_save_resumes_from_the_last_good_one(
        run, tmp_path, monkeypatch):
    """``kill -9`` during open_clip's save of epoch 3 left a 0-byte
    ``epoch_3.pt``: the next run resumes from epoch 2 (said in the log)
    instead of dying with an EOFError."""
    import shutil
    work = tmp_path / 'tiny_clip'
    shutil.copytree(run['work'], work)
    checkpoints = work / 'logs' / 'run' / 'checkpoints'
    (checkpoints / 'epoch_3.pt').write_bytes(b'')
    logged = _logged(monkeypatch)
    torch.set_num_threads(1)
    export = pretrain(PretrainSettings(
        work_dir=str(work), num_images=24, batch_size=8, workers=0, warmup=2,
        name='run', log_every=1, epochs=3,
        export=str(tmp_path / 'epoch3.safetensors')))
    assert any(f'{checkpoints / "epoch_3.pt"} does not load (an empty file)'
               f'; set aside as {checkpoints / "epoch_3.pt"}.unreadable' in m
               for m in logged), logged
    assert any(f'epoch 2 done ({checkpoints / "epoch_2.pt"})' in m
               for m in logged), logged
    assert (checkpoints / 'epoch_3.pt.unreadable').stat().st_size == 0
    ckpt = torch.load(checkpoints / 'epoch_3.pt', weights_only=True)
    assert ckpt['epoch'] == 3
    log = (work / 'logs' / 'run' / 'out.log').read_text()
    assert (f"=> resuming checkpoint '{checkpoints / 'epoch_2.pt'}' "
            '(epoch 2)') in log and 'Train Epoch: 2' in log
    assert 'epoch 3 weights in' in logged[-1] and export in logged[-1]
