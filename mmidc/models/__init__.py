from .clip4idc import *  # noqa: F401,F403
