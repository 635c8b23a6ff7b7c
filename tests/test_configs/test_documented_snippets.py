"""The documented ``head.vocab=dict(captions_from=...)`` snippets, as
written in docs/new_dataset.md and in the paper configs' comments, merge
into their configs and build the vocabulary."""
import re
from pathlib import Path

import pytest
from mmengine.config import Config

import mmidc  # noqa: F401
from mmidc.models.utils.caption_vocab import build_vocab_from_cfg
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


def balanced_from(lines, start: int) -> str:
    """Lines from ``start`` on until the brackets close."""
    taken, depth = [], 0
    for line in lines[start:]:
        taken.append(line)
        code = line.split('#')[0]
        depth += code.count('(') - code.count(')')
        if depth == 0:
            return '\n'.join(taken)
    raise AssertionError('unbalanced snippet:\n' + '\n'.join(taken))


def config_comment_snippet(path: Path) -> str:
    """The commented ``vocab=...`` (or ``model = ...``) snippet, uncommented,
    as a top-level config statement."""
    lines = [re.sub(r'^\s*# ?', '', line) for line in
             path.read_text().splitlines() if line.lstrip().startswith('#')]
    start = next(k for k, line in enumerate(lines)
                 if re.match(r'\s*(model = dict\(head=dict\()?vocab=dict\(',
                             line))
    snippet = balanced_from([line.strip() for line in lines], start)
    if not snippet.startswith('model'):
        snippet = f'model = dict(head=dict(\n{snippet}))'
    return snippet


def doc_snippet() -> str:
    text = (REPO / 'docs' / 'new_dataset.md').read_text()
    blocks = re.findall(r'```python\n(.*?)```', text, flags=re.S)
    found = [b for b in blocks if 'captions_from' in b]
    assert len(found) == 1, found
    return '\n'.join(line.strip() for line in found[0].splitlines())


def merged_vocab(tmp_path, monkeypatch, config: str, snippet: str):
    root = str(tmp_path / 'data')
    TREES[config](root)
    child = tmp_path / 'child.py'
    child.write_text(f'_base_ = [{str(CLIP4IDC / config)!r}]\n'
                     f'data_root = {root!r}\n{snippet}\n')
    cfg = Config.fromfile(str(child))
    head = cfg.model.head
    assert head.pretrained is not None  # merged into, not replaced
    assert set(head.vocab) == {'captions_from', 'cache_file'}
    assert head.vocab.captions_from.data_root == root
    monkeypatch.chdir(tmp_path)  # the snippets' relative cache_file
    vocab = build_vocab_from_cfg(head.vocab.to_dict())
    assert (tmp_path / head.vocab.cache_file).is_file()
    return vocab


@pytest.mark.parametrize('config', sorted(TREES))
def test_config_comment_snippet_builds(tmp_path, monkeypatch, config):
    snippet = config_comment_snippet(CLIP4IDC / config)
    assert '_delete_=True' in snippet
    vocab = merged_vocab(tmp_path, monkeypatch, config, snippet)
    assert 2 < len(vocab) < 1000  # the training captions' tokens


def test_new_dataset_doc_snippet_builds(tmp_path, monkeypatch):
    vocab = merged_vocab(tmp_path, monkeypatch,
                         'clip4idc-caption_vit-b32_my-pairs.py',
                         doc_snippet())
    assert 2 < len(vocab) < 1000
