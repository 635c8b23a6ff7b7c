"""The project's open_clip model configs, registered with open_clip.

``model_configs/`` holds the architectures that only this study trains
(``mmidc-tiny-clip-p8``: the tiny CLIP with 8 px patches); mmidc ships the
ones its configs name (``mmidc-tiny-clip``). Importing this module registers
both sets, so a config can name the project's architectures with::

    custom_imports = dict(imports=['mmidc', 'projects.tiny_clip.open_clip_models'])
"""
import os.path as osp

from mmidc.models.open_clip import \
    register_model_configs as register_mmidc_model_configs

__all__ = ['MODEL_CONFIG_DIR', 'PROJECT_MODELS', 'register_model_configs']

#: The project's open_clip model configs (one JSON file per architecture).
MODEL_CONFIG_DIR = osp.join(osp.dirname(osp.abspath(__file__)),
                            'model_configs')
#: The architectures in :data:`MODEL_CONFIG_DIR`.
PROJECT_MODELS = ('mmidc-tiny-clip-p8', )


def register_model_configs() -> None:
    """Add mmidc's and the project's open_clip model configs to open_clip's
    registry, so that ``open_clip.create_model('mmidc-tiny-clip-p8', ...)``
    and configs' ``arch`` know them (idempotent)."""
    import open_clip
    register_mmidc_model_configs()
    if not set(PROJECT_MODELS) <= set(open_clip.list_models()):
        open_clip.add_model_config(MODEL_CONFIG_DIR)


register_model_configs()
