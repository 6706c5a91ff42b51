"""``attnviz bench``'s handling: it keeps an existing report unless told, and a part that fails is
reported while the others are kept. The whole ``--quick`` run and its report's shape are checked
once, from the installed wheel (tests/test_packaging.py with tests/bench_report.py)."""

import json

import pytest

from visualizer.cli.attnviz import main

pytestmark = pytest.mark.slow  # runs parts of the benchmark


def test_bench_refuses_to_overwrite_its_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    out.write_text("keep me")
    assert main(["bench", "--quick", "--only", "startup", "--json", str(out)]) == 2
    assert out.read_text() == "keep me"
    assert "--overwrite" in capsys.readouterr().err


def test_a_part_that_fails_is_reported_and_the_others_kept(monkeypatch, tmp_path, capsys):
    import visualizer.bench as bench

    def broken(quick, progress, unavailable):
        raise RuntimeError("the app did not start (exit 2): no display")

    monkeypatch.setitem(bench.MEASURES, "startup", broken)
    monkeypatch.setitem(bench.MEASURES, "steps", lambda quick, progress, unavailable: {"step_ms": 0.5})
    out = tmp_path / "b.json"
    assert main(["bench", "--quick", "--only", "steps", "--only", "startup", "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["metrics"] == {"step_ms": 0.5} and report["step_ms"] == 0.5
    assert (
        report["unavailable"]["startup"] == "failed: RuntimeError: the app did not start (exit 2): no display"
    )
    assert report["budgets"]["startup_s"]["met"] is None
    assert "startup failed" in capsys.readouterr().err
