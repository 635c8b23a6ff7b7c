"""Import a script under tools/ as a module (the tools are no package)."""
import importlib.util
from pathlib import Path

TOOLS = Path(__file__).resolve().parents[2] / 'tools'


def load_tool(relative_path: str):
    """``load_tool('analysis_tools/ablations.py')`` -> the module."""
    path = TOOLS / relative_path
    name = path.stem.replace('-', '_')
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
