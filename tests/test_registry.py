"""mmidc.registry: children of MMPretrain's registries with scope ``mmidc``,
whose members MMPretrain's side finds as ``mmidc.<name>``."""
import importlib

from mmengine.registry import Registry
from mmpretrain import registry as mmpretrain_registry

from mmidc import registry


#: mmidc's own registries: kinds of component MMPretrain has none of.
OWN = {'SCORING_PROTOCOLS'}


def test_every_registry_is_an_mmidc_child_of_mmpretrains():
    found = {name: value for name, value in vars(registry).items()
             if isinstance(value, Registry)}
    assert len(found) >= 20
    for name, child in found.items():
        assert child.scope == 'mmidc', name
        if name in OWN:
            assert child.parent is None and not hasattr(
                mmpretrain_registry, name), name
        else:
            assert child.parent is getattr(mmpretrain_registry, name), name
        for location in child._locations:
            importlib.import_module(location)


def test_members_are_found_from_both_sides():
    from mmidc.models import CLIP4IDCCaptioner
    assert registry.MODELS.get('CLIP4IDCCaptioner') is CLIP4IDCCaptioner
    assert mmpretrain_registry.MODELS.get('mmidc.CLIP4IDCCaptioner') is CLIP4IDCCaptioner
    assert registry.MODELS.get('mmpretrain.ResNet') is mmpretrain_registry.MODELS.get('ResNet')
