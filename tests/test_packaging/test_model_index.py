"""model-index.yml (what ``mim search mmidc`` and MMEngine's ``mmidc::``
config lookup read, in a wheel too) imports the shipped families' metafiles;
each project has its own metafile.yml. Every config is listed once under its
own name, every path exists, and only measured numbers are Results."""
from pathlib import Path

import yaml

from tests.helpers import CONFIG_FILES as CONFIGS
from tests.helpers import REPO

CONFIG_ROOT = REPO / 'configs'


PROJECT_METAFILES = sorted(str(p.relative_to(REPO))
                           for p in REPO.glob('projects/*/metafile.yml'))


def load_index():
    """The index and the models of its metafiles and of the projects'."""
    index = yaml.safe_load((REPO / 'model-index.yml').read_text())
    collections, models = [], []
    for metafile in index['Import'] + PROJECT_METAFILES:
        meta = yaml.safe_load((REPO / metafile).read_text())
        collections += meta.get('Collections', [])
        models += [dict(model, _metafile=metafile) for model in meta['Models']]
    return index, collections, models


def test_the_index_imports_every_shipped_metafile_and_no_project():
    """A wheel holds configs/ and model-index.yml but no projects: an import
    of a project's metafile would break MMEngine's ``mmidc::`` lookup there
    (it reads every metafile the index imports)."""
    index, _, _ = load_index()
    metafiles = sorted(str(p.relative_to(REPO))
                       for p in CONFIG_ROOT.glob('*/metafile.yml'))
    assert sorted(index['Import']) == metafiles
    assert PROJECT_METAFILES, 'no project metafile found'


def test_every_config_is_listed_once_under_its_name():
    _, _, models = load_index()
    names = [m['Name'] for m in models]
    assert len(names) == len(set(names)), 'model names are not unique'
    for model in models:
        config = REPO / model['Config']
        assert config.is_file(), f"{model['_metafile']}: {model['Config']} does not exist"
        assert model['Name'] == config.stem, model['Name']
        # a family's metafile lists the configs of its own folder (a
        # project's, those of its configs/ folder)
        folder = Path(model['_metafile']).parent
        if folder.parts[0] == 'projects':
            folder = folder / 'configs'
        assert folder == config.parent.relative_to(REPO)
    listed = {REPO / m['Config'] for m in models}
    missing = [str(p.relative_to(REPO)) for p in CONFIGS if p not in listed]
    assert not missing, f'configs missing from their metafile.yml: {missing}'


def test_collections_and_readmes_exist():
    _, collections, models = load_index()
    names = [c['Name'] for c in collections]
    assert len(names) == len(set(names))
    for collection in collections:
        assert (REPO / collection['README']).is_file(), collection['README']
        assert collection['Paper']['URL'].startswith('https://')
    for model in models:
        assert model['In Collection'] in names, model['Name']


def test_results_are_measured_numbers_documented_with_their_run():
    _, _, models = load_index()
    documented = '\n'.join(p.read_text() for p in [REPO / 'README.md',
                                                   *(REPO / 'docs').glob('*.md')])
    for model in models:
        for result in model.get('Results') or []:
            assert set(result) == {'Task', 'Dataset', 'Metrics'}, model['Name']
            for metric, value in result['Metrics'].items():
                assert isinstance(value, (int, float)), (model['Name'], metric)
                assert f'{value:.2f}' in documented, (
                    f"{model['Name']} {metric} {value}: not in README.md or docs/")
        # a paper's numbers are marked as the paper's, never Results
        paper = (model.get('Metadata') or {}).get('Paper Results')
        if paper is not None:
            assert "(the paper's" in paper, model['Name']
