"""projects/example_project: its config builds and trains one iteration
in-process on the tiny CLEVR-Change tree; its head follows the decoding
contract (cached and uncached search agree)."""
import pytest
import torch
from mmengine.config import Config
from mmengine.dataset import pseudo_collate
from mmengine.optim import build_optim_wrapper
from mmengine.registry import init_default_scope
from mmengine.utils import import_modules_from_strings

from mmidc.registry import DATASETS, MODELS
from tests.helpers import REPO
from tests.helpers.pair_trees import make_clevr_change_tree

CONFIG = (REPO / 'projects' / 'example_project' / 'configs' /
          'example-gru-caption_tiny_synthetic-clevr-change.py')
CAPTIONS = ['the red cube moved', 'there is no change']

pytestmark = pytest.mark.usefixtures('one_thread')


def test_the_config_trains_one_iteration(tmp_path):
    root = str(tmp_path / 'clevr')
    make_clevr_change_tree(root, splits=dict(train=[0, 1], val=[2], test=[3]))
    cfg = Config.fromfile(str(CONFIG))
    import_modules_from_strings(**cfg.custom_imports)
    init_default_scope('mmidc')
    cfg.merge_from_dict({'model.init_backbone_from': None,
                         'model.head.vocab': root + '/caption_vocab_train.json',
                         'train_dataloader.dataset.data_root': root,
                         # 32x48 images: the config's model, fewer patches
                         'model.backbone.img_size': (32, 48),
                         'train_dataloader.dataset.pipeline.1.size': (32, 48),
                         # the quickstart's image cache is not built here
                         'train_dataloader.dataset.pipeline.0.cache_dir': None})
    from mmidc.datasets import write_dataset_vocab_file
    dataset = DATASETS.build(cfg.train_dataloader.dataset)
    write_dataset_vocab_file(dataset, root + '/caption_vocab_train.json')
    model = MODELS.build(cfg.model)
    assert type(model.head).__name__ == 'GRUCaptionHead'
    assert model.neck is None and model.aux_head is None
    optim = build_optim_wrapper(model, cfg.optim_wrapper)
    before = model.head.out.weight.detach().clone()
    log = model.train_step(pseudo_collate([dataset[0], dataset[1]]), optim)
    assert set(log) >= {'loss', 'loss_caption'} and torch.isfinite(log['loss'])
    assert not torch.equal(model.head.out.weight, before)


def test_the_head_decodes_the_same_with_and_without_the_cache():
    import projects.example_project  # noqa: F401
    head = MODELS.build(dict(type='GRUCaptionHead', memory_dim=16, hidden=16,
                             num_layers=2, max_length=8, vocab=CAPTIONS)).eval()
    memory = torch.randn(2, 5, 16)
    for search in (head.greedy_decode,
                   lambda m, **kw: head.beam_search(m, beam_size=3, **kw)):
        cached, whole = search(memory, use_cache=True), search(memory, use_cache=False)
        assert torch.equal(cached.tokens, whole.tokens)
        torch.testing.assert_close(cached.score, whole.score)
