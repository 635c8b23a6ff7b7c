"""mmidc_lab.configs: shipped configs by their ``mmidc::`` names in the
installed package, a project's configs through its package, their labels,
and names that name nothing."""
import os.path as osp

import pytest

from mmidc_lab.configs import (config_file, config_label, core_config,
                               project_config)
from tests.helpers import REPO

IDC_PCL = 'idc_pcl/idc-pcl-caption_tiny_synthetic-clevr-change.py'
ADAPT = 'clip4idc-adapt_tiny_synthetic-clevr-change.py'


def test_a_shipped_config_is_the_installed_packages():
    import mmidc
    path = core_config(f'mmidc::{IDC_PCL}')
    # the package's link (an editable install), or the clone's own file
    # where the clone has no links (it ran `pip install .` only)
    assert path in (osp.join(osp.dirname(mmidc.__file__), '.mim', 'configs',
                             IDC_PCL), str(REPO / 'configs' / IDC_PCL))
    # the clone's file either way, never an installed copy
    assert osp.samefile(path, REPO / 'configs' / IDC_PCL)
    assert config_file(f'mmidc::{IDC_PCL}') == path


def test_a_projects_config_is_found_through_its_package():
    import projects.from_scratch
    path = project_config('from_scratch', ADAPT)
    assert path == osp.join(osp.dirname(projects.from_scratch.__file__),
                            'configs', ADAPT)
    assert config_file(f'projects.from_scratch::{ADAPT}') == path


def test_names_that_name_nothing():
    with pytest.raises(FileNotFoundError, match='nope.py'):
        core_config('mmidc::idc_pcl/nope.py')
    with pytest.raises(FileNotFoundError, match='nope.py'):
        project_config('from_scratch', 'nope.py')
    with pytest.raises(ValueError, match='not a config name'):
        config_file('configs/idc_pcl/x.py')
    with pytest.raises(ValueError, match='not a config name'):
        config_file('mmdet::x/y.py')


def test_labels_are_relative_to_the_clones_root(monkeypatch, tmp_path):
    monkeypatch.chdir(REPO)
    assert config_label(core_config(f'mmidc::{IDC_PCL}')) == \
        f'configs/{IDC_PCL}'
    assert config_label(project_config('from_scratch', ADAPT)) == \
        f'projects/from_scratch/configs/{ADAPT}'
    monkeypatch.chdir(tmp_path)  # elsewhere: the path itself
    path = project_config('from_scratch', ADAPT)
    assert config_label(path) == path


def test_a_clone_without_links_reads_its_own_configs(tmp_path, monkeypatch):
    """mmidc imported from a clone that never had an editable install (no
    ``mmidc/.mim`` links): the clone's configs, not an installed copy."""
    import importlib
    import types
    clone = tmp_path / 'clone'
    (clone / 'mmidc').mkdir(parents=True)
    own = clone / 'configs' / IDC_PCL
    own.parent.mkdir(parents=True)
    own.write_text("# the clone's own, edited\n")
    module = types.SimpleNamespace(__file__=str(clone / 'mmidc' / '__init__.py'))
    monkeypatch.setattr(importlib, 'import_module', lambda name: module)
    with pytest.raises(FileNotFoundError, match='pip install -e'):
        core_config(f'mmidc::{IDC_PCL}')  # not a source tree (no setup.py)
    (clone / 'setup.py').write_text('')
    assert core_config(f'mmidc::{IDC_PCL}') == str(own)
    with pytest.raises(FileNotFoundError, match='no_such.py'):
        core_config('mmidc::clip4idc/no_such.py')
