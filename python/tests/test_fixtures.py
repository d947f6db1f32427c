"""The suite's own fixtures: the `boardgame` binary is looked up where cargo
put it."""

from conftest import _boardgame_binary


def test_the_binary_is_found_under_cargo_target_dir(tmp_path, monkeypatch):
    exe = tmp_path / "debug" / "boardgame"
    exe.parent.mkdir()
    exe.write_text("")
    monkeypatch.delenv("BOARDGAME_BIN", raising=False)
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path))
    assert _boardgame_binary() == str(exe)
    release = tmp_path / "release" / "boardgame"
    release.parent.mkdir()
    release.write_text("")
    assert _boardgame_binary() == str(release), "a release build is preferred"


def test_boardgame_bin_wins(tmp_path, monkeypatch):
    monkeypatch.setenv("CARGO_TARGET_DIR", str(tmp_path))
    monkeypatch.setenv("BOARDGAME_BIN", "/somewhere/boardgame")
    assert _boardgame_binary() == "/somewhere/boardgame"
