"""A clear error for constructor arguments that became components."""
import functools
from collections.abc import Hashable, Mapping
from typing import Callable, Dict, Union

__all__ = ['reject_retired_args', 'rejects_retired_args']


def reject_retired_args(owner: str, kwargs: Dict,
                        retired: Dict[str, Union[str, Dict]]) -> None:
    """Raise if ``kwargs`` hold an argument that ``owner`` no longer takes.

    Args:
        owner (str): The class name, for the message.
        kwargs (dict): Keyword arguments given to the constructor.
        retired (dict): Retired argument name -> what replaces it; or, for
            an argument that stays but no longer takes some values, name ->
            ``{retired value: what replaces it}``.

    Raises:
        TypeError: naming the first retired argument (or value) found and
            what replaces it.
    """
    for name, value in kwargs.items():
        if name not in retired:
            continue
        replacement = retired[name]
        if not isinstance(replacement, Mapping):
            raise TypeError(f'{owner}: {name!r} is no longer an argument; '
                            f'{replacement}')
        if isinstance(value, Hashable) and value in replacement:
            raise TypeError(f'{owner}: {name}={value!r} is no longer '
                            f'accepted; {replacement[value]}')


def rejects_retired_args(retired: Dict[str, Union[str, Dict]]) -> Callable:
    """Decorate an ``__init__`` to :func:`reject_retired_args` its keyword
    arguments first; any other unknown argument stays Python's error.

    Args:
        retired (dict): As in :func:`reject_retired_args`.
    """

    def decorate(init: Callable) -> Callable:

        @functools.wraps(init)
        def checked_init(self, *args, **kwargs):
            reject_retired_args(type(self).__name__, kwargs, retired)
            init(self, *args, **kwargs)

        return checked_init

    return decorate
