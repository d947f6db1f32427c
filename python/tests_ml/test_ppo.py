"""The PPO trainer (korovan_caravan.learn.ppo) and the readers of the
shipped networks it starts from (korovan_caravan.learn.export.mlp_from_bytes
and tower_from_bytes): CI's quick mode."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import korovan_caravan
from korovan_caravan.learn import nn_forward, nn_match, ppo, rollout
from korovan_caravan.learn.export import mlp_from_bytes, to_bytes, tower_from_bytes
from korovan_caravan.learn.nets import KOROVAN_INPUTS, TowerNet, make_net

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
SHIPPED = os.path.join(ROOT, "crates", "korovan-core", "weights", "korovan.bgnn")
SHIPPED_TOWER = os.path.join(ROOT, "crates", "caravan-core", "weights", "caravan.bgnn")


def test_the_shipped_korovan_mlp_reads_back_byte_for_byte():
    data = open(SHIPPED, "rb").read()
    net, text = mlp_from_bytes(data)
    assert to_bytes(net, "korovan", text) == data
    x = np.random.default_rng(0).random((16, KOROVAN_INPUTS), dtype=np.float32)
    with torch.no_grad():
        ours = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, nn_forward(data, x), atol=1e-5)


def test_a_file_that_is_not_an_mlp_is_a_value_error():
    data = open(SHIPPED, "rb").read()
    with pytest.raises(ValueError, match="checksum"):
        mlp_from_bytes(data[:-9] + bytes([data[-9] ^ 1]) + data[-8:])
    with pytest.raises(ValueError, match="checksum"):
        mlp_from_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="not a BGNN"):
        mlp_from_bytes(b"PK\x03\x04 something else")
    torch.manual_seed(0)
    tower = to_bytes(make_net("caravan", channels=4, blocks=1), "caravan")
    with pytest.raises(ValueError, match="not part of an MLP"):
        mlp_from_bytes(tower)


def test_the_shipped_caravan_tower_reads_back_byte_for_byte_and_computes_what_rust_does():
    data = open(SHIPPED_TOWER, "rb").read()
    net, text = tower_from_bytes(data)
    assert isinstance(net, TowerNet) and (net.spec.channels, net.spec.blocks, net.spec.hidden) == (16, 2, 64)
    assert '"game": "caravan"' in text, "the training command as text"
    assert to_bytes(net, "caravan", text) == data
    x = np.random.default_rng(1).random((16, net.spec.inputs), dtype=np.float32)
    with torch.no_grad():
        ours = net(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(ours, nn_forward(data, x), atol=1e-4)
    # a tower of another shape reads back too, its shape taken from the file
    torch.manual_seed(0)
    small = make_net("caravan", channels=4, blocks=1, hidden=8)
    for m in small.modules():  # statistics a trained network would have, so that folding does something
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
    small_bytes = to_bytes(small.eval(), "caravan", "small")
    back, _ = tower_from_bytes(small_bytes)
    assert (back.spec.channels, back.spec.blocks, back.spec.hidden) == (4, 1, 8)
    with torch.no_grad():
        np.testing.assert_allclose(back(torch.from_numpy(x)).numpy(), small(torch.from_numpy(x)).numpy(), atol=1e-5)


def test_a_file_that_is_not_a_caravan_tower_is_a_value_error():
    data = open(SHIPPED_TOWER, "rb").read()
    with pytest.raises(ValueError, match="checksum"):
        tower_from_bytes(data[:-9] + bytes([data[-9] ^ 1]) + data[-8:])
    with pytest.raises(ValueError, match="checksum"):
        tower_from_bytes(data[: len(data) // 3])
    with pytest.raises(ValueError, match="not a BGNN"):
        tower_from_bytes(b"")
    with pytest.raises(ValueError, match="not a Caravan tower"):
        tower_from_bytes(open(SHIPPED, "rb").read())
    # the tower's graph written for another game's name
    with pytest.raises(ValueError, match="not a Caravan tower"):
        tower_from_bytes(to_bytes(tower_from_bytes(data)[0], "korovan"))


def test_advantages_bootstrap_from_the_next_value_and_stop_at_a_games_end():
    # one slot, three steps; the game ends at step 1 with reward 1, a new one
    # starts at step 2 and is cut off after it (bootstrapped from `last`)
    rewards = np.array([[0.0], [1.0], [0.0]], np.float32)
    dones = np.array([[0.0], [1.0], [0.0]], np.float32)
    values = np.array([[0.2], [0.5], [0.3]], np.float32)
    last = np.array([0.4], np.float32)
    lam = 0.5
    adv = rollout.advantages(rewards, dones, values, last, lam)
    d2 = 0.0 + 0.4 - 0.3
    d1 = 1.0 - 0.5  # the game ended: nothing after it
    d0 = 0.0 + 0.5 - 0.2
    np.testing.assert_allclose(adv[:, 0], [d0 + lam * d1, d1, d2], atol=1e-6)
    # the buffer's samples: returns are advantages plus values, one row a decision
    buf = rollout.Rollout(3, 1, 2, 4)
    buf.rew[:], buf.done[:], buf.val[:] = rewards, dones, values
    flat = buf.samples(last, lam)
    assert flat["obs"].shape == (3, 2) and flat["mask"].shape == (3, 4)
    np.testing.assert_allclose(flat["ret"].numpy(), adv[:, 0] + values[:, 0], atol=1e-6)


def _quick(out, *extra):
    return ppo.main(["--quick", "--out", str(out), "--seed", "3", *extra])


def test_quick_ppo_is_reproducible_resumes_exactly_and_its_network_plays(tmp_path):
    assert _quick(tmp_path / "a") == 0
    assert _quick(tmp_path / "b") == 0
    a = (tmp_path / "a" / "latest.bgnn").read_bytes()
    assert a == (tmp_path / "b" / "latest.bgnn").read_bytes(), "the same command gives the same weights"
    # stopped after one update and resumed: the same weights as straight through
    assert _quick(tmp_path / "c", "--updates", "1") == 0
    one = (tmp_path / "c" / "latest.bgnn").read_bytes()
    assert _quick(tmp_path / "c", "--updates", "2", "--resume") == 0
    assert (tmp_path / "c" / "latest.bgnn").read_bytes() == a
    assert one != a, "the second update trained on"
    # a trainer's checkpoint is an --init too
    assert _quick(tmp_path / "e", "--init", str(tmp_path / "a" / "checkpoint.pt"), "--updates", "1") == 0
    # from the shipped network: the weights change, and Rust plays them
    assert _quick(tmp_path / "d", "--init", SHIPPED, "--updates", "1") == 0
    tuned = (tmp_path / "d" / "latest.bgnn").read_bytes()
    assert tuned != open(SHIPPED, "rb").read()
    game = korovan_caravan.load_game("korovan", players=5)
    shares, n = nn_match(game, tuned, "heuristic", 20, 1_000_000, 1, None, None)
    assert n == 5 and len(shares) == 20 and 0.0 <= float(np.mean(shares)) <= 1.0


def test_quick_caravan_ppo_fine_tunes_the_shipped_tower_reproducibly_and_its_network_plays(tmp_path):
    """``--game caravan``: the tower from the shipped file, the compact ids,
    a temperature; the same command gives the same weights, a stopped run
    resumes to them, its checkpoint is an ``--init``, and Rust plays the
    file it writes."""
    base = ["--game", "caravan", "--init", SHIPPED_TOWER, "--temperature", "0.5"]
    assert _quick(tmp_path / "a", *base) == 0
    assert _quick(tmp_path / "b", *base) == 0
    tuned = (tmp_path / "a" / "latest.bgnn").read_bytes()
    assert (tmp_path / "b" / "latest.bgnn").read_bytes() == tuned
    assert _quick(tmp_path / "c", *base, "--updates", "1") == 0
    assert _quick(tmp_path / "c", *base, "--resume") == 0
    assert (tmp_path / "c" / "latest.bgnn").read_bytes() == tuned
    shipped = open(SHIPPED_TOWER, "rb").read()
    net, _ = tower_from_bytes(tuned)
    assert (net.spec.channels, net.spec.blocks, net.spec.hidden) == (16, 2, 64), "the shipped tower's shape"
    assert to_bytes(net, "caravan") != to_bytes(tower_from_bytes(shipped)[0], "caravan"), "trained on"
    assert _quick(tmp_path / "a", "--game", "caravan", "--init", str(tmp_path / "a" / "checkpoint.pt"), "--updates", "1") == 0
    # another temperature plays other moves, so it trains other weights
    assert _quick(tmp_path / "d", "--game", "caravan", "--init", SHIPPED_TOWER) == 0
    assert (tmp_path / "d" / "latest.bgnn").read_bytes() != tuned
    # a fresh (small, in quick mode) tower
    assert _quick(tmp_path / "e", "--game", "caravan") == 0
    fresh, _ = tower_from_bytes((tmp_path / "e" / "latest.bgnn").read_bytes())
    assert (fresh.spec.channels, fresh.spec.blocks, fresh.spec.hidden) == (4, 1, 16)
    game = korovan_caravan.load_game("caravan", players=2)
    shares, n = nn_match(game, tuned, "heuristic", 4, 1_000_000, 1, None, None)
    assert n == 2 and len(shares) == 4 and 0.0 <= float(np.mean(shares)) <= 1.0


def test_ppo_refuses_bad_settings_before_any_work(tmp_path):
    out = tmp_path / "run"
    tower = tmp_path / "tower.bgnn"
    torch.manual_seed(0)
    tower.write_bytes(to_bytes(make_net("caravan", channels=4, blocks=1), "caravan"))
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint")
    for bad in (
        ["--lr", "0"],
        ["--lr", "nan"],
        ["--clip", "-1"],
        ["--gae-lambda", "2"],
        ["--envs", "0"],
        ["--steps", "0"],
        ["--players", "2"],
        ["--opponents", "no-such-agent"],
        ["--init", str(tmp_path)],
        ["--resume"],
        ["--updates", "10", "--lr-decay-from", "10"],
        ["--lr-decay-from", "-1"],
        ["--temperature", "0"],
        ["--temperature", "inf"],
        ["--game", "caravan", "--players", "5"],
        ["--game", "caravan", "--critic", "all-seats"],
        ["--game", "caravan", "--channels", "0"],
        ["--game", "caravan", "--blocks", "-1"],
    ):
        assert ppo.main(["--out", str(out), *bad]) == 2, bad
    assert not out.exists(), "nothing is created before the settings are checked"
    for bad in (
        ["--init", str(tower)],
        ["--init", str(junk)],
        ["--game", "caravan", "--init", SHIPPED],
        ["--game", "caravan", "--init", str(junk)],
    ):
        assert ppo.main(["--out", str(out), "--quick", *bad]) == 2, bad
    assert not (out / "latest.bgnn").exists()


def test_the_learning_rate_is_constant_then_falls_linearly_to_zero_after_the_last_update():
    a = ppo.parser().parse_args(["--out", "x", "--lr", "0.4", "--updates", "10"])
    assert [ppo.learning_rate(a, u) for u in (0, 5, 9)] == [0.4, 0.4, 0.4]
    a = ppo.parser().parse_args(["--out", "x", "--lr", "0.4", "--updates", "10", "--lr-decay-from", "6"])
    rates = [ppo.learning_rate(a, u) for u in range(10)]
    assert rates[:7] == [0.4] * 7, "full rate up to and at the update the decay starts from"
    assert rates[7:] == pytest.approx([0.3, 0.2, 0.1]), "then a quarter less each update, never zero in a used update"


def test_a_decaying_learning_rate_trains_other_weights_and_resumes_exactly(tmp_path):
    assert _quick(tmp_path / "a", "--lr-decay-from", "0") == 0
    assert _quick(tmp_path / "b", "--lr-decay-from", "0", "--updates", "1") == 0
    assert _quick(tmp_path / "b", "--lr-decay-from", "0", "--resume") == 0
    decayed = (tmp_path / "a" / "latest.bgnn").read_bytes()
    assert (tmp_path / "b" / "latest.bgnn").read_bytes() == decayed
    assert _quick(tmp_path / "c") == 0
    assert (tmp_path / "c" / "latest.bgnn").read_bytes() != decayed


def test_the_curve_measures_every_kept_update_of_a_ppo_run(tmp_path):
    from korovan_caravan.learn import curve

    run = tmp_path / "run"
    assert _quick(run, "--keep-every", "1") == 0
    assert sorted(p.name for p in run.glob("update-*.bgnn")) == ["update-00001.bgnn", "update-00002.bgnn"]
    argv = ["--game", "korovan", "--run", str(run), "--against", "random", "--games", "5", "--threads", "1"]
    assert curve.main(argv) == 0
    data = __import__("json").loads((run / "curve.json").read_text())
    assert [p["round"] for p in data["points"]] == [1, 2]
    log = torch.load(run / "checkpoint.pt", weights_only=False)["log"]
    assert [p["games"] for p in data["points"]] == [log[0]["games"], log[0]["games"] + log[1]["games"]]
    assert [p["seconds"] for p in data["points"]] == [log[0]["seconds"], log[1]["seconds"]]
    assert all(p["against"]["random"]["games"] == 5 for p in data["points"])


def test_a_privileged_critic_trains_other_weights_resumes_exactly_and_stays_out_of_the_network(tmp_path):
    """``--critic all-seats``: advantages from a critic over every seat's
    tensor. The exported network is still the policy's MLP over the seat's
    own tensor (what ``learned`` reads), the run is reproducible and
    resumes exactly, and a checkpoint of the other kind is refused."""
    assert _quick(tmp_path / "a", "--critic", "all-seats") == 0
    assert _quick(tmp_path / "b", "--critic", "all-seats", "--updates", "1") == 0
    assert _quick(tmp_path / "b", "--critic", "all-seats", "--resume") == 0
    critic = (tmp_path / "a" / "latest.bgnn").read_bytes()
    assert (tmp_path / "b" / "latest.bgnn").read_bytes() == critic
    ck = torch.load(tmp_path / "a" / "checkpoint.pt", weights_only=False)
    first = ck["critic"]["body.0.weight"]
    assert first.shape[1] == 5 * KOROVAN_INPUTS, "the critic reads the five seats' tensors"
    assert all("critic" in entry for entry in ck["log"])
    net, _ = mlp_from_bytes(critic)
    assert net.inputs == KOROVAN_INPUTS
    assert _quick(tmp_path / "c") == 0
    assert (tmp_path / "c" / "latest.bgnn").read_bytes() != critic, "the critic's advantages train other weights"
    # a run with a critic resumed without one, and the other way round: usage errors, nothing written
    for run, extra in (("a", []), ("c", ["--critic", "all-seats"])):
        before = (tmp_path / run / "latest.bgnn").read_bytes()
        assert _quick(tmp_path / run, "--updates", "3", "--resume", *extra) == 2
        assert (tmp_path / run / "latest.bgnn").read_bytes() == before
    assert ppo.main(["--out", str(tmp_path / "d"), "--critic-hidden", "64"]) == 2, "--critic-hidden alone"
    assert ppo.main(["--out", str(tmp_path / "d"), "--critic", "all-seats", "--critic-hidden", "0"]) == 2
    assert not (tmp_path / "d").exists()


def test_a_loss_that_is_not_finite_stops_the_step_before_anything_changes():
    """Both trainers step through ``runs.optimizer_step``: a non-finite
    loss is an error naming where it happened, and neither the weights nor
    the optimiser's state move."""
    from korovan_caravan.learn import runs

    torch.manual_seed(0)
    lin = torch.nn.Linear(3, 1)
    opt = torch.optim.Adam(lin.parameters(), lr=0.1)
    before = [p.detach().clone() for p in lin.parameters()]
    x = torch.ones(2, 3)
    for bad in (float("nan"), float("inf")):
        loss = lin(x).sum() * bad
        with pytest.raises(RuntimeError, match=r"update 7: the critic's loss is not finite .*nothing written"):
            runs.optimizer_step(opt, lin.parameters(), loss, 0.5, "update 7", "the critic's loss")
        assert all(torch.equal(a, b) for a, b in zip(before, lin.parameters()))
        assert not opt.state, "the optimiser took no step"
    runs.optimizer_step(opt, lin.parameters(), lin(x).sum(), 0.5, "round 0")
    assert not all(torch.equal(a, b) for a, b in zip(before, lin.parameters())), "a finite loss steps"
    grads = torch.cat([p.grad.flatten() for p in lin.parameters()])
    assert float(grads.norm()) <= 0.5 + 1e-6, "the gradients were clipped to the norm given"


def test_the_caravan_recipe_runs_its_three_steps_once_and_resumes_a_stopped_one(tmp_path, capsys):
    """``learn.recipe`` (quick mode): distillation, then the two PPO runs,
    each from the one before; a finished step is skipped, a stopped one
    resumed, and the network comes out the same."""
    from korovan_caravan.learn import recipe

    out = tmp_path / "recipe"
    argv = ["--game", "caravan", "--out", str(out), "--threads", "1", "--quick"]
    assert recipe.main(argv) == 0
    for step in ("distil", "ppo1", "ppo2"):
        assert (out / step / "done").is_file(), step
    assert (out / "distil" / "round-001.bgnn").is_file()
    network = (out / "ppo2" / "latest.bgnn").read_bytes()
    tower, text = tower_from_bytes(network)
    assert '"temperature": 0.5' in text and '"seed": 1' in text, "the last step's settings"
    assert recipe.main(argv) == 0
    said = capsys.readouterr().out
    assert said.count("done before, skipped") == 3, said
    # the last step stopped half-way: only its checkpoint is left; it resumes to the same network
    (out / "ppo2" / "done").unlink()
    assert recipe.main(argv) == 0
    assert "== ppo2: resumed" in capsys.readouterr().out
    assert (out / "ppo2" / "latest.bgnn").read_bytes() == network
    # the last step lost entirely: it starts again from the step before and gives the same network
    for f in (out / "ppo2").iterdir():
        f.unlink()
    assert recipe.main(argv) == 0
    assert "== ppo2: started" in capsys.readouterr().out
    assert (out / "ppo2" / "latest.bgnn").read_bytes() == network
    assert recipe.main(["--game", "caravan", "--out", str(out), "--threads", "0"]) == 2
    assert recipe.main(["--game", "caravan", "--out", str(out / "ppo2" / "latest.bgnn" / "x")]) == 2
