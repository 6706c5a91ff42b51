"""``attnviz train --data``: the user's own pairs, bad lines reported by number and skipped, a
vocabulary built from the data, a held-out share, and a checkpoint the app opens."""

from __future__ import annotations

import pytest

from model.tasks.user_data import load_user_data, read_pairs
from visualizer.cli.attnviz import main

GOOD = [("abc", "cba"), ("hello", "olleh"), ("你好", "好你"), ("a b", "b a")]


def write(path, text: str | bytes):
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_bad_lines_are_reported_by_number_and_skipped(tmp_path):
    lines = [
        "\ufeffabc\tcba",  # a byte-order mark is not part of the first source
        "hello\tolleh\r",  # Windows line ends
        "",
        "no tab here",
        "x\ty\tz",
        "\tempty source",
        "empty target\t",
        "你好\t好你",
        "a" * 70 + "\tlong",
        "a b\tb a",
        *[f"{w}\t{w[::-1]}" for w in ("dog", "cat", "owl")],
    ]
    path = write(tmp_path / "pairs.tsv", "\n".join(lines).encode("utf-8") + b"\n\xff\xfe\tbad\n")
    result = read_pairs(path, max_len=64)
    assert result.pairs == [*GOOD, ("dog", "god"), ("cat", "tac"), ("owl", "lwo")]
    reasons = {bad.number: bad.reason for bad in result.bad}
    assert reasons == {
        4: "no tab between the source and the target",
        5: "2 tabs: a line holds one source and one target",
        6: "the source is empty",
        7: "the target is empty",
        9: "70 characters; this model reads at most 63",
        14: "not UTF-8 at byte 1",
    }
    assert "line 4: no tab" in result.report() and "skipped 6 bad line(s)" in result.report()


def test_files_that_are_not_pairs_are_refused(tmp_path):
    with pytest.raises(ValueError, match="holds no source<TAB>target pairs"):
        read_pairs(write(tmp_path / "empty.tsv", "\n\n"), 64)
    with pytest.raises(ValueError, match="mostly not source<TAB>target lines"):
        read_pairs(write(tmp_path / "prose.txt", "one line\ntwo lines\na\tb\n"), 64)
    with pytest.raises(ValueError, match="cannot read"):
        read_pairs(tmp_path / "missing.tsv", 64)


def test_held_out_share_or_file_and_the_vocabulary(tmp_path):
    pairs = [(f"w{i}", f"{i}w") for i in range(40)]
    path = write(tmp_path / "p.tsv", "\n".join(f"{s}\t{t}" for s, t in pairs))
    data, reports = load_user_data(path, 64, held_out_share=0.1, seed=3)
    assert len(data.held_out) == 4 and len(data.train) == 36 and not reports
    assert sorted(data.train + data.held_out) == sorted(pairs)
    assert load_user_data(path, 64, held_out_share=0.1, seed=3)[0] == data  # the same split again
    assert set(data.tokenizer().tokens[4:]) == set("w0123456789")
    val = write(tmp_path / "v.tsv", "zz\tzz\nno tab\nyy\tyy\nxx\txx")
    data, reports = load_user_data(path, 64, val=val)
    assert data.held_out == [("zz", "zz"), ("yy", "yy"), ("xx", "xx")] and len(data.train) == 40
    assert "line 2" in reports[0] and data.skipped == 1
    assert "z" in data.tokenizer().tokens  # held-out characters are in the vocabulary too


def test_training_on_the_users_pairs_writes_a_checkpoint_the_app_reads(tmp_path, capsys):
    import json

    from model.registry import open_model
    from model.tasks.train import load_trained

    rows = [f"{w}\t{w[::-1]}" for w in ("abcd", "dcab", "bad", "cab", "abba", "dab", "bcd", "cdab")] * 5
    path = write(tmp_path / "mine.tsv", "\n".join(rows + ["oops"]))
    out = tmp_path / "mine.safetensors"
    args = ["train", "--config", "tiny", "--steps", "6", "--data", str(path), "--out", str(out)]
    assert main([*args, "--stop-after", "3"]) == 0
    assert main([*args, "--resume"]) == 0
    captured = capsys.readouterr()
    assert "skipped 1 bad line(s): line 41: no tab" in captured.err
    assert "data " in captured.out  # the held-out exact-match row
    _model, info = load_trained(out)
    assert info["data"] == {"file": "mine.tsv", "pairs": 38, "held_out": 2, "skipped_lines": 1}
    assert "trained_on" not in info and info["steps_done"] == 6
    family = open_model(out, "cpu")
    assert set(family.tokenizer.tokens[4:]) == set("abcd")
    assert json.loads(json.dumps(family.metadata["eval"]))["data"]["n"] == 2


def test_data_mistakes_are_one_line(tmp_path, capsys):
    out = str(tmp_path / "x.safetensors")
    assert main(["train", "--config", "tiny", "--val", str(tmp_path / "v.tsv"), "--out", out]) == 2
    assert "--val needs --data" in capsys.readouterr().err
    prose = write(tmp_path / "prose.txt", "just words\nmore words\n")
    assert main(["train", "--config", "tiny", "--data", str(prose), "--out", out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no source<TAB>target pairs" in err
