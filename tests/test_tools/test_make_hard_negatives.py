"""tools/dataset_converters/make_hard_negatives.py, run in-process."""
import filecmp
import json
import os.path as osp
import sys

import pytest

from tests.helpers import load_tool
from tests.helpers.pair_trees import make_birds_to_words_tree


@pytest.fixture(scope='module')
def tool():
    return load_tool('tools/dataset_converters/make_hard_negatives.py')


class RecordingBar:
    """Stands in for mmengine's ProgressBar: records the updates."""
    made = []

    def __init__(self, total):
        self.total, self.done = total, 0
        self.file = sys.stdout
        RecordingBar.made.append(self)

    def update(self, n=1):
        self.done += n


def test_writes_next_to_the_annotations_with_progress_same_for_a_seed(
        tool, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(tool, 'ProgressBar', RecordingBar)
    root = str(tmp_path / 'birds')
    make_birds_to_words_tree(root, num_pairs=40, seed=1)
    args = ['--dataset-type', 'BirdsToWordsDataset', '--data-root', root,
            '--show', '2', '--min-similarity', '0.5']
    tool.main(args)
    printed = capsys.readouterr().out
    written = osp.join(root, 'hard_negatives_train.json')
    assert osp.isfile(written) and f'wrote {written}' in printed
    bar = RecordingBar.made[-1]  # the progress bar went through every caption
    assert bar.total == bar.done == len(json.load(open(written))['negatives'])
    assert 'confuse:' in printed and '->' in printed
    with open(written) as f:
        content = json.load(f)
    assert content['meta']['role_pairs'] == {'animal1': 'animal2',
                                             'animal2': 'animal1'}
    again = str(tmp_path / 'again.json')
    tool.main(args + ['--out', again])
    assert filecmp.cmp(written, again, shallow=False)
    other = str(tmp_path / 'other.json')
    tool.main(args + ['--out', other, '--seed', '1'])
    assert not filecmp.cmp(written, other, shallow=False)
    with pytest.raises(SystemExit, match='A:B'):
        tool.main(args + ['--role-pairs', 'before'])
