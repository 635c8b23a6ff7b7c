"""tools/dataset_converters/download_birds_to_words.py: bad options are
named, and a run with failures reports them and exits 1 (the download:
tests/test_datasets/test_birds_to_words_download.py)."""
import os

import pytest

from tests.helpers import load_tool
from tests.helpers.image_server import image_server
from tests.helpers.pair_trees import make_birds_to_words_tree


@pytest.fixture(scope='module')
def tool():
    return load_tool('tools/dataset_converters/download_birds_to_words.py')


def test_bad_options_are_named(tool, tmp_path, capsys):
    tsv_dir = str(tmp_path / 'tsv')
    os.makedirs(tsv_dir)
    for option in (['--image-name', '{photo}'], ['--workers', '0']):
        with pytest.raises(SystemExit):
            tool.main([tsv_dir, str(tmp_path / 'out'), *option])
        assert option[0] in capsys.readouterr().err


def test_failures_are_reported_with_exit_status_1(tool, tmp_path, capsys):
    with image_server() as server:  # started and stopped: nothing listens
        base = server.url
    tsv_dir, out = str(tmp_path / 'tsv'), str(tmp_path / 'birds')
    make_birds_to_words_tree(tsv_dir, num_pairs=1, url_style='inaturalist',
                             base_url=base, write_images=False)
    assert tool.main([tsv_dir, out, '--retries', '0', '--timeout', '2']) == 1
    printed = capsys.readouterr().out
    assert '0 of 2 images in' in printed and '2 failed:' in printed
    assert '1 of 1 pairs miss an image' in printed
