"""The data-set source of the data-preparation tools: one of a config and a
data set type, and the data set's own options."""
import argparse

import pytest

from mmidc.runtime.dataset_args import add_dataset_args, check_dataset_args, with_dataset_options


def parse(argv, default_split=None):
    parser = argparse.ArgumentParser()
    add_dataset_args(parser, 'the config', default_split=default_split)
    args = parser.parse_args(argv)
    check_dataset_args(parser, args)
    return args


def test_one_source():
    args = parse(['--dataset-type', 'CLEVRChangeDataset', '--data-root', 'd',
                  '--dataset-options', 'with_no_change=False'])
    assert (args.config, args.split, args.dataset_options) == (
        None, None, {'with_no_change': False})
    assert parse(['c.py'], default_split='train').split == 'train'
    for argv in ([], ['c.py', '--dataset-type', 'X', '--data-root', 'r'], ['--dataset-type', 'X']):
        with pytest.raises(SystemExit):
            parse(argv)


def test_dotted_options_reach_nested_keys():
    cfg = dict(type='ImagePairDataset', data_prefix=dict(img_path='imgs', other=1))
    merged = with_dataset_options(cfg, {'data_prefix.img_path': 'photos', 'ann_file': 'a.json'})
    assert merged == dict(type='ImagePairDataset', ann_file='a.json',
                          data_prefix=dict(img_path='photos', other=1))
    assert cfg['data_prefix']['img_path'] == 'imgs'  # not changed in place
