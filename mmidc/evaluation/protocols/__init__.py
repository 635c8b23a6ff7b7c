"""The caption scoring protocols: which words the scorers see and which
sentences say "no change", one registered component a file
(``SCORING_PROTOCOLS``)."""
from typing import Union

from mmidc.registry import SCORING_PROTOCOLS
from .base_protocol import ScoringProtocol
from .ptb_protocol import PTBProtocol
from .python_protocol import PythonProtocol
from .rs_ids_protocol import RSIdsProtocol
from .rs_words_protocol import RSWordsProtocol

__all__ = ['ScoringProtocol', 'PTBProtocol', 'PythonProtocol',
           'RSWordsProtocol', 'RSIdsProtocol', 'SHORTHANDS',
           'build_protocol']

#: The shorthands of ``IDCMetric(tokenizer=...)`` and ``eval_captions.py
#: --tokenizer``, and the protocol each names (``'auto'``: PTB when Java is
#: found, else Python).
SHORTHANDS = dict(ptb='PTBProtocol', python='PythonProtocol',
                  rs_words='RSWordsProtocol', rs_ids='RSIdsProtocol')


def build_protocol(spec: Union[str, dict, ScoringProtocol],
                   **kwargs) -> ScoringProtocol:
    """A protocol from a shorthand (``'rs_ids'``), a config dict
    (``dict(type='RSIdsProtocol', min_word_freq=5, ...)``) or a protocol.

    Args:
        spec (str | dict | ScoringProtocol): What to build.
        **kwargs: Arguments for a shorthand's protocol (those that are
            None are left out, so the protocol's defaults hold).

    Raises:
        ValueError: an unknown shorthand or type, naming the known ones.
    """
    if isinstance(spec, ScoringProtocol):
        return spec
    if isinstance(spec, str):
        if spec not in SHORTHANDS:
            raise ValueError(f'tokenizer={spec!r}: choose from '
                             f"{('auto', *SHORTHANDS)} or give a protocol, "
                             "e.g. dict(type='RSIdsProtocol', ...)")
        spec = dict(type=SHORTHANDS[spec],
                    **{k: v for k, v in kwargs.items() if v is not None})
    if not isinstance(spec, dict) or 'type' not in spec:
        raise ValueError('protocol must be a shorthand '
                         f'{tuple(SHORTHANDS)}, a dict with a "type" '
                         f'(one of {sorted(SCORING_PROTOCOLS.module_dict)}) '
                         f'or a ScoringProtocol, got {spec!r}')
    if SCORING_PROTOCOLS.get(spec['type']) is None:
        raise ValueError(f'protocol type {spec["type"]!r} is not a '
                         'registered scoring protocol (known: '
                         f'{sorted(SCORING_PROTOCOLS.module_dict)})')
    return SCORING_PROTOCOLS.build(dict(spec))
