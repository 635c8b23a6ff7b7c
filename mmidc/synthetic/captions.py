"""CLEVR-Change-style captions written from a scene graph.

An object is referred to by a subset of its attributes (size, colour,
material, shape) that picks it out uniquely in the scene it is seen in; when
no subset does (an identical twin exists), or now and then for variety, a
spatial relation to another uniquely described object is added, e.g. "the
small red cube that is behind the large cylinder". Relations are computed from
the before image's camera, as in CLEVR.
"""
from itertools import combinations
from typing import List

import numpy as np

from .properties import (ADJECTIVE_WORDS, CHANGE_TEMPLATES, GENERIC_NOUNS,
                         NO_CHANGE_SENTENCES, RELATION_PHRASES, SHAPE_WORDS)
from .scene import SceneObject

ATTRIBUTES = ('size', 'color', 'material', 'shape')
ATTRIBUTE_SUBSETS = [s for k in range(len(ATTRIBUTES) + 1)
                     for s in combinations(ATTRIBUTES, k)]
# a relation's target is named with at least three attributes
RELATION_SUBSETS = [s for s in ATTRIBUTE_SUBSETS if len(s) >= 3]
RELATION_RATE = 0.25  # how often a relation is added when not needed
MIN_CAPTIONS, MAX_CAPTIONS = 4, 8


def relation_holds(obj, anchor, relation: str, directions: dict) -> bool:
    """Whether ``obj`` is ``relation`` (behind/front/left/right) of anchor."""
    direction = directions[relation]
    return ((obj.x - anchor.x) * direction[0]
            + (obj.y - anchor.y) * direction[1]) > 0


def matching(objects, obj, subset) -> list:
    """Objects that share ``obj``'s values of the attributes in ``subset``."""
    return [o for o in objects
            if all(getattr(o, a) == getattr(obj, a) for a in subset)]


def _choice(rng, options):
    return options[rng.integers(len(options))]


def attribute_phrase(rng, obj: SceneObject, subset) -> str:
    """E.g. "big red metal ball" or "tiny thing" from attributes in subset."""
    words = [_choice(rng, words_of[getattr(obj, attribute)])
             for attribute, words_of in ADJECTIVE_WORDS if attribute in subset]
    nouns = SHAPE_WORDS[obj.shape] if 'shape' in subset else GENERIC_NOUNS
    words.append(_choice(rng, nouns))
    return ' '.join(words)


class ReferringExpressions:
    """Ways to refer uniquely to ``target`` among ``objects``.

    Args:
        objects (list[SceneObject]): The scene the object is seen in.
        target (SceneObject): The object to refer to.
        directions (dict): Relation directions of the before camera.
    """

    def __init__(self, objects, target, directions):
        self.objects, self.target = objects, target
        self.directions = directions
        self.unique_subsets = self._unique_subsets(target)
        self._relational = None

    def _unique_subsets(self, obj) -> list:
        return [s for s in ATTRIBUTE_SUBSETS
                if matching(self.objects, obj, s) == [obj]]

    @property
    def relational(self) -> list:
        """(target subset, anchor, anchor subsets, relation) that work."""
        if self._relational is None:
            self._relational = []
            for anchor in self.objects:
                if anchor.id == self.target.id:
                    continue
                anchor_subsets = self._unique_subsets(anchor)
                if not anchor_subsets:
                    continue
                for relation in RELATION_PHRASES:
                    if relation_holds(self.target, anchor, relation,
                                      self.directions):
                        self._relational += [
                            (subset, anchor, anchor_subsets, relation)
                            for subset in RELATION_SUBSETS
                            if self._picks_target(subset, anchor, relation)]
        return self._relational

    def _picks_target(self, subset, anchor, relation) -> bool:
        related = [o for o in matching(self.objects, self.target, subset)
                   if relation_holds(o, anchor, relation, self.directions)]
        return related == [self.target]

    def __bool__(self):
        return bool(self.unique_subsets or self.relational)

    def sample(self, rng) -> str:
        use_relation = ((not self.unique_subsets
                         or rng.random() < RELATION_RATE)
                        and self.relational)
        if not use_relation:
            weights = np.array([1.0 + len(s) for s in self.unique_subsets])
            subset = self.unique_subsets[rng.choice(
                len(weights), p=weights / weights.sum())]
            return attribute_phrase(rng, self.target, subset)
        subset, anchor, anchor_subsets, relation = _choice(
            rng, self.relational)
        anchor_subset = anchor_subsets[-1] if rng.random() < 0.5 else \
            _choice(rng, anchor_subsets)
        that_is = 'that is ' if rng.random() < 0.5 else ''
        return (f'{attribute_phrase(rng, self.target, subset)} {that_is}'
                f'{_choice(rng, RELATION_PHRASES[relation])} the '
                f'{attribute_phrase(rng, anchor, anchor_subset)}')


def _article(rng, phrase: str) -> str:
    if rng.random() < 0.5:
        return 'the'
    return 'an' if phrase[0] in 'aeiou' else 'a'


def change_captions(rng, before: List[SceneObject],
                    after: List[SceneObject], change: dict,
                    directions: dict) -> List[str]:
    """4 to 8 distinct captions of ``change`` (varied words and forms).

    Raises:
        ValueError: if the changed object cannot be referred to uniquely.
    """
    change_type = change['type']
    scene = after if change_type == 'add' else before
    target = next(o for o in scene if o.id == change['object_id'])
    refs = ReferringExpressions(scene, target, directions)
    if not refs:
        raise ValueError('changed object cannot be referred to uniquely')
    wanted = int(rng.integers(MIN_CAPTIONS, MAX_CAPTIONS + 1))
    captions = []
    for _ in range(20 * wanted):
        ref = refs.sample(rng)
        template = _choice(rng, CHANGE_TEMPLATES[change_type])
        value = ''
        if change_type in ('color', 'material'):  # the new value's word
            value = _choice(rng, dict(ADJECTIVE_WORDS)[change_type][change['to']])
        caption = template.format(ref=ref, value=value,
                                  article=_article(rng, ref))
        if caption not in captions:
            captions.append(caption)
            if len(captions) == wanted:
                break
    return captions


def no_change_captions(rng) -> List[str]:
    """4 to 8 distinct sentences of CLEVR-Change's nine no-change ones."""
    wanted = int(rng.integers(MIN_CAPTIONS, MAX_CAPTIONS + 1))
    order = rng.permutation(len(NO_CHANGE_SENTENCES))[:wanted]
    return [NO_CHANGE_SENTENCES[i] for i in order]
