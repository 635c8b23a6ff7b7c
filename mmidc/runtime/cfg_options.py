"""``--cfg-options key=value ...`` for the command-line tools."""
from mmengine.config import DictAction


class CfgOptionsAction(DictAction):
    """MMEngine's :class:`~mmengine.config.DictAction` with a usage error
    (naming the item) for an item without ``=`` or with an empty key,
    instead of ``not enough values to unpack``."""

    def __call__(self, parser, namespace, values, option_string=None):
        for item in values or []:
            key = item.split('=', 1)[0]
            if '=' not in item or not key.strip():
                parser.error(
                    f'{option_string or "--cfg-options"}: {item!r} is not '
                    'KEY=VALUE (e.g. train_cfg.max_epochs=3; quote values '
                    'with spaces)')
        super().__call__(parser, namespace, values, option_string)
