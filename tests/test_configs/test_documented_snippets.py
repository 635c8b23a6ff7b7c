"""The documented ``head.vocab=...`` snippets, as written in
docs/new_dataset.md and in the paper configs' comments, merge into their
configs and name the vocabulary file that build_vocab.py writes from the
config's training set; the head reads it."""
import re
from pathlib import Path

import pytest
from mmengine.config import Config

import mmidc  # noqa: F401
from mmidc.text import build_vocab_from_cfg
from mmidc.runtime.data_root import apply_data_root
from tests.helpers import load_tool
from tests.helpers.pair_trees import (make_clevr_change_tree, make_ier_tree,
                                      make_my_pairs_tree,
                                      make_spot_the_diff_tree)

REPO = Path(__file__).parents[2]
CLIP4IDC = REPO / 'configs' / 'clip4idc'
TREES = {
    'clip4idc-caption_vit-b32_clevr-change.py': make_clevr_change_tree,
    'clip4idc-caption_vit-b32_spot-the-diff.py': make_spot_the_diff_tree,
    'clip4idc-caption_vit-b32_image-editing-request.py': make_ier_tree,
    'clip4idc-caption_vit-b32_my-pairs.py': make_my_pairs_tree,
}


def config_comment_snippet(path: Path) -> str:
    """The commented ``vocab=...`` (or ``model = ...``) line, uncommented,
    as a top-level config statement."""
    lines = [re.sub(r'^\s*# ?', '', line).strip() for line in
             path.read_text().splitlines() if line.lstrip().startswith('#')]
    found = [line for line in lines
             if re.match(r'(model = dict\(head=dict\()?vocab=', line)]
    assert len(found) == 1, found
    snippet = found[0]
    return snippet if snippet.startswith('model') else f'model = dict(head=dict({snippet}))'


def doc_snippet() -> str:
    text = (REPO / 'docs' / 'new_dataset.md').read_text()
    blocks = re.findall(r'```python\n(.*?)```', text, flags=re.S)
    found = [b for b in blocks if 'vocab=' in b]
    assert len(found) == 1, found
    return '\n'.join(line.strip() for line in found[0].splitlines())


def merged_vocab(tmp_path, monkeypatch, config: str, snippet: str):
    """The snippet in a child of ``config``, run from ``tmp_path`` with the
    config's data tree there: build_vocab.py on the child, then the head's
    vocabulary."""
    path = CLIP4IDC / config
    data_root = re.search(r"^data_root = '([^']*)'", path.read_text(), re.M).group(1)
    child = tmp_path / 'child.py'
    child.write_text(f'_base_ = [{str(path)!r}]\ndata_root = {data_root!r}\n{snippet}\n')
    cfg = Config.fromfile(str(child))
    apply_data_root(cfg, str(child))  # the placeholders, as tools/train.py
    head = cfg.model.head
    assert head.pretrained is not None  # merged into, not replaced
    train_root = cfg.train_dataloader.dataset.data_root
    assert head.vocab == train_root + '/caption_vocab_train.json'
    monkeypatch.chdir(tmp_path)  # the configs' relative data roots
    TREES[config](train_root)
    load_tool('tools/dataset_converters/build_vocab.py').main([str(child)])
    return build_vocab_from_cfg(head.vocab)


@pytest.mark.parametrize('config', sorted(TREES))
def test_config_comment_snippet_builds(tmp_path, monkeypatch, config):
    snippet = config_comment_snippet(CLIP4IDC / config)
    vocab = merged_vocab(tmp_path, monkeypatch, config, snippet)
    assert 2 < len(vocab) < 1000  # the training captions' tokens


def test_new_dataset_doc_snippet_builds(tmp_path, monkeypatch):
    vocab = merged_vocab(tmp_path, monkeypatch,
                         'clip4idc-caption_vit-b32_my-pairs.py',
                         doc_snippet())
    assert 2 < len(vocab) < 1000
