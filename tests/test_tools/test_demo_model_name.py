"""The demo page names the loaded model (``/api/info``'s ``model``), not
CLIP4IDC for any model."""
import json
import urllib.request

import pytest
import torch

from tests.helpers import REPO, load_tool

pytest.importorskip('fastapi')
pytest.importorskip('uvicorn')


class IDCPCLCaptioner(torch.nn.Module):
    """A model class of another family (only its name is read)."""


class StubCaptioner:

    def __init__(self):
        self.model = IDCPCLCaptioner()


def test_info_names_the_loaded_model_and_the_page_no_fixed_one():
    demo = load_tool('tools/demo/demo_app.py')
    app = demo.create_app(StubCaptioner())
    with demo.serve_app(app) as url:
        with urllib.request.urlopen(url + '/api/info') as response:
            info = json.loads(response.read())
        with urllib.request.urlopen(url + '/') as response:
            page = response.read().decode()
    assert info['model'] == 'IDCPCLCaptioner'
    assert 'CLIP4IDC' not in page and 'id="model-name"' in page
    script = (REPO / 'tools' / 'demo' / 'static' / 'app.js').read_text()
    assert "$('model-name').textContent" in script and 'info.model' in script
