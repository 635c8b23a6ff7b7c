"""A clear error for constructor arguments that became components."""
from typing import Dict

__all__ = ['reject_retired_args']


def reject_retired_args(owner: str, kwargs: Dict,
                        retired: Dict[str, str]) -> None:
    """Raise for keyword arguments that ``owner`` no longer takes.

    Args:
        owner (str): The class name, for the message.
        kwargs (dict): The keyword arguments left over by the constructor.
        retired (dict): Retired argument name -> what replaces it.

    Raises:
        TypeError: naming a retired argument and what replaces it, else
            the leftover arguments (as Python does for an unknown
            keyword); nothing when ``kwargs`` is empty.
    """
    for name in kwargs:
        if name in retired:
            raise TypeError(f'{owner}: {name!r} is no longer an argument; '
                            f'{retired[name]}')
    if kwargs:
        raise TypeError(f'{owner}.__init__() got unexpected keyword '
                        f'arguments {sorted(kwargs)}')
