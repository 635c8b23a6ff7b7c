"""Each split's annotations read once while several steps of a run's
start-up build its data set (``tools/train.py``: for the image cache, the
vocabulary check and the runner's loader; docs/design.md).

Inside :func:`read_annotations_once` a later build of the same data set
(the same class, every attribute but the pipeline, and ``ann_file``'s size
and modification time) gets a copy of the entries the first build read and
checked; nothing outlives the block. The copy is made at the first reuse:
code in the block that changes a built data set's ``data_list`` entries in
place would change what later builds get (MMEngine's and mmidc's data sets
do not).
"""
import contextlib
import os
import pickle
from typing import Callable, Iterator, List, Optional

__all__ = ['read_annotations_once', 'load_once']

#: The entries read inside the block and the attributes their reader set,
#: by data set (pickled from their first reuse on); None outside.
_memo: Optional[dict] = None
#: A data set's attributes that do not shape its entries: what acts after
#: loading (the pipeline, MMEngine's packing of the list) and the loaded
#: list itself.
_NOT_IN_KEY = ('pipeline', 'serialize_data', 'max_refetch', 'data_list',
               'data_bytes', 'data_address', '_fully_initialized')


@contextlib.contextmanager
def read_annotations_once() -> Iterator[None]:
    """A block in which a data set built again reuses the entries its first
    build read (a nested block shares the outer one's)."""
    global _memo
    if _memo is not None:
        yield
        return
    _memo = {}
    try:
        yield
    finally:
        _memo = None


def _key(dataset) -> Optional[bytes]:
    """The data set's class, attributes and annotation file's stat, pickled;
    None for one that cannot be keyed (an attribute that does not pickle, an
    annotation file that is not there: it is read and reports itself)."""
    state = sorted((name, value) for name, value in vars(dataset).items()
                   if name not in _NOT_IN_KEY)
    try:
        stat = os.stat(dataset.ann_file)
        return pickle.dumps((type(dataset), state, stat.st_size,
                             stat.st_mtime_ns))
    except Exception:  # noqa: BLE001
        return None


def load_once(dataset, load: Callable[[], List[dict]]) -> List[dict]:
    """``load()``, or inside :func:`read_annotations_once` a copy of what it
    returned for the same data set, with the attributes the reader set while
    reading (Dubai-CC's ``split_file``); a failed ``load()`` is not kept.

    Args:
        dataset (BaseDataset): The data set being loaded.
        load (Callable): Reads and checks its entries.

    Returns:
        list[dict]: The entries.
    """
    key = _key(dataset) if _memo is not None else None
    if key is None:
        return load()
    if key in _memo:  # the entries, and what the reader noted while reading
        if not isinstance(_memo[key], bytes):  # the first reuse
            _memo[key] = pickle.dumps(_memo[key],
                                      protocol=pickle.HIGHEST_PROTOCOL)
        data_list, noted = pickle.loads(_memo[key])
        vars(dataset).update(noted)
        return data_list
    before = dict(vars(dataset))
    data_list = load()
    noted = {name: value for name, value in vars(dataset).items()
             if name not in before or before[name] is not value}
    # a split that one build reads is not copied (a list of the memo's own:
    # MMEngine empties the list it packs)
    _memo[key] = list(data_list), noted
    return data_list
