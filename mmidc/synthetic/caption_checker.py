"""Verify that captions are true of the scene graphs they were written for.

The checker parses a caption back into (form, referring expression, new
value) with the sentence forms of :mod:`.properties`, then evaluates it
against the scene graph on its own: the words must pick out exactly one
object (attributes, then the relation to a uniquely described anchor, with
directions recomputed from the before camera), that object must be the
changed one, the form must match the change type and the value the new
attribute. It also checks the scene graph itself (the after scene differs
from the before scene by exactly the stated change; the distractor has the
same objects) and that every object is visible where it is referred to.

:func:`judge_change_caption` and :func:`judge_no_change_caption` also say
which parts of a caption are right (change type, object, new value), for
the grading of a model's captions (:mod:`.caption_grading`);
:func:`check_dataset` verifies the generator's own output.
"""
import json
import os.path as osp
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from mmidc.text.caption_words import normalize_caption

from .camera import Camera
from .captions import relation_holds
from .properties import (CHANGE_TEMPLATES, GENERIC_NOUNS, NO_CHANGE_SENTENCES,
                         PHRASE_TO_RELATION, WORD_TO_COLOR, WORD_TO_MATERIAL,
                         WORD_TO_SHAPE, WORD_TO_SIZE)
from .scene import SceneObject

MIN_VISIBLE_PIXELS = 300  # at 480 x 320; scaled with the image area
_WORD_CATEGORIES = (('size', WORD_TO_SIZE), ('color', WORD_TO_COLOR),
                    ('material', WORD_TO_MATERIAL))


def _template_regex(template: str) -> re.Pattern:
    pattern = re.escape(template)
    pattern = pattern.replace(re.escape('{article}'), '(?:a|an|the)')
    pattern = pattern.replace(re.escape('{ref}'), '(?P<ref>.+)')
    pattern = pattern.replace(re.escape('{value}'), r'(?P<value>\w+)')
    return re.compile(f'^{pattern}$')


_FORMS = [(change_type, _template_regex(t))
          for change_type, templates in CHANGE_TEMPLATES.items()
          for t in templates]
_RELATION = re.compile(
    r'^(?P<target>.+?) (?:that is )?(?P<rel>' + '|'.join(
        sorted(PHRASE_TO_RELATION, key=len, reverse=True))
    + r') the (?P<anchor>.+)$')


def parse_phrase(phrase: str) -> dict:
    """``"big red thing"`` -> ``{'size': 'large', 'color': 'red'}``.

    Raises:
        ValueError: on an unknown word, a repeated attribute or no noun.
    """
    words = phrase.split()
    if not words:
        raise ValueError('empty referring expression')
    noun, adjectives = words[-1], words[:-1]
    constraints = {}
    if noun in WORD_TO_SHAPE:
        constraints['shape'] = WORD_TO_SHAPE[noun]
    elif noun not in GENERIC_NOUNS:
        raise ValueError(f'{noun!r} is not a shape noun')
    for word in adjectives:
        for attribute, lookup in _WORD_CATEGORIES:
            if word in lookup:
                if attribute in constraints:
                    raise ValueError(f'two {attribute} words in {phrase!r}')
                constraints[attribute] = lookup[word]
                break
        else:
            raise ValueError(f'unknown word {word!r} in {phrase!r}')
    return constraints


def _select(objects, constraints):
    return [o for o in objects
            if all(getattr(o, a) == v for a, v in constraints.items())]


def resolve_reference(ref: str, objects: List[SceneObject],
                      directions: dict) -> SceneObject:
    """The single object ``ref`` denotes in ``objects``.

    Raises:
        ValueError: if the expression matches no object or several.
    """
    relation = _RELATION.match(ref)
    target_phrase = relation.group('target') if relation else ref
    candidates = _select(objects, parse_phrase(target_phrase))
    if relation:
        anchors = _select(objects, parse_phrase(relation.group('anchor')))
        if len(anchors) != 1:
            raise ValueError(f'anchor {relation.group("anchor")!r} matches '
                             f'{len(anchors)} objects')
        rel = PHRASE_TO_RELATION[relation.group('rel')]
        candidates = [o for o in candidates
                      if relation_holds(o, anchors[0], rel, directions)]
    if len(candidates) != 1:
        raise ValueError(f'{ref!r} matches {len(candidates)} objects '
                         '(ambiguous or wrong reference)')
    return candidates[0]


def scene_graph_file(data_root: str, image_name: str) -> str:
    """``<data_root>/scenes/CLEVR_default_NNNNNN.json`` of a pair, from its
    before image's path (``.../CLEVR_default_NNNNNN.png``) or its pair id
    (``NNNNNN.png``)."""
    index = osp.splitext(osp.basename(image_name))[0].split('_')[-1]
    return osp.join(data_root, 'scenes', f'CLEVR_default_{index}.json')


def _objects(scene: dict, image: str) -> List[SceneObject]:
    return [SceneObject.from_dict(o) for o in scene['images'][image]['objects']]


@dataclass
class CaptionVerdict:
    """What one caption gets right about its pair.

    Attributes:
        problems (list[str]): What is wrong; empty if the caption is
            entirely true.
        right_type (bool): A sentence form of the pair's change type (for
            colour and material, told apart by the value word); for a
            no-change pair, one of the no-change sentences.
        right_object (bool, optional): The referring expression picks out
            exactly the changed object. None for no-change pairs.
        right_value (bool, optional): Colour and material changes: the
            caption names the object's new value. None otherwise.
        named_attributes (dict, optional): Change pairs whose caption
            parses: each attribute (``size``, ``color``, ``material``,
            ``shape``) the referring expression's target names (not its
            anchor's) -> ``(named value, the changed object's value)``
            (before the change; for ``add``, the added object's). None
            otherwise.
    """
    problems: List[str] = field(default_factory=list)
    right_type: bool = False
    right_object: Optional[bool] = None
    right_value: Optional[bool] = None
    named_attributes: Optional[Dict[str, Tuple[str, str]]] = None

    @property
    def true(self) -> bool:
        return not self.problems


def judge_change_caption(caption: str, scene: dict) -> CaptionVerdict:
    """Check one caption of a change pair against its scene graph."""
    change = scene['change']
    has_value = change['type'] in ('color', 'material')
    text = normalize_caption(caption)
    parsed = [(t, m) for t, form in _FORMS if (m := form.match(text))]
    if not parsed:
        return CaptionVerdict([f'{caption!r}: no known sentence form'],
                              right_type=False, right_object=False,
                              right_value=False if has_value else None)
    verdict = CaptionVerdict(right_value=False if has_value else None)
    problems = verdict.problems
    form_types = {t for t, _ in parsed}
    if form_types <= {'color', 'material'}:  # the value word tells which
        value = parsed[0][1].group('value')
        form_types = {'color'} if value in WORD_TO_COLOR else (
            {'material'} if value in WORD_TO_MATERIAL else set())
        new_value = WORD_TO_COLOR.get(value, WORD_TO_MATERIAL.get(value))
        if new_value is None:
            problems.append(f'{caption!r}: {value!r} is no colour/material')
        elif new_value != change.get('to'):
            problems.append(f'{caption!r}: says {new_value!r}, the object '
                            f'became {change.get("to")!r}')
        elif has_value:
            verdict.right_value = True
    verdict.right_type = change['type'] in form_types
    if not verdict.right_type:
        problems.append(f'{caption!r}: sentence form of {sorted(form_types)}'
                        f', the change is {change["type"]!r}')
    image = 'semantic' if change['type'] == 'add' else 'default'
    ref = parsed[0][1].group('ref')
    objects = _objects(scene, image)
    changed = next((o for o in objects if o.id == change['object_id']), None)
    if changed is not None:
        verdict.named_attributes = _named_attributes(ref, changed)
    verdict.right_object = False
    camera = Camera.from_dict(scene['images']['default']['camera'])
    try:
        referred = resolve_reference(ref, objects, camera.ground_directions())
        if referred.id != change['object_id']:
            problems.append(f'{caption!r}: refers to object {referred.id},'
                            f' the changed object is {change["object_id"]}')
        else:
            verdict.right_object = True
    except ValueError as error:
        problems.append(f'{caption!r}: {error}')
    return verdict


def _named_attributes(
        ref: str, changed: SceneObject) -> Optional[Dict[str, Tuple[str, str]]]:
    """Each attribute the target of ``ref`` names -> ``(named value,
    changed's value)``; None if the target phrase does not parse."""
    relation = _RELATION.match(ref)
    try:
        named = parse_phrase(relation.group('target') if relation else ref)
    except ValueError:
        return None
    return {attribute: (value, getattr(changed, attribute))
            for attribute, value in named.items()}


def check_change_caption(caption: str, scene: dict) -> List[str]:
    """Problems of one change caption (empty list: the caption is true)."""
    return judge_change_caption(caption, scene).problems


def check_scene_graph(scene: dict) -> List[str]:
    """Problems of the scene graph itself (the change and visibility)."""
    change = scene['change']
    before = {o.id: o for o in _objects(scene, 'default')}
    after = {o.id: o for o in _objects(scene, 'semantic')}
    distractor = {o.id: o for o in _objects(scene, 'nonsemantic')}
    obj_id, kind = change['object_id'], change['type']
    problems = []
    if distractor != before:
        problems.append('distractor objects differ from the before scene')
    expected = dict(before)
    if kind == 'add':
        if obj_id in before or obj_id not in after:
            problems.append('added object missing or already there')
        else:
            expected[obj_id] = after[obj_id]
    elif kind == 'drop':
        expected.pop(obj_id, None)
    elif kind == 'move' and obj_id in before:
        old, new = before[obj_id], after.get(obj_id)
        if new is None or ((old.x - new.x)**2 + (old.y - new.y)**2) < 1:
            problems.append('moved object did not move clearly')
        else:
            expected[obj_id] = new
    elif kind in ('color', 'material') and obj_id in before:
        old_value = getattr(before[obj_id], kind)
        if change['from'] != old_value or change['to'] == old_value:
            problems.append(f'{kind} change does not match before scene')
        expected[obj_id] = SceneObject(**{
            **vars(before[obj_id]), kind: change['to']})
    else:
        problems.append(f'unknown change {change!r}')
    if after != expected:
        problems.append(f'after scene is not the before scene + {kind}')
    for image, record in scene['images'].items():
        width, height = record['image_size']
        least = MIN_VISIBLE_PIXELS * width * height / (480 * 320)
        for obj in record['objects']:
            if obj['visible_pixels'] < least:
                problems.append(f'object {obj["id"]} covers only '
                                f'{obj["visible_pixels"]} pixels in {image}')
    return problems


def judge_no_change_caption(caption: str) -> CaptionVerdict:
    """Check one caption of a no-change (distractor) pair."""
    if normalize_caption(caption) in NO_CHANGE_SENTENCES:
        return CaptionVerdict(right_type=True)
    return CaptionVerdict(
        [f'{caption!r}: not one of the no-change sentences'])


def check_no_change_caption(caption: str) -> List[str]:
    """Problems of one no-change caption (empty list: it is true)."""
    return judge_no_change_caption(caption).problems


def check_dataset(data_root: str) -> List[str]:
    """Check every caption and scene graph of a generated data set.

    Returns:
        list[str]: Problems, each naming the scene; empty if all is true.
    """
    with open(osp.join(data_root, 'change_captions.json')) as f:
        change_captions = json.load(f)
    with open(osp.join(data_root, 'no_change_captions.json')) as f:
        no_change_captions = json.load(f)
    problems = []
    for name, captions in change_captions.items():
        scene_file = scene_graph_file(data_root, name)
        with open(scene_file) as f:
            scene = json.load(f)
        found = check_scene_graph(scene)
        for caption in captions:
            found += check_change_caption(caption, scene)
        for caption in no_change_captions.get(name, []) or ['<none>']:
            found += check_no_change_caption(caption)
        problems += [f'{scene_file}: {p}' for p in found]
    return problems
