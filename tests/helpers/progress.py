"""A stand-in for MMEngine's ProgressBar that records its updates."""
import sys


class RecordingBar:
    """Stands in for mmengine's ProgressBar: records the updates."""
    made = []

    def __init__(self, total):
        self.total, self.done = total, 0
        self.file = sys.stdout
        RecordingBar.made.append(self)

    def update(self, n=1):
        self.done += n
