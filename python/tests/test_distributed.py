"""korovan_caravan.distributed: shards played as Ray tasks and merged equal the
single-machine `boardgame simulate --json` and `boardgame ladder --json` of
the same arguments."""

import json
import os
import subprocess

import pytest

from korovan_caravan import _korovan_caravan, distributed


def binary_json(binary, game, games, agents, seed, players=None, config=None, shard=None):
    cmd = [binary, "simulate", game, "--games", str(games), "--agents", agents, "--seed", str(seed), "--json", "-q"]
    if players is not None:
        cmd += ["--players", str(players)]
    if config is not None:
        cmd += ["--config", json.dumps(config)]
    if shard is not None:
        cmd += ["--shard", f"{shard[0]}/{shard[1]}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def binary_ladder_json(binary, game, agents, players, deals, seed, config=None, shard=None):
    cmd = [binary, "ladder", game, "--agents", agents, "--players", ",".join(map(str, players))]
    cmd += ["--deals", str(deals), "--seed", str(seed), "--json", "-q"]
    if config is not None:
        cmd += ["--config", json.dumps(config)]
    if shard is not None:
        cmd += ["--shard", f"{shard[0]}/{shard[1]}"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


# Small runs: the suite also runs on debug builds (BOARDGAMES_PROFILE=dev).
LADDERS = [
    dict(game="caravan", agents="random,heuristic", players=[2], deals=4, seed=9, config={"max_turns": 30}),
    dict(game="korovan", agents="random,heuristic", players=[3, 4], deals=4, seed=5),
]
RUNS = [
    dict(game="korovan", games=24, agents="heuristic,random", seed=5, players=4),
    dict(game="caravan", games=10, agents="random", seed=3, players=3, config={"max_turns": 30}),
]


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["game"])
def test_local_shards_are_the_binary_shards(binary, run):
    """Without Ray: one shard from Python is the binary's shard file, and the
    merge of all shards is the binary's unsharded result."""
    whole = binary_json(binary, **run)
    assert distributed.simulate_local(**run) == whole
    k = 3
    parts = [distributed.simulate_local(**run, shard=(i, k)) for i in range(k)]
    assert parts[1] == binary_json(binary, **run, shard=(1, k))
    merged = json.loads(_korovan_caravan.merge_results([json.dumps(p) for p in parts]))
    assert merged == whole
    # overlapping shards are refused, as `boardgame merge` refuses them
    with pytest.raises(ValueError, match="overlap"):
        _korovan_caravan.merge_results([json.dumps(parts[0]), json.dumps(parts[0])])


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="unknown game"):
        distributed.simulate_local("chess", games=1)
    with pytest.raises(ValueError, match="unknown agent"):
        distributed.simulate_local("korovan", games=1, agents="randy")
    with pytest.raises(ValueError, match="unknown field"):
        distributed.simulate_local("caravan", games=1, config={"max_turn": 3})
    with pytest.raises(ValueError):
        distributed.simulate_local("korovan", games=1, shard=(2, 2))
    with pytest.raises(ValueError, match="no results"):
        _korovan_caravan.merge_results([])


@pytest.fixture(scope="module")
def ray_local():
    try:
        import ray
    except ImportError:
        if os.environ.get("BOARDGAMES_REQUIRE_RAY"):
            pytest.fail("ray is not installed (pip install './python[ray]')")
        pytest.skip("ray is not installed (the `ray` extra)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_ray_run_equals_the_binary(binary, ray_local):
    for run in RUNS:
        want = binary_json(binary, **run)
        for shards in (1, 3):
            assert distributed.simulate(**run, shards=shards) == want, (run, shards)
    # more shards than games: some shards are empty, the merge is the same
    run = dict(game="korovan", games=3, agents="random", seed=7, players=3)
    assert distributed.simulate(**run, shards=5) == binary_json(binary, **run)
    # the default: one shard per CPU
    assert distributed.simulate(**run) == binary_json(binary, **run)
    with pytest.raises(ValueError, match="unknown agent"):
        distributed.simulate("korovan", games=4, agents="randy")


@pytest.mark.parametrize("run", LADDERS, ids=lambda r: r["game"])
def test_local_ladder_shards_are_the_binary_shards(binary, run):
    """Without Ray: one shard of a ladder from Python is the binary's shard
    file, and the merge of all shards is the binary's unsharded ladder."""
    whole = binary_ladder_json(binary, **run)
    assert distributed.ladder_local(**run) == whole
    assert [c["players"] for c in whole["counts"]] == run["players"]
    k = 3
    parts = [distributed.ladder_local(**run, shard=(i, k)) for i in range(k)]
    assert parts[1] == binary_ladder_json(binary, **run, shard=(1, k))
    assert parts[2] == binary_ladder_json(binary, **run, shard=(2, k))
    merged = json.loads(_korovan_caravan.merge_results([json.dumps(p) for p in parts]))
    assert merged == whole
    # overlapping shards are refused, as `boardgame ladder --merge` refuses them
    with pytest.raises(ValueError, match="already counted"):
        _korovan_caravan.merge_results([json.dumps(parts[0]), json.dumps(parts[0])])


def test_ladders_and_simulations_do_not_merge_together():
    ladder = distributed.ladder_local(**LADDERS[0])
    sim = distributed.simulate_local(**RUNS[1])
    with pytest.raises(ValueError, match="different kinds"):
        _korovan_caravan.merge_results([json.dumps(ladder), json.dumps(sim)])


def test_bad_ladder_arguments_are_refused_clearly():
    with pytest.raises(ValueError, match="unknown game"):
        distributed.ladder_local("chess", agents="random,heuristic", players=[2], deals=1)
    with pytest.raises(ValueError, match="unknown agent"):
        distributed.ladder_local("caravan", agents="random,randy", players=[2], deals=1)
    with pytest.raises(ValueError, match="at least two agents"):
        distributed.ladder_local("caravan", agents="random", players=[2], deals=1)
    with pytest.raises(ValueError, match="between 2 and 4"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[5], deals=1)
    with pytest.raises(ValueError, match="listed twice"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[2, 2], deals=1)
    with pytest.raises(ValueError, match="player count"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[], deals=1)
    with pytest.raises(ValueError, match="unknown field"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[2], deals=1, config={"max_turn": 3})
    with pytest.raises(ValueError, match="shard"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[2], deals=1, shard=(2, 2))
    with pytest.raises(ValueError, match="deals -1 is out of range"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[2], deals=-1)
    with pytest.raises(ValueError, match="threads"):
        distributed.ladder_local("caravan", agents="random,heuristic", players=[2], deals=1, threads=0)
    with pytest.raises(TypeError, match="players must be a list"):
        _korovan_caravan.ladder_json("caravan", "random,heuristic", 2, deals=1)
    with pytest.raises(TypeError, match="players must be a list"):
        _korovan_caravan.ladder_json("caravan", "random,heuristic", "2", deals=1)
    with pytest.raises(TypeError, match="player count must be an integer"):
        _korovan_caravan.ladder_json("caravan", "random,heuristic", [2.0], deals=1)
    with pytest.raises(TypeError, match="shard must be a tuple"):
        _korovan_caravan.ladder_json("caravan", "random,heuristic", [2], deals=1, shard="0/2")


def test_ladder_defaults_are_the_binarys(binary):
    """``deals`` and ``seed`` default to the binary's 100 and 1000000 (the
    run checked on a single shard of 50, to keep it small)."""
    run = dict(game="caravan", agents="random,heuristic", players=[2])
    want = binary_ladder_json(binary, **run, deals=100, seed=1_000_000, config={"max_turns": 30}, shard=(49, 50))
    got = distributed.ladder_local(**run, config={"max_turns": 30}, shard=(49, 50))
    assert got == want and got["seeds"] == [[1_000_098, 1_000_100]]


def test_ray_ladder_equals_the_binary(binary, ray_local):
    for run in LADDERS:
        want = binary_ladder_json(binary, **run)
        for shards in (1, 3):
            assert distributed.ladder(**run, shards=shards) == want, (run, shards)
    # more shards than deals: some shards are empty, the merge is the same
    run = LADDERS[0]
    assert distributed.ladder(**run, shards=6) == binary_ladder_json(binary, **run)
    with pytest.raises(ValueError, match="unknown agent"):
        distributed.ladder("caravan", agents="random,randy", players=[2], deals=4)
