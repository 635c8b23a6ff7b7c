"""mmidc.evaluation.metrics.java: the binary asked for, else MMIDC_JAVA,
else ``java`` on PATH; a missing one is an error naming it and how to
install one."""
import os

import pytest

from mmidc.evaluation.metrics.java import (INSTALL_HINT, find_java,
                                           java_version, require_java)


def fake_java(folder, version='openjdk version "17.0.2"', status=0):
    folder.mkdir(exist_ok=True)
    path = folder / 'java'
    path.write_text(f'#!/bin/sh\necho \'{version}\' >&2\nexit {status}\n')
    os.chmod(path, 0o755)
    return str(path)


def test_lookup_order(tmp_path, monkeypatch):
    on_path = fake_java(tmp_path / 'bin')
    explicit = fake_java(tmp_path / 'explicit')
    from_env = fake_java(tmp_path / 'env')
    monkeypatch.setenv('PATH', str(tmp_path / 'bin'))
    monkeypatch.delenv('MMIDC_JAVA', raising=False)
    assert find_java() == on_path
    monkeypatch.setenv('MMIDC_JAVA', from_env)
    assert find_java() == from_env
    assert find_java(explicit) == explicit
    assert require_java(explicit) == explicit
    (tmp_path / 'plain').write_text('')  # not executable
    assert find_java(str(tmp_path / 'plain')) is None


def test_version_and_missing_java(tmp_path, monkeypatch):
    assert java_version(fake_java(tmp_path / 'ok')) == 'openjdk version "17.0.2"'
    assert java_version(fake_java(tmp_path / 'broken', status=1)) is None
    missing = str(tmp_path / 'none' / 'java')
    assert java_version(missing) is None
    with pytest.raises(RuntimeError, match='METEOR needs a Java runtime') as err:
        require_java(missing, needed_by='METEOR')
    assert missing in str(err.value) and INSTALL_HINT in str(err.value)
