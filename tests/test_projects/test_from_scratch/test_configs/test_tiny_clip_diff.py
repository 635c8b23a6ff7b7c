"""The tiny CLIP with the project's parts (clip4idc-{adapt,caption}_tiny-
clip-diff_...): both stages load the tiny CLIP, a two-step run of each trains
every trainable tensor and no frozen one, and the captioner starts from the
adaptation run's encoder; the ablation spec that runs them loads, and its
CLIP-FT row is the clip-ft-caption_tiny-clip-prior config the quickstart trains;
the spec of the longer-pretrained CLIP differs from it only in the checkpoint."""
import pytest
import torch
from mmengine.config import Config
from mmengine.runner import Runner
from safetensors.torch import load_file

import mmidc  # noqa: F401
from mmidc_lab.experiments.clip4idc_ablation import load_rows, run_options
from mmidc_lab.experiments.run_configs import load_config
from mmidc.runtime.config_check import apply_launch_args, check_config
from mmidc.synthetic import generate_dataset
from tests.helpers import REPO
from tests.helpers.tiny_models import write_tiny_clip

CONFIGS = REPO / 'projects' / 'from_scratch' / 'configs'
# one intra-op thread: the tiny steps run fastest on one on a busy machine
pytestmark = pytest.mark.usefixtures('one_thread')
ADAPT = 'clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change.py'
CAPTION = 'clip4idc-caption_tiny-clip-diff_synthetic-clevr-change.py'
CLIP_FT = 'clip-ft-caption_tiny-clip-prior_synthetic-clevr-change.py'
SPEC = REPO / 'projects/tiny_clip/ablation_specs/tiny_clip_path.py'
LONG_SPEC = REPO / 'projects/tiny_clip/ablation_specs/tiny_clip_long.py'


def tiny_run(name: str, root: str, work_dir: str, **options) -> Runner:
    """Two training steps of batch 4 on ``root``, no validation."""
    path = str(CONFIGS / name)
    cfg = Config.fromfile(path)
    cfg.merge_from_dict({
        'train_dataloader.batch_size': 4,
        'train_dataloader.num_workers': 0,
        'train_dataloader.persistent_workers': False,
        'train_dataloader.dataset.data_root': root,
        'train_cfg.max_epochs': 2,
        'val_dataloader': None, 'val_cfg': None, 'val_evaluator': None,
        'test_dataloader': None, 'test_cfg': None, 'test_evaluator': None,
        'randomness': dict(seed=0), **options})
    apply_launch_args(cfg, path, 'none', work_dir)
    check_config(cfg)
    return Runner.from_cfg(cfg)


def train_and_compare(runner: Runner) -> None:
    """Train; every trainable tensor moved, every frozen one did not."""
    model = runner.model
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    runner.train()
    for name, p in model.named_parameters():
        moved = not torch.equal(p.detach(), before[name])
        assert moved == p.requires_grad or name == 'head.logit_scale', name


def test_both_stages(tmp_path):
    root = str(tmp_path / 'synthetic')
    generate_dataset(root, 4, seed=3, image_size=(144, 96),
                     split_fractions=(0.5, 0.25, 0.25), progress=False)
    clip = write_tiny_clip(tmp_path / 'tiny.safetensors')
    weights = load_file(clip)

    adapt = tiny_run(ADAPT, root, str(tmp_path / 'adapt'),
                     **{'model.pretrained': clip})
    assert [s.name for s in adapt.model.backbone.extra_segments] == ['diff']
    assert torch.equal(adapt.model.backbone.transformer.resblocks[0].mlp
                       .c_fc.weight,
                       weights['visual.transformer.resblocks.0.mlp.c_fc.weight'])
    train_and_compare(adapt)
    adapted = str(tmp_path / 'adapt' / 'epoch_2.pth')
    encoder = {k: v.clone() for k, v in adapt.model.backbone.state_dict().items()}

    caption = tiny_run(CAPTION, root, str(tmp_path / 'caption'), **{
        'model.backbone.pretrained': clip,
        'model.init_backbone_from': adapted,
        'model.head.vocab': f'{root}/caption_vocab_train.json'})
    loaded = caption.model.backbone.state_dict()
    assert encoder.keys() == loaded.keys()
    assert all(torch.equal(encoder[k], loaded[k]) for k in encoder)
    train_and_compare(caption)
    assert caption.iter == 2


def test_ablation_spec_names_these_configs():
    rows = load_rows(str(SPEC))
    assert [r['name'] for r in rows] == [
        'full', 'no-adapt', 'clip-ft', 'split-2-2', 'split-4-0']
    for row in rows:
        plan = run_options(row, seed=1)
        assert plan['caption']['config'].endswith(CAPTION)
        assert (plan['adapt'] is None) == (not row['adapt'])
        if plan['adapt']:
            assert plan['adapt']['config'].endswith(ADAPT)


def test_the_clip_ft_config_is_the_spec_row(monkeypatch):
    monkeypatch.chdir(REPO)
    (row, ) = [r for r in load_rows(str(SPEC)) if r['name'] == 'clip-ft']
    plan = run_options(row, seed=0)['caption']
    spec = load_config(plan['config'], plan['options']).model.to_dict()
    config = load_config(str(CONFIGS / CLIP_FT)).model.to_dict()
    assert config == spec
    assert config['backbone']['num_inter_layers'] == 0
    assert config['backbone']['extra_segments'] == []
    assert config['init_backbone_from'] is None


def test_the_long_spec_is_the_same_rows_on_the_longer_clip(monkeypatch):
    monkeypatch.chdir(REPO)
    long_clip = 'work_dirs/tiny_clip_n24k/mmidc-tiny-clip.safetensors'
    base = {r['name']: r for r in load_rows(str(SPEC))}
    for row in load_rows(str(LONG_SPEC)):
        plan, same = run_options(row, 0), run_options(base[row['name']], 0)
        for stage in ('adapt', 'caption'):
            if plan[stage] is None:
                assert same[stage] is None
                continue
            cfg = load_config(plan[stage]['config'], plan[stage]['options'])
            ref = load_config(same[stage]['config'], same[stage]['options'])
            model = cfg.model if stage == 'adapt' else cfg.model.backbone
            assert model.pretrained == long_clip, (row['name'], stage)
            # nothing else differs from the 8-epoch CLIP's row
            model.pretrained = (ref.model if stage == 'adapt'
                                else ref.model.backbone).pretrained
            assert cfg.model.to_dict() == ref.model.to_dict()
