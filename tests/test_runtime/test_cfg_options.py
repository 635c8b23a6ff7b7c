"""mmidc.runtime.cfg_options: ``--cfg-options`` parses like MMEngine's and
names a malformed item in a usage error."""
import argparse

import pytest

from mmidc.runtime.cfg_options import CfgOptionsAction


def _parser():
    parser = argparse.ArgumentParser(prog='tool')
    parser.add_argument('--cfg-options', nargs='+', action=CfgOptionsAction)
    return parser


def test_key_value_items(capsys):
    args = _parser().parse_args(['--cfg-options', 'train_cfg.max_epochs=3',
                                 'model.head.vocab=None', 'a.b=[1,2]'])
    assert args.cfg_options == {'train_cfg.max_epochs': 3,
                                'model.head.vocab': None, 'a.b': [1, 2]}
    for bad in ('max_epochs', '=3'):
        with pytest.raises(SystemExit):
            _parser().parse_args(['--cfg-options', 'x=1', bad])
        assert f"--cfg-options: '{bad}' is not KEY=VALUE" in capsys.readouterr().err
