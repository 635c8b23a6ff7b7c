"""``_base_ = ['mmidc::...']``: a config outside the clone inherits a
shipped config by its path in the installed package, in a program that
imports mmidc first (mmidc's tools, mim, mmidc.apis)."""
import importlib.util
import json
import os
import subprocess
import sys

from tests.helpers import REPO

USER_CONFIG = """\
_base_ = ['mmidc::clip4idc/clip4idc-caption_vit-b32_clevr-change.py']
data_root = 'data/elsewhere'
train_dataloader = dict(batch_size=8)
"""

READ = """\
import json, mmidc
from mmengine.config import Config
cfg = Config.fromfile('my_caption.py')
print(json.dumps(dict(model=cfg.model.type, batch=cfg.train_dataloader.batch_size,
                      sampler=cfg.train_dataloader.sampler.sampler.type,
                      epochs=cfg.train_cfg.max_epochs, scope=cfg.default_scope)))
"""

# setuptools >= 82 has no pkg_resources, which MMEngine's package look-up
# imports (docs/install.md): a stand-in in its place that finds no
# distribution, so MMEngine falls back to the import system, as it does for
# a package on PYTHONPATH.
PKG_RESOURCES_STAND_IN = """\
class DistributionNotFound(Exception):
    pass


def get_distribution(name):
    raise DistributionNotFound(name)
"""


def test_installed_config_inherited_outside_the_clone(tmp_path):
    (tmp_path / 'my_caption.py').write_text(USER_CONFIG)
    env = dict(os.environ)
    if importlib.util.find_spec('pkg_resources') is None:
        stand_in = tmp_path / 'stand_in'
        stand_in.mkdir()
        (stand_in / 'pkg_resources.py').write_text(PKG_RESOURCES_STAND_IN)
        env['PYTHONPATH'] = str(stand_in)
    else:
        env.pop('PYTHONPATH', None)
    result = subprocess.run([sys.executable, '-c', READ], cwd=tmp_path,
                            env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    got = json.loads(result.stdout.strip().splitlines()[-1])
    assert got == dict(model='CLIP4IDCCaptioner', batch=8,
                       sampler='PairedSceneSampler', epochs=50,
                       scope='mmidc')
    assert not str(tmp_path).startswith(str(REPO))


def test_registered_on_import():
    from mmengine.config.utils import MODULE2PACKAGE

    import mmidc  # noqa: F401
    assert MODULE2PACKAGE['mmidc'] == 'mmidc'
