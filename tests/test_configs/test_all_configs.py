"""Every config under configs/ and projects/*/configs/ loads, passes
check_config, names registered components, and builds its model and
optimizer wrapper (tiny overrides)."""
import copy
import os.path as osp
from pathlib import Path

import pytest
import torch
from mmengine.config import Config
from mmengine.optim import build_optim_wrapper
from mmengine.registry import init_default_scope
from mmpretrain.structures import DataSample

import mmidc  # noqa: F401  (registers every component)
from mmidc.text import clip_tokenizer
from mmidc.registry import DATASETS, METRICS, MODELS, TRANSFORMS
from mmidc.runtime.config_check import check_config
from mmidc.runtime.data_root import apply_data_root
from tests.helpers import CONFIG_FILES as CONFIGS
from tests.helpers import REPO
from tests.helpers.tiny_idc_pcl import TINY_RESNET  # a 2x2 grid at 32 px
from tests.helpers.tiny_models import TINY_ARCH

CAPTIONS = ['the red cube changed to blue', 'there is no change']
IMG_SIZE = 32

pytestmark = pytest.mark.usefixtures('one_thread')


def config_id(path: Path) -> str:
    return str(path.relative_to(REPO))


def tiny_model_cfg(model_cfg) -> dict:
    """The config's model with the tiny arch and nothing to load from disk."""
    cfg = copy.deepcopy(model_cfg.to_dict())
    for key in ('pretrained', 'init_backbone_from', 'init_from'):
        if key in cfg:
            cfg[key] = None
    if cfg['type'].startswith('IDCPCL'):
        encoder = cfg['feature_encoder']
        for key in ('feature_dim', 'num_tokens'):  # of cached features
            encoder.pop(key, None)
        encoder.update(backbone=TINY_RESNET, image_size=(IMG_SIZE, IMG_SIZE))
        cfg['cross_modal']['vocab'] = CAPTIONS
        return cfg
    backbone = cfg['backbone']
    num_inter = min(backbone.get('num_inter_layers', 3), 2)
    backbone.update(arch=TINY_ARCH, img_size=IMG_SIZE, pretrained=None,
                    num_inter_layers=num_inter)
    if 'text_encoder' in cfg:
        cfg['text_encoder'].update(arch=TINY_ARCH, pretrained=None)
    head = cfg.get('head', {})
    if 'vocab' in head:
        head['vocab'] = CAPTIONS
    if head.get('type') in ('ScratchCaptionHead', 'TransformerCaptionHead'):
        head.update(hidden=64, num_heads=2, num_encoder_layers=1,
                    num_decoder_layers=1)
    if 'pretrained' in head:
        head['pretrained'] = None
    return cfg


def matching_key(name: str, custom_keys: dict):
    """The custom key MMEngine applies to a parameter: the longest one that
    is a substring of its name."""
    for key in sorted(sorted(custom_keys), key=len, reverse=True):
        if key in name:
            return key
    return None


def tiny_batch(with_references: bool = False) -> dict:
    tokens = clip_tokenizer()(CAPTIONS, context_length=32)  # [2, 32]
    inputs = [torch.randint(0, 256, (2, 3, IMG_SIZE, IMG_SIZE),
                            dtype=torch.uint8) for _ in CAPTIONS]
    samples = []
    for i, t in enumerate(tokens):
        # as PackIDCInputs packs them: the references in the metainfo
        samples.append(DataSample(metainfo=dict(
            pair_id=str(i), gt_captions=[CAPTIONS[i]], change_type='none',
            negative_captions=[CAPTIONS[1 - i]])))
        samples[-1].set_field(t, 'text_tokens')
        if with_references:
            samples[-1].set_field(t[None], 'ref_tokens')  # [K=1, 32]
    return dict(inputs=inputs, data_samples=samples)


def test_config_files_import_nothing():
    """A config is data: no file under configs/ or projects/*/configs/
    (bases included) imports a module, with a statement or __import__."""
    import ast
    files = [path for root in [REPO / 'configs',
                               *sorted(REPO.glob('projects/*/configs'))]
             for path in root.rglob('*.py')]
    assert any('_base_' in path.parts for path in files)
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Import, ast.ImportFrom)) or (
                    isinstance(node, ast.Name) and node.id == '__import__'):
                found.append(f'{config_id(path)}:{node.lineno}')
    assert found == []


def test_configs_found():
    names = {config_id(p) for p in CONFIGS}
    for dataset in ('clevr-change', 'spot-the-diff', 'image-editing-request'):
        for stage in ('adapt', 'caption'):
            assert f'configs/clip4idc/clip4idc-{stage}_vit-b32_{dataset}.py' in names
    assert 'configs/clip_ft/clip-ft-caption_vit-b32_clevr-change.py' in names
    for dataset in ('tiny_synthetic-clevr-change', 'resnet101_clevr-change',
                    'resnet101_birds-to-words'):
        for stage in ('pretrain', 'caption'):
            assert f'configs/idc_pcl/idc-pcl-{stage}_{dataset}.py' in names
    for stage in ('adapt', 'caption'):
        for dataset in ('synthetic-clevr-change', 'my-pairs'):
            assert (f'projects/from_scratch/configs/clip4idc-{stage}_tiny_'
                    f'{dataset}.py') in names


def datasets_of(dataset: dict) -> list:
    """The data set configs a loader's ``dataset`` holds (a
    ``ConcatDataset``'s parts)."""
    if dataset['type'] == 'ConcatDataset':
        return [d for part in dataset['datasets'] for d in datasets_of(part)]
    return [dataset]


def assert_registered(cfg: Config) -> None:
    """Data sets, transforms and metrics are known types (a typo fails here,
    not at the first data access)."""
    for loader in ('train_dataloader', 'val_dataloader', 'test_dataloader'):
        if cfg.get(loader) is None:  # pre-training: no evaluation
            continue
        for dataset in datasets_of(cfg[loader]['dataset']):
            assert DATASETS.get(dataset['type']) is not None, (loader, dataset['type'])
            for t in dataset['pipeline']:
                assert TRANSFORMS.get(t['type']) is not None, (loader, t['type'])
    for key in ('val_evaluator', 'test_evaluator'):
        evaluators = cfg.get(key)
        if evaluators is None:
            continue
        for ev in evaluators if isinstance(evaluators, list) else [evaluators]:
            assert METRICS.get(ev['type']) is not None, (key, ev['type'])


@pytest.mark.parametrize('path', CONFIGS, ids=config_id)
def test_config_builds(path):
    init_default_scope('mmidc')
    cfg = Config.fromfile(str(path))
    check_config(cfg)
    assert_registered(cfg)
    is_adaptation = cfg.model.type == 'CLIP4IDCRetriever'
    if is_adaptation:  # retrieval evaluation on every caption of a pair
        assert cfg.val_evaluator.type == 'RetrievalMetric'
        assert cfg.default_hooks.checkpoint.save_best == 'rsum'
        modes = [t.get('mode') for t in cfg.val_dataloader.dataset.pipeline
                 if t['type'] == 'TokenizeCaptions']
        assert modes == ['all']
        if cfg.train_dataloader.dataset.type == 'CLEVRChangeDataset':
            assert cfg.train_dataloader.dataset.with_no_change is False
    elif cfg.model.type in ('IDCPCLPretrainer', 'IDCPCLCrossTaskPretrainer'):
        # no evaluation; FDA negatives (on the caption pairs)
        assert cfg.get('val_cfg') is None and cfg.get('val_dataloader') is None
        steps = [t['type'] for t in
                 datasets_of(cfg.train_dataloader.dataset)[0].pipeline]
        assert 'SampleHardNegatives' in steps
    else:
        # Birds-to-Words' main metric is ROUGE-L; every other data set's CIDEr
        main = ('ROUGE_L' if cfg.train_dataloader.dataset.type ==
                'BirdsToWordsDataset' else 'CIDEr')
        assert cfg.default_hooks.checkpoint.save_best == main
        assert cfg.get('load_from') is None  # would clash with --resume
    # an auxiliary head reads all references: the pipeline must pack them
    keys = [t.get('key', 'text_tokens')
            for t in datasets_of(cfg.train_dataloader.dataset)[0].pipeline
            if t['type'] == 'TokenizeCaptions']
    needs_references = cfg.model.get('aux_head') is not None
    assert ('ref_tokens' in keys) == needs_references, keys
    if cfg.get('test_dataloader') and 'split' in cfg.test_dataloader.dataset:
        assert cfg.val_dataloader.dataset.split in ('val', 'valid')
        assert cfg.test_dataloader.dataset.split == 'test'

    model = MODELS.build(tiny_model_cfg(cfg.model))
    assert type(model).__name__ == cfg.model.type

    # The config's optimizer wrapper, paramwise options included: every
    # custom key must give some parameter its lr (a misspelt key matches
    # none). Frozen parameters are in no group.
    optim_wrapper = build_optim_wrapper(model, copy.deepcopy(cfg.optim_wrapper))
    custom = cfg.optim_wrapper.get('paramwise_cfg', {}).get('custom_keys', {})
    lr_of = {id(p): g['lr'] for g in optim_wrapper.optimizer.param_groups
             for p in g['params']}
    base_lr = cfg.optim_wrapper.optimizer.lr
    for key, options in custom.items():
        params = [p for n, p in model.named_parameters()
                  if matching_key(n, custom) == key and p.requires_grad]
        assert params, f'paramwise custom key {key!r} matches no parameter'
        expected = base_lr * options.get('lr_mult', 1.0)
        assert lr_of[id(params[0])] == pytest.approx(expected), key

    # One training step of the built model with that wrapper: the frozen
    # parameters (the published decoder's word embeddings among them) stay.
    frozen = {n: p.detach().clone() for n, p in model.named_parameters()
              if not p.requires_grad}
    if cfg.model.get('head', {}).get('type') == 'TransformerCaptionHead':
        expected = {'head.word_pos'}
        if cfg.model.head.freeze_word_embed:
            expected.add('head.word_embed.weight')
        assert expected <= frozen.keys()
        assert 'head.word_embed.weight' in frozen or \
            lr_of[id(model.head.word_embed.weight)] == pytest.approx(1e-7)
    model.train()
    losses = model.train_step(tiny_batch(needs_references), optim_wrapper)
    assert all(torch.isfinite(v).all() for v in losses.values())
    for name, p in model.named_parameters():
        if name in frozen:
            assert torch.equal(p.detach(), frozen[name]), name


def test_caption_configs_init_from_their_adaptation_run():
    """Each CLIP4IDC captioning config loads the best checkpoint of the
    adaptation config of the same arch and data set."""
    for path in CONFIGS:
        name = path.name
        if not name.startswith('clip4idc-caption_'):
            continue
        cfg = Config.fromfile(str(path))
        apply_data_root(cfg, str(path))
        adapt = name.replace('-caption_', '-adapt_')
        assert (path.parent / adapt).is_file(), adapt
        expected = osp.join('work_dirs', osp.splitext(adapt)[0],
                            'best_rsum_*.pth')
        assert cfg.model.init_backbone_from == expected


def test_paper_caption_configs_use_the_published_decoder():
    """The CLIP4IDC and CLIP-FT captioning configs decode with TransformerCaptionHead:
    CLIP's word embeddings from the checkpoint the encoder comes from (the
    adaptation run, else CLIP's file), frozen except on Spot-the-Diff (there
    at the encoder's lr), 32 tokens after the start token, and the paired
    loss exactly where the batches hold paired scenes."""
    paper = [p for p in CONFIGS if p.parent.name in ('clip4idc', 'clip_ft')]
    captioning = [p for p in paper if '-caption_' in p.name]
    # 12 at full scale (5 remote-sensing), 3 tiny-CLIP miniatures (CLIP4IDC,
    # no adaptation, CLIP-FT)
    assert len(captioning) == 15
    for path in captioning:
        cfg = Config.fromfile(str(path))
        head, name = cfg.model.head, path.name
        assert head.type == 'TransformerCaptionHead', name
        assert head.max_length == 33 and head.vocab is None, name
        source = cfg.model.init_backbone_from or cfg.model.backbone.pretrained
        assert source and head.pretrained == source, name
        assert head.freeze_word_pos, name
        spot = 'spot-the-diff' in name
        assert head.freeze_word_embed is not spot, name
        custom = cfg.optim_wrapper.paramwise_cfg.custom_keys
        assert ('head.word_embed' in custom) is spot, name
        if spot:
            assert custom['head.word_embed'].lr_mult == \
                custom['backbone'].lr_mult == 1e-3
        paired = cfg.train_dataloader.sampler.sampler.type == 'PairedSceneSampler'
        assert (head.loss.type == 'PairedSceneCrossEntropyLoss') is paired, name
