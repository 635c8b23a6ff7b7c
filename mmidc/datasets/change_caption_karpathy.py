"""The Karpathy-JSON family of remote-sensing change-captioning sets.

LEVIR-CC, LEVIR-MCI, WHU-CDC, SECOND-CC and Dubai-CC all ship their
captions as a COCO "Karpathy split" JSON (``{"images": [{"filename",
"sentences": [{"raw", ...}], ...}]}``) and their image pairs as one folder
of before images and one of after images with the same file names. They
differ only in where those files are: :class:`KarpathyChangeCaptionDataset`
reads any of them from a layout given by its arguments, and the registered
per-set readers (``LEVIRCCDataset`` ...) fix the layout each set is
distributed in.
"""
import os
import os.path as osp
from typing import Dict, List, Optional, Sequence, Tuple, Union

from mmengine.logging import print_log

from mmidc.registry import DATASETS
from mmidc.text import no_change
from mmidc.text.no_change import normalize_sentence
from .annotation_checks import (caption_list, check_record, has_words,
                                load_json, str_field)
from .image_pair_dataset import ImagePairDataset

__all__ = ['KarpathyChangeCaptionDataset']


@DATASETS.register_module()
class KarpathyChangeCaptionDataset(ImagePairDataset):
    """Change captions in a Karpathy-style JSON, image pairs in two folders.

    The annotation file holds ``{"images": [record, ...]}``; a record needs
    ``filename`` (the file name of both images), ``sentences`` (a list of
    ``{"raw": caption, ...}``) and, when the file holds every split, the
    key ``split_key`` naming the record's split; other keys are ignored. A
    record's ``changeflag`` (0: no change, 1: change) sets the pair's change
    flag; without one a pair is a no-change pair when all its captions are
    ``no_change_sentences`` (compared after
    :func:`mmidc.text.no_change.normalize_sentence`), a change pair when
    none is, and else a *mixed* pair (its annotators disagree), read as
    ``mixed_pairs`` says (docs/datasets.md). The build log counts the
    no-change, change and mixed pairs and names the first mixed ones.

    Every entry follows ``docs/design.md`` (``img1_path``, ``img2_path``,
    ``gt_captions``, ``pair_id`` = ``filename``, ``change_type``) and adds
    ``change_flag`` (1 change, 0 no change); ``change_type`` is ``'change'``
    or :attr:`NO_CHANGE_TYPE`. ``extra_dirs`` adds paths of further
    per-pair files (change masks, semantic maps) to the entries whose file
    exists: they are passed along, never required.

    Errors at build time name the file and the key or record: a missing or
    malformed annotation file, a record without a required key or with a
    split, ``changeflag`` or caption of the wrong kind, a missing image.
    Empty captions (or ones with no letter or digit) are dropped and
    counted in the log; a record left with none is an error.

    Args:
        data_root (str): The data set's root folder.
        split (str): ``'train'``, ``'val'`` or ``'test'``. Defaults to
            ``'train'``.
        ann_file (str): The Karpathy JSON, relative to ``data_root``.
            ``{split}`` in it is replaced by the split. Defaults to
            ``'captions.json'``.
        img1_dir (str): Folder of the before images, relative to
            ``data_root``; ``{split}`` is replaced by the split. Defaults to
            ``'images/{split}/A'``.
        img2_dir (str): Folder of the after images, as ``img1_dir``.
            Defaults to ``'images/{split}/B'``.
        split_key (str | None): The record key holding the split (records of
            the other splits are skipped), or None when the file holds one
            split. Defaults to ``'split'``.
        split_values (dict, optional): The values of ``split_key`` each
            split reads, e.g. ``{'train': ('train', 'restval')}``. Defaults
            to the split's own name (and ``'restval'`` for ``'train'``, as
            the Karpathy files use it).
        extra_dirs (dict, optional): Entry key -> folder (``{split}``
            replaced) of further files named ``filename``, e.g.
            ``{'mask_path': 'images/{split}/label'}``. Defaults to None.
        no_change_sentences (str | Sequence[str], optional): The sentences
            of a no-change pair: a data set's name (a key of
            :data:`mmidc.text.no_change.NO_CHANGE_SENTENCES`, e.g.
            ``'dubai_cc'``) or a list of sentences. Defaults to None: the
            reader's own data set (:attr:`NO_CHANGE_NAME`).
        mixed_pairs (str): What a pair whose captions mix no-change and
            change sentences (and that has no ``changeflag``) is:
            ``'change'`` (a change pair), ``'drop'`` (left out) or
            ``'error'`` (the build fails, naming the pairs). Defaults to
            ``'change'``.
        with_no_change (bool): Keep the no-change pairs. The adaptation
            stage drops them (False): their few shared sentences would be
            false negatives of each other in a contrastive batch. Defaults
            to True.
        **kwargs: Other arguments of :class:`ImagePairDataset`
            (``pipeline``, ``lazy_init``, ``verify_images``, ...).
    """

    #: ``change_type`` of the no-change pairs: the no-change type the
    #: metrics, samplers and IDC-PCL read.
    NO_CHANGE_TYPE = 'none'
    #: ``change_type`` of the change pairs.
    CHANGE_TYPE = 'change'
    #: The data set whose no-change sentences the reader uses by default
    #: (a key of :data:`mmidc.text.no_change.NO_CHANGE_SENTENCES`).
    NO_CHANGE_NAME = 'levir_cc'
    #: The values of ``mixed_pairs``.
    MIXED_PAIRS = ('change', 'drop', 'error')

    def __init__(self,
                 data_root: str,
                 split: str = 'train',
                 ann_file: str = 'captions.json',
                 img1_dir: str = 'images/{split}/A',
                 img2_dir: str = 'images/{split}/B',
                 split_key: Optional[str] = 'split',
                 split_values: Optional[Dict[str, Sequence[str]]] = None,
                 extra_dirs: Optional[Dict[str, str]] = None,
                 no_change_sentences: Union[str, Sequence[str],
                                            None] = None,
                 mixed_pairs: str = 'change',
                 with_no_change: bool = True,
                 **kwargs):
        name = type(self).__name__
        self.set_split(split)
        if no_change_sentences is None:
            no_change_sentences = self.NO_CHANGE_NAME
        try:
            sentences = no_change.no_change_sentences(no_change_sentences)
        except KeyError as error:
            raise ValueError(f'{name}: {error.args[0]}') from None
        if not all(isinstance(s, str) and s.strip() for s in sentences):
            raise ValueError(f'{name}: no_change_sentences must be a data '
                             f'set name or a list of non-empty sentences, '
                             f'got {no_change_sentences!r:.120}')
        if mixed_pairs not in self.MIXED_PAIRS:
            raise ValueError(f'{name}: mixed_pairs must be one of '
                             f'{", ".join(self.MIXED_PAIRS)}, got '
                             f'{mixed_pairs!r:.60}')
        self.split_key = split_key
        values = dict(train=('train', 'restval'), val=('val', ),
                      test=('test', ))
        values.update(split_values or {})
        self.split_values = {k: tuple(v) for k, v in values.items()}
        self.img1_dir = img1_dir.format(split=split)
        self.img2_dir = img2_dir.format(split=split)
        self.extra_dirs = {key: folder.format(split=split)
                           for key, folder in (extra_dirs or {}).items()}
        self.no_change_sentences = tuple(sentences)
        #: The data set name the sentences were given by, or None for a list.
        self.no_change_sentences_name = (
            no_change_sentences if isinstance(no_change_sentences, str)
            else None)
        self._no_change_set = no_change.no_change_set(sentences)
        self.mixed_pairs = mixed_pairs
        self.with_no_change = with_no_change
        super().__init__(
            ann_file=ann_file.format(split=split),
            data_root=data_root,
            **kwargs)

    def _join_prefix(self):
        """Also anchor the image and extra folders at ``data_root``."""
        super()._join_prefix()

        def anchor(folder):
            return folder if osp.isabs(folder) else osp.join(
                self.data_root or '', folder)

        self.img1_dir, self.img2_dir = map(anchor, (self.img1_dir, self.img2_dir))
        self.extra_dirs = {k: anchor(f) for k, f in self.extra_dirs.items()}

    # ------------------------------------------------------------------
    def annotation_records(self) -> List[Tuple[str, dict]]:
        """``(where, record)`` of every record of the split (``where``
        names the file and the record for errors): the records of
        :attr:`ann_file` whose ``split_key`` is one of the split's values.
        Subclasses whose sets keep each split in its own file override
        this."""
        records = [(f'{self.ann_file}: images[{index}]', record)
                   for index, record in enumerate(
                       self.load_images_list(self.ann_file))]
        if self.split_key is None:
            return records
        wanted = self.split_values[self.split]
        known = {v for vals in self.split_values.values() for v in vals}
        selected = []
        for where, record in records:
            check_record(record, where, ('filename', self.split_key))
            value = record[self.split_key]
            if value not in known:
                raise ValueError(
                    f'{where} key "{self.split_key}" is {value!r:.60}, not '
                    f'a split (expected one of {", ".join(sorted(known))})')
            if value in wanted:
                selected.append((where, record))
        return selected

    @staticmethod
    def load_images_list(ann_file: str) -> List[dict]:
        """The ``images`` list of a Karpathy JSON, naming the file if it is
        not one."""
        content = load_json(ann_file)
        if not isinstance(content, dict) or 'images' not in content:
            got = (f'an object with the keys {", ".join(sorted(content))}'
                   if isinstance(content, dict) else type(content).__name__)
            raise ValueError(f'{ann_file}: expected a Karpathy-style object '
                             f'{{"images": [{{"filename", "sentences"}}, '
                             f'...]}}; got {got:.120}')
        images = content['images']
        if not isinstance(images, list):
            raise ValueError(f'{ann_file}: key "images" must be a list of '
                             f'records, got {type(images).__name__}')
        return images

    def parse_annotations(self) -> List[dict]:
        data_list, num_empty, mixed = [], 0, []
        counts = dict(no_change=0, change=0)
        for where, record in self.annotation_records():
            check_record(record, where, ('filename', 'sentences'))
            filename = str_field(record['filename'], where, 'filename')
            where = f'{where} ("{filename}")'
            captions, dropped = self._captions(record['sentences'], where)
            num_empty += dropped
            flag = self._change_flag(record, captions, where)
            if flag is None:
                mixed.append(filename)
                if self.mixed_pairs != 'change':
                    continue
                flag = 1
            else:
                counts['change' if flag else 'no_change'] += 1
            data_list.append(dict(
                img1_path=osp.join(self.img1_dir, filename),
                img2_path=osp.join(self.img2_dir, filename),
                gt_captions=captions,
                pair_id=filename,
                change_flag=flag,
                change_type=self.CHANGE_TYPE if flag else self.NO_CHANGE_TYPE))
        source = self.annotation_source()
        self._log_counts(source, counts, mixed)
        if not self.with_no_change:
            kept = [e for e in data_list if e['change_flag']]
            print_log(f'{source}: {len(data_list) - len(kept)} no-change '
                      f'pairs left out (with_no_change=False)',
                      logger='current')
            data_list = kept
        self._add_extra_paths(data_list)
        if num_empty:
            print_log(f'{source}: dropped {num_empty} empty captions',
                      logger='current')
        return data_list

    def _log_counts(self, source: str, counts: Dict[str, int],
                    mixed: List[str]) -> None:
        """Log how many pairs are no-change, change and mixed (raise for
        mixed pairs under ``mixed_pairs='error'``)."""
        sentences = (f'"{self.no_change_sentences_name}"'
                     if self.no_change_sentences_name else
                     f'{len(self.no_change_sentences)} given')
        total = counts['no_change'] + counts['change'] + len(mixed)
        print_log(f'{source}: {total} pairs: {counts["no_change"]} no '
                  f'change, {counts["change"]} change, {len(mixed)} mixed '
                  f'(no-change sentences: {sentences}; a "changeflag" '
                  f'where the file has one)', logger='current')
        if not mixed:
            return
        names = ', '.join(mixed[:5]) + (', ...' if len(mixed) > 5 else '')
        message = (f'{source}: {len(mixed)} pairs mix no-change and change '
                   f'captions and have no "changeflag" ({names})')
        if self.mixed_pairs == 'error':
            raise ValueError(f'{message}; mixed_pairs="error" (use '
                             f'"change" to read them as change pairs or '
                             f'"drop" to leave them out)')
        what = ('read as change pairs' if self.mixed_pairs == 'change' else
                'left out')
        print_log(f'{message}: {what} (mixed_pairs="{self.mixed_pairs}")',
                  logger='current', level=30)

    def _captions(self, sentences, where: str) -> Tuple[List[str], int]:
        """The ``raw`` captions of a record, stripped; empty ones and ones
        with no word (no letter or digit) dropped and counted."""
        if isinstance(sentences, str) or not isinstance(sentences, list):
            raise ValueError(f'{where} key "sentences" must be a list of '
                             f'{{"raw": caption}} objects, got '
                             f'{type(sentences).__name__} {sentences!r:.60}')
        captions = []
        for k, sentence in enumerate(sentences):
            check_record(sentence, f'{where} sentences[{k}]', ('raw', ))
            captions.extend(caption_list([sentence['raw']],
                                         f'{where} sentences[{k}]', 'raw'))
        kept = [c.strip() for c in captions if has_words(c)]
        if not kept:
            raise ValueError(f'{where} has no non-empty caption in '
                             f'"sentences"')
        return kept, len(captions) - len(kept)

    def _change_flag(self, record: dict, captions: List[str],
                     where: str) -> Optional[int]:
        """1 change, 0 no change; None when the captions disagree."""
        if 'changeflag' in record:
            flag = record['changeflag']
            if isinstance(flag, bool) or flag not in (0, 1):
                raise ValueError(f'{where} key "changeflag" must be 0 (no '
                                 f'change) or 1 (change), got {flag!r:.60}')
            return int(flag)
        votes = {normalize_sentence(c) in self._no_change_set
                 for c in captions}
        if votes == {True}:
            return 0
        if votes == {False}:
            return 1
        return None

    def _add_extra_paths(self, data_list: List[dict]) -> None:
        """Add each ``extra_dirs`` path to the entries whose file exists."""
        for key, folder in self.extra_dirs.items():
            present = set(os.listdir(folder)) if osp.isdir(folder) else set()
            missing = 0
            for entry in data_list:
                name = entry['pair_id']
                if name in present:
                    entry[key] = osp.join(folder, name)
                else:
                    missing += 1
            if present and missing:
                print_log(f'{self.annotation_source()}: {missing} pairs have '
                          f'no file in {folder} (no "{key}" for them)',
                          logger='current', level=30)

    def annotation_source(self) -> str:
        return f'{self.ann_file} (split "{self.split}")'
