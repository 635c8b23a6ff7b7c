"""CLEVR's object properties and CLEVR-Change's caption vocabulary.

The RGB values, sizes and shapes are CLEVR's (``properties.json`` of the CLEVR
generator); the words are the ones that occur in CLEVR-Change's captions.
"""

# CLEVR's eight colours, sRGB 0-255.
COLORS = {
    'gray': (87, 87, 87),
    'red': (173, 35, 35),
    'blue': (42, 75, 215),
    'green': (29, 105, 20),
    'brown': (129, 74, 25),
    'purple': (129, 38, 192),
    'cyan': (41, 208, 208),
    'yellow': (255, 238, 51),
}
SHAPES = ('cube', 'sphere', 'cylinder')
MATERIALS = ('rubber', 'metal')
# CLEVR's object "radius" in scene units; a cube's half side is r / sqrt(2).
SIZES = {'large': 0.7, 'small': 0.35}
CHANGE_TYPES = ('color', 'material', 'add', 'drop', 'move')

# Words for each attribute value (CLEVR-Change vocabulary).
SHAPE_WORDS = {
    'cube': ('cube', 'block'),
    'sphere': ('sphere', 'ball'),
    'cylinder': ('cylinder', ),
}
GENERIC_NOUNS = ('object', 'thing')
MATERIAL_WORDS = {
    'rubber': ('rubber', 'matte'),
    'metal': ('metal', 'metallic', 'shiny'),
}
SIZE_WORDS = {'large': ('large', 'big'), 'small': ('small', 'tiny')}
COLOR_WORDS = {color: (color, ) for color in COLORS}
# The adjectives of a referring expression, in their order before the noun.
ADJECTIVE_WORDS = (('size', SIZE_WORDS), ('color', COLOR_WORDS),
                   ('material', MATERIAL_WORDS))

# Spatial relations as seen from the camera of the before image.
RELATION_PHRASES = {
    'behind': ('behind', ),
    'front': ('in front of', ),
    'left': ('to the left of', 'on the left side of', 'left of'),
    'right': ('to the right of', 'on the right side of', 'right of'),
}

# Sentence forms; ``{ref}`` is a referring expression, ``{value}`` a word.
CHANGE_TEMPLATES = {
    'color': ('the {ref} changed to {value}', 'the {ref} turned {value}',
              'the {ref} became {value}'),
    'material': ('the {ref} changed to {value}', 'the {ref} turned {value}',
                 'the {ref} became {value}'),
    'add': ('{article} {ref} has been added', '{article} {ref} has appeared',
            '{article} {ref} has been newly placed'),
    'drop': ('the {ref} has disappeared', 'the {ref} is missing',
             'the {ref} is gone', 'the {ref} is no longer there'),
    'move': ('the {ref} changed its location',
             'the {ref} is in a different location', 'the {ref} moved'),
}
NO_CHANGE_SENTENCES = (
    'no change was made',
    'there is no change',
    'the two scenes seem identical',
    'the scene is the same as before',
    'the scene remains the same',
    'nothing has changed',
    'nothing was modified',
    'no change has occurred',
    'there is no difference',
)


def _invert(words_of: dict) -> dict:
    return {word: value for value, words in words_of.items() for word in words}


WORD_TO_SHAPE = _invert(SHAPE_WORDS)
WORD_TO_COLOR = _invert(COLOR_WORDS)
WORD_TO_MATERIAL = _invert(MATERIAL_WORDS)
WORD_TO_SIZE = _invert(SIZE_WORDS)
PHRASE_TO_RELATION = _invert(RELATION_PHRASES)
