"""Caption text: open_clip's BPE tokenizer, the caption decoders' vocabulary
and its file, the PTB-style tokenizer of the caption metrics and the words
of a caption (the reader of the UTF-8 text and JSON files a run starts
from is :mod:`.text_files`)."""
from .clip_tokenizer import *  # noqa: F401,F403
from .caption_vocab import *  # noqa: F401,F403
from .vocab_file import *  # noqa: F401,F403
from .ptb_tokenizer import *  # noqa: F401,F403
from .caption_words import *  # noqa: F401,F403
from .no_change import *  # noqa: F401,F403
