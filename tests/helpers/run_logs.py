"""MMEngine run logs for tests."""
import json


def write_scalars(work_dir, stamp, entries):
    """``<work_dir>/<stamp>/vis_data/scalars.json`` with one line per entry."""
    folder = work_dir / stamp / 'vis_data'
    folder.mkdir(parents=True)
    (folder / 'scalars.json').write_text(
        '\n'.join(json.dumps(e) for e in entries))
