"""CLEVR's properties and the caption words: each word names one value of
one attribute (the caption checker reads captions word by word)."""
from mmidc.synthetic import properties as p


def test_words_name_one_value_of_one_attribute():
    kinds = [set(p.WORD_TO_SHAPE), set(p.WORD_TO_COLOR), set(p.WORD_TO_MATERIAL),
             set(p.WORD_TO_SIZE), set(p.GENERIC_NOUNS)]
    assert sum(map(len, kinds)) == len(set().union(*kinds))  # no word in two kinds
    for words_of, inverse in ((p.SHAPE_WORDS, p.WORD_TO_SHAPE),
                              (p.MATERIAL_WORDS, p.WORD_TO_MATERIAL),
                              (p.SIZE_WORDS, p.WORD_TO_SIZE),
                              (p.RELATION_PHRASES, p.PHRASE_TO_RELATION)):
        assert {inverse[w] for ws in words_of.values() for w in ws} == set(words_of)
        assert all(inverse[w] == value for value, ws in words_of.items() for w in ws)
    assert set(p.SHAPE_WORDS) == set(p.SHAPES)
    assert set(p.MATERIAL_WORDS) == set(p.MATERIALS) and set(p.SIZE_WORDS) == set(p.SIZES)


def test_sentence_forms():
    assert set(p.CHANGE_TEMPLATES) == set(p.CHANGE_TYPES)
    for change_type, templates in p.CHANGE_TEMPLATES.items():
        assert all('{ref}' in t for t in templates)
        assert all(('{value}' in t) == (change_type in ('color', 'material'))
                   for t in templates)
    assert len(set(p.NO_CHANGE_SENTENCES)) == len(p.NO_CHANGE_SENTENCES) == 9
    assert all(len(rgb) == 3 and all(0 <= c <= 255 for c in rgb)
               for rgb in p.COLORS.values())
