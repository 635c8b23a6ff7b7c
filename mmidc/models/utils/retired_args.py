"""A clear error for constructor arguments that became components."""
from typing import Dict

__all__ = ['reject_retired_args']


def reject_retired_args(owner: str, kwargs: Dict,
                        retired: Dict[str, str]) -> None:
    """Raise if ``kwargs`` hold an argument that ``owner`` no longer takes.

    Args:
        owner (str): The class name, for the message.
        kwargs (dict): Keyword arguments given to the constructor.
        retired (dict): Retired argument name -> what replaces it.

    Raises:
        TypeError: naming the first retired argument found and what
            replaces it.
    """
    for name in kwargs:
        if name in retired:
            raise TypeError(f'{owner}: {name!r} is no longer an argument; '
                            f'{retired[name]}')
