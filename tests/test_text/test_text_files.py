"""mmidc.text.text_files: what a missing file's error says."""
import os

import pytest

from mmidc.text.text_files import load_json


def test_a_missing_relative_path_names_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as error:
        load_json('data/my_pairs/train.jsonl')
    message = str(error.value)
    assert message.startswith('annotation file not found: data/my_pairs/train.jsonl')
    assert os.path.join(str(tmp_path), 'data/my_pairs/train.jsonl') in message
    assert 'working directory' in message
    with pytest.raises(FileNotFoundError) as error:
        load_json(str(tmp_path / 'x.json'), 'hard negatives file')
    assert str(error.value) == f'hard negatives file not found: {tmp_path / "x.json"}'
