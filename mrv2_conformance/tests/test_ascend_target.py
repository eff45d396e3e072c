"""The vllm-ascend target without its inputs, and the snapshot unpacker (with vLLM and
the snapshot, tox -m ascend runs the suite against the port)."""

from __future__ import annotations

import importlib.util
import io
import tarfile

import pytest
from mrv2_conformance.adapters._ascend import snapshot
from mrv2_conformance.plugin.target import load_target

TARGET = "mrv2_conformance.adapters.vllm_ascend"


def test_without_a_checkout_the_target_is_unavailable_with_the_variable_to_set(monkeypatch):
    monkeypatch.delenv("MRV2_VLLM_ASCEND_SRC", raising=False)
    target = load_target(TARGET)
    assert target.unavailable and "MRV2_VLLM_ASCEND_SRC is not set" in target.unavailable


@pytest.mark.skipif(importlib.util.find_spec("vllm") is not None, reason="vLLM is installed")
def test_without_vllm_the_target_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setenv("MRV2_VLLM_ASCEND_SRC", str(tmp_path))
    target = load_target(TARGET)
    assert target.unavailable and "vLLM is not installed" in target.unavailable


def _archive(path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_snapshot_unpacks_its_one_top_folder_and_replaces_an_earlier_unpack(tmp_path, monkeypatch):
    archive = tmp_path / "vllm-ascend-abc.tar.gz"
    _archive(archive, {"vllm-ascend/vllm_ascend/worker/v2/model_runner.py": b"# port\n"})
    monkeypatch.setenv(snapshot.SNAPSHOT_ENV_VAR, str(archive))
    dest = tmp_path / "out"
    (dest / "vllm-ascend").mkdir(parents=True)
    (dest / "vllm-ascend" / "stale.py").write_text("old")
    assert snapshot.main([str(dest)]) == 0
    assert (dest / "vllm-ascend" / "vllm_ascend" / "worker" / "v2" / "model_runner.py").is_file()
    assert not (dest / "vllm-ascend" / "stale.py").exists()


def test_snapshot_errors_name_what_is_wrong(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(snapshot.SNAPSHOT_ENV_VAR, str(tmp_path / "missing.tar.gz"))
    assert snapshot.main([str(tmp_path)]) == 2
    assert "MRV2_VLLM_ASCEND_SNAPSHOT=" in capsys.readouterr().err
    two = tmp_path / "two.tar.gz"
    _archive(two, {"a/x.py": b"", "b/y.py": b""})
    monkeypatch.setenv(snapshot.SNAPSHOT_ENV_VAR, str(two))
    assert snapshot.main([str(tmp_path / "o")]) == 2
    assert "expected one top folder" in capsys.readouterr().err
    other = tmp_path / "other.tar.gz"
    _archive(other, {"pkg/x.py": b""})
    monkeypatch.setenv(snapshot.SNAPSHOT_ENV_VAR, str(other))
    assert snapshot.main([str(tmp_path / "p")]) == 2
    assert "no vllm_ascend/worker/v2" in capsys.readouterr().err


def test_check_untouched_names_what_was_written(tmp_path, monkeypatch, capsys):
    archive = tmp_path / "vllm-ascend-abc.tar.gz"
    _archive(archive, {"vllm-ascend/vllm_ascend/worker/v2/model_runner.py": b"# port\n"})
    monkeypatch.setenv(snapshot.SNAPSHOT_ENV_VAR, str(archive))
    dest = tmp_path / "out"
    assert snapshot.main([str(dest)]) == 0
    assert snapshot.main(["--check-untouched", str(dest)]) == 0
    cache = dest / "vllm-ascend" / "vllm_ascend" / "__pycache__"
    cache.mkdir()
    assert snapshot.main(["--check-untouched", str(dest)]) == 1
    assert (
        "written into the vllm-ascend checkout (1): vllm-ascend/vllm_ascend/__pycache__"
        in capsys.readouterr().err
    )
