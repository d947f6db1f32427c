"""A trained file is an agent: ``learned@FILE``, ``learned:T@FILE`` and
``learned-ismcts:N@FILE`` play a weights file wherever an agent is named
(``Agent``, ``evaluation.play_game``), as the committed network plays, and a
bad file is a ``ValueError`` naming the file."""

import pathlib

import pytest
from conftest import SHORT

import korovan_caravan
from korovan_caravan.evaluation import play_game

ROOT = pathlib.Path(__file__).resolve().parents[2]
WEIGHTS = {name: ROOT / "crates" / f"{name}-core" / "weights" / f"{name}.bgnn" for name in ("korovan", "caravan")}
# The networks of a player count of their own, which `learned` plays at that count.
OWN = {("korovan", 4): ROOT / "crates" / "korovan-core" / "weights" / "korovan-4p.bgnn"}


def game_of(name, players):
    return korovan_caravan.load_game(name, players=players, **SHORT[name])


@pytest.mark.parametrize("name,players", [("korovan", 5), ("korovan", 4), ("caravan", 2)])
def test_a_weights_file_plays_as_the_committed_network(name, players, tmp_path):
    """At the default network's count and at a count with a network of its own."""
    path = tmp_path / f"{name}.bgnn"
    path.write_bytes(OWN.get((name, players), WEIGHTS[name]).read_bytes())
    game = game_of(name, players)
    for spec in ("learned", "learned:0.5", "learned-ismcts:6"):
        by_file = f"{spec}@{path}"
        agent = korovan_caravan.Agent(game, by_file, seed=3)
        assert agent.name == by_file
        names = [by_file] + ["heuristic"] * (players - 1)
        committed = [spec] + ["heuristic"] * (players - 1)
        assert play_game(game, names, 5).history() == play_game(game, committed, 5).history(), spec


def test_a_bad_weights_file_is_a_value_error_naming_it(tmp_path):
    game = game_of("caravan", 2)
    missing = tmp_path / "missing.bgnn"
    with pytest.raises(ValueError, match="missing.bgnn cannot be read"):
        korovan_caravan.Agent(game, f"learned@{missing}")
    junk = tmp_path / "junk.bgnn"
    junk.write_bytes(b"not a network")
    with pytest.raises(ValueError, match=r"junk.bgnn: not a weights file"):
        korovan_caravan.Agent(game, f"learned-ismcts:4@{junk}")
    other = tmp_path / "korovan.bgnn"
    other.write_bytes(WEIGHTS["korovan"].read_bytes())
    with pytest.raises(ValueError, match="korovan.bgnn"):
        korovan_caravan.Agent(game, f"learned@{other}")
    with pytest.raises(ValueError, match="only learned and learned-ismcts play a weights file"):
        korovan_caravan.Agent(game, f"heuristic@{other}")
    with pytest.raises(ValueError, match="learned@FILE"):
        korovan_caravan.Agent(game, "learned:runs/quick/latest.bgnn")
