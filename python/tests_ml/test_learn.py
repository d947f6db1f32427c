"""The PyTorch networks exported as BGNN version 2 give the
Rust forward pass's outputs to 1e-4 (parity), the Rust self-play is seeded
and reproducible, and the expert-iteration trainer's quick mode trains,
exports, and its network plays in Rust — reproducibly."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

import korovan_caravan
import korovan_caravan.learn
from korovan_caravan.learn import nn_forward, nn_info, self_play
from korovan_caravan.learn import buffer, expert_iteration
from korovan_caravan.learn.export import to_bytes
from korovan_caravan.learn.nets import CARAVAN_POLICY, KOROVAN_INPUTS, KOROVAN_POLICY, caravan_spec, make_net


def randomize_batch_norms(net: torch.nn.Module, seed: int) -> None:
    """Non-trivial running statistics and affine parameters, so that the
    export's folding is exercised."""
    g = torch.Generator().manual_seed(seed)
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.3)
                m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                m.weight.copy_(torch.rand(m.num_features, generator=g) + 0.5)
                m.bias.copy_(torch.randn(m.num_features, generator=g) * 0.2)


def inputs_of(game_name: str, players: int, rows: int) -> np.ndarray:
    """Real network inputs (from the Rust self-play) and synthetic ones."""
    game = korovan_caravan.load_game(game_name, players=players)
    real = self_play(game, 1, 5, teacher="random")["inputs"][:rows]
    rng = np.random.default_rng(3)
    synthetic = (rng.random((4, real.shape[1])) < 0.2).astype(np.float32) * rng.normal(size=(4, real.shape[1])).astype(
        np.float32
    )
    return np.concatenate([real, synthetic]).astype(np.float32)


@pytest.mark.parametrize("game_name,players", [("caravan", 2), ("korovan", 5)])
def test_pytorch_and_rust_agree_to_1e_4(game_name, players):
    torch.manual_seed(0)
    kw = {"channels": 8, "blocks": 2} if game_name == "caravan" else {}
    net = make_net(game_name, **kw)
    randomize_batch_norms(net, 1)
    net.eval()
    weights = to_bytes(net, game_name, "parity test")
    info = nn_info(weights)
    assert info["game"] == game_name and info["text"] == "parity test"
    assert info["kind"] == ("graph" if game_name == "caravan" else "mlp")
    assert info["parameters"] == sum(p.numel() for p in net.parameters() if p.requires_grad) - sum(
        m.weight.numel() + m.bias.numel() for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d)
    ) + sum(m.num_features for m in net.modules() if isinstance(m, torch.nn.BatchNorm2d))
    x = inputs_of(game_name, players, 12)
    assert x.shape[1] == info["inputs"]
    with torch.no_grad():
        expected = net(torch.from_numpy(x)).numpy()
    got = nn_forward(weights, x)
    assert got.shape == expected.shape == (x.shape[0], info["outputs"])
    assert np.abs(expected).max() > 0.1, "a degenerate network would prove nothing"
    diff = np.abs(got - expected).max()
    assert diff < 1e-4, f"max |rust - torch| = {diff}"


def test_the_default_networks_fit_and_stay_under_2_mb():
    for game_name in ("caravan", "korovan"):
        weights = to_bytes(make_net(game_name), game_name)
        assert len(weights) <= 2 << 20, (game_name, len(weights))
        info = nn_info(weights)
        policy = CARAVAN_POLICY if game_name == "caravan" else KOROVAN_POLICY
        assert info["policy_len"] == policy
    assert caravan_spec().inputs == 2526 + CARAVAN_POLICY and KOROVAN_INPUTS == 303


def test_the_caravan_input_ends_with_the_planners_move():
    """The last 790 entries of Caravan's network input are the one-hot of
    the heuristic's planned move (a compact id): exactly one 1 where the
    seat is to move, and the teacher `heuristic` (sharp) plays that move."""
    game = korovan_caravan.load_game("caravan", players=2, max_turns=20)
    data = self_play(game, 2, 17, teacher="heuristic", sharp=True)
    plan = data["inputs"][:, -CARAVAN_POLICY:]
    assert plan.shape[0] > 10
    assert np.array_equal(plan.sum(axis=1), np.ones(plan.shape[0], np.float32))
    assert np.array_equal(plan, data["policy"]), "the heuristic plays its own plan"
    assert (plan[data["masks"] == False] == 0).all()  # noqa: E712 - the plan is legal


def test_bad_weights_are_value_errors():
    weights = bytearray(to_bytes(make_net("korovan"), "korovan"))
    weights[len(weights) // 2] ^= 0x10
    with pytest.raises(ValueError, match="weights"):
        nn_forward(bytes(weights), np.zeros((1, KOROVAN_INPUTS), np.float32))
    with pytest.raises(ValueError, match="columns"):
        nn_forward(to_bytes(make_net("korovan"), "korovan"), np.zeros((1, 5), np.float32))
    with pytest.raises(ValueError, match="version"):
        nn_info(b"BGNN\x01\x00" + bytes(40))


def test_self_play_is_seeded_and_its_targets_are_consistent():
    game = korovan_caravan.load_game("korovan", players=5)
    a = self_play(game, 6, 11, teacher="heuristic", threads=1)
    b = self_play(game, 6, 11, teacher="heuristic", threads=2)
    c = self_play(game, 6, 12, teacher="heuristic", threads=1)
    for k in ("inputs", "masks", "policy", "value", "seats", "games"):
        assert np.array_equal(a[k], b[k]), k
    assert not np.array_equal(a["inputs"][:50], c["inputs"][:50]) or a["inputs"].shape != c["inputs"].shape
    rows = a["inputs"].shape[0]
    assert rows > 6 and a["masks"].shape == (rows, KOROVAN_POLICY) and a["value"].shape == (rows, 9)
    assert set(np.unique(a["games"])) == set(range(6))
    np.testing.assert_allclose(a["policy"].sum(axis=1), 1.0, atol=1e-5)
    assert not (a["policy"][~a["masks"]] > 0).any(), "targets only on legal actions"
    np.testing.assert_allclose(a["value"].sum(axis=1), 1.0, atol=1e-5)
    assert (a["value"][:, 5:] == 0).all()
    with pytest.raises(ValueError, match="threads"):
        self_play(game, 1, 0, threads=0)
    with pytest.raises(ValueError, match="games"):
        self_play(game, 0, 0)
    with pytest.raises(ValueError, match="teacher"):
        self_play(game, 1, 0, teacher="no-such-agent")


def test_flatmc_h_teaches_a_softmax_of_its_values_that_sharpens_exactly():
    # flatmc-h: every legal action valued by heuristic rollouts; its target
    # is the softmax of the values at one score point, on every legal action.
    game = korovan_caravan.load_game("caravan", players=2, max_turns=6)
    a = self_play(game, 2, 5, teacher="flatmc-h:300", threads=2)
    b = self_play(game, 2, 5, teacher="flatmc-h:300", threads=1)
    assert np.array_equal(a["policy"], b["policy"])
    p, m = a["policy"], a["masks"]
    many = m.sum(axis=1) > 1
    assert many.sum() > 10
    assert (p[m] > 0).all() and not (p[~m] > 0).any(), "a value for every legal action, none elsewhere"
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-5)
    # sharpen(p, k) is the softmax of the same values at 1/k of the temperature
    logits = np.where(m, np.log(np.where(m, p, 1.0)), -np.inf)
    for k in (1.0, 4.0, 20.0):
        q = expert_iteration.sharpen(p.copy(), k)
        z = np.exp(k * (logits - logits.max(axis=1, keepdims=True)))
        np.testing.assert_allclose(q, z / z.sum(axis=1, keepdims=True), atol=1e-5)
    sharp = expert_iteration.sharpen(p.copy(), 1000.0)
    assert np.isfinite(sharp).all() and (sharp.sum(axis=1) > 0.999).all(), "nothing underflows to a zero row"
    assert (sharp.argmax(axis=1) == p.argmax(axis=1)).all()
    zero = np.zeros((2, 5), np.float32)
    assert np.array_equal(expert_iteration.sharpen(zero, 3.0), zero)


def test_the_policy_loss_is_the_masked_cross_entropy_to_the_target():
    torch.manual_seed(3)
    net = make_net("caravan", channels=4, blocks=1).eval()
    game = korovan_caravan.load_game("caravan", players=2, max_turns=6)
    d = self_play(game, 1, 8, teacher="flatmc-h:200")
    x, m = torch.from_numpy(d["inputs"][:16]), torch.from_numpy(d["masks"][:16])
    v, target = torch.from_numpy(d["value"][:16]), torch.from_numpy(d["policy"][:16])
    with torch.no_grad():
        logp = torch.log_softmax(net(x)[:, : m.shape[1]].masked_fill(~m, -1e9), dim=1)
        policy, value = expert_iteration.losses(net, x, m, target, v, 2)
        assert abs(policy.item() - (-(target * logp).sum(dim=1).mean()).item()) < 1e-5
        # a one-hot target: minus the log-probability of its move
        onehot = torch.zeros(m.shape)
        moves = m.float().argmax(dim=1)
        onehot[torch.arange(16), moves] = 1.0
        ce, _ = expert_iteration.losses(net, x, m, onehot, v, 2)
        assert abs(ce.item() - (-logp[torch.arange(16), moves].mean()).item()) < 1e-5
        assert policy.item() > 0 and value.item() > 0


def test_with_an_actor_the_actor_plays_and_the_teacher_labels_its_positions():
    torch.manual_seed(4)
    actor = to_bytes(make_net("caravan", channels=4, blocks=1), "caravan")
    game = korovan_caravan.load_game("caravan", players=2, max_turns=8)
    h = self_play(game, 2, 21, teacher="heuristic", sharp=True, actor=actor, threads=2)
    r = self_play(game, 2, 21, teacher="random", sharp=True, actor=actor, threads=1)
    own = self_play(game, 2, 21, teacher="heuristic", sharp=True)
    # the positions are the actor's whoever labels them; the labels are the teacher's
    assert np.array_equal(h["inputs"], r["inputs"]) and np.array_equal(h["masks"], r["masks"])
    assert not np.array_equal(h["policy"], r["policy"])
    assert h["inputs"].shape != own["inputs"].shape or not np.array_equal(h["inputs"], own["inputs"])
    # the actor's greedy move is played: each position follows from the previous one by it
    # (checked where the actor could not be the heuristic: the labels differ from its argmax)
    out = nn_forward(actor, h["inputs"])[:, : h["masks"].shape[1]]
    greedy = np.where(h["masks"], out, -np.inf).argmax(axis=1)
    labels = h["policy"].argmax(axis=1)
    assert (greedy != labels).any(), "the heuristic's targets are not the actor's moves"
    # the heuristic's label is its own move at that position (sharp one-hot, legal)
    assert np.allclose(h["policy"].sum(axis=1), 1.0) and h["masks"][np.arange(len(labels)), labels].all()
    with pytest.raises(ValueError, match="does not fit"):
        self_play(korovan_caravan.load_game("korovan", players=5), 1, 0, actor=actor)


def test_search_self_play_with_an_exported_network_is_reproducible():
    torch.manual_seed(2)
    weights = to_bytes(make_net("caravan", channels=4, blocks=1), "caravan")
    game = korovan_caravan.load_game("caravan", players=2, max_turns=6)
    a = self_play(game, 2, 7, weights=weights, iterations=4, threads=2)
    b = self_play(game, 2, 7, weights=weights, iterations=4, threads=1)
    for k in ("inputs", "masks", "policy", "value"):
        assert np.array_equal(a[k], b[k]), k
    assert a["policy"].shape[1] == CARAVAN_POLICY and a["inputs"].shape[0] > 10
    assert not (a["policy"][~a["masks"]] > 0).any()
    with pytest.raises(ValueError, match="does not fit"):
        self_play(korovan_caravan.load_game("korovan", players=5), 1, 0, weights=weights)


def test_the_window_keeps_samples_compact_and_gives_them_back_exactly():
    game = korovan_caravan.load_game("caravan", players=2, max_turns=4)
    keys = buffer.SAMPLE_KEYS
    rounds = [{k: d[k] for k in keys} for d in (self_play(game, 1, s, teacher="heuristic") for s in (3, 4))]
    dense = {k: np.concatenate([r[k] for r in rounds]) for k in keys}
    rows = np.random.default_rng(0).permutation(len(dense["inputs"]))
    rows = np.concatenate([rows, rows[:5]])  # any order, repeats too
    kept = [buffer.compact(r) for r in rounds]
    for stored in (kept, [buffer.unpack(buffer.pack(r)) for r in kept]):
        window = buffer.Window(stored)
        assert len(window) == len(dense["inputs"])
        got = window.take(rows)
        for k in keys:
            assert got[k].dtype == dense[k].dtype and np.array_equal(got[k], dense[k][rows]), k
    window = buffer.Window(kept)
    dense_bytes = sum(a.nbytes for a in dense.values())
    assert window.nbytes() < dense_bytes / 4, (window.nbytes(), dense_bytes)
    packed = [buffer.pack(r) for r in kept]
    stored = sum(x.nbytes for p in packed for v in p.values() for x in v if isinstance(x, np.ndarray))
    assert stored < dense_bytes / 4, (stored, dense_bytes)


def test_the_trainer_refuses_bad_settings_before_any_work(tmp_path):
    out = tmp_path / "run"
    for bad in (
        ["--lr", "0"],
        ["--lr", "nan"],
        ["--threads", "0"],
        ["--games", "0"],
        ["--init", str(tmp_path)],
        ["--target-power", "0"],
        ["--target-power", "inf"],
        ["--target-power", "1001"],
        ["--teacher", "no-such-agent"],
        ["--teacher", "flatmc-h:0"],
    ):
        assert expert_iteration.main(["--game", "korovan", "--out", str(out), *bad]) == 2, bad
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert expert_iteration.main(["--game", "korovan", "--out", str(blocker)]) == 2
    assert not out.exists(), "nothing is created before the settings are checked"


def test_quick_expert_iteration_is_reproducible_and_its_network_plays(tmp_path):
    runs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        argv = ["--game", "caravan", "--quick", "--out", str(out), "--seed", "1000000", "--threads", "2"]
        assert expert_iteration.main(argv) == 0
        runs.append((out / "latest.bgnn").read_bytes())
        assert (out / "round-000.bgnn").exists() and (out / "round-001.bgnn").exists()
    assert runs[0] == runs[1], "the same command gives the same weights"
    info = nn_info(runs[0])
    assert info["game"] == "caravan" and info["kind"] == "graph"
    # The exported network plays whole games in Rust (greedy policy inside the search).
    game = korovan_caravan.load_game("caravan", players=2, max_turns=8)
    data = self_play(game, 2, 99, weights=runs[0], iterations=2, threads=2)
    assert data["inputs"].shape[0] > 10
    # Measured against the heuristic by the Rust match (seats rotating).
    shares, players = korovan_caravan.learn.nn_match(game, runs[0], "heuristic", 4, 1_000_000, threads=2)
    assert players == 2 and shares.shape == (4,) and ((shares >= 0) & (shares <= 1)).all()
    again, _ = korovan_caravan.learn.nn_match(game, runs[0], "heuristic", 4, 1_000_000, threads=1, iterations=2)
    assert again.shape == (4,)
    with pytest.raises(ValueError, match="not both"):
        korovan_caravan.learn.nn_match(game, runs[0], "heuristic", 1, 0, iterations=2, millis=2)
    out_json = tmp_path / "weights.bgnn"
    out_json.write_bytes(runs[0])
    from korovan_caravan.learn import evaluate

    assert evaluate.main(["--game", "caravan", "--weights", str(out_json), "--games", "2", "--against", "random"]) == 0
    assert evaluate.main(["--game", "caravan", "--weights", str(tmp_path), "--games", "2"]) == 2
    # Resume: one more round from the checkpoint.
    out = tmp_path / "run0"
    assert expert_iteration.main(["--game", "caravan", "--quick", "--out", str(out), "--seed", "1000000", "--rounds", "3", "--resume"]) == 0
    assert (out / "round-002.bgnn").exists()
    straight = tmp_path / "straight"
    assert expert_iteration.main(["--game", "caravan", "--quick", "--out", str(straight), "--seed", "1000000", "--rounds", "3", "--threads", "2"]) == 0
    assert (straight / "latest.bgnn").read_bytes() == (out / "latest.bgnn").read_bytes(), "a resumed run is the run"

    # The learning curve of the run: every round against fixed opponents, as data and chart.
    from korovan_caravan.learn import curve

    argv = ["--game", "caravan", "--run", str(out), "--against", "random,heuristic", "--games", "2", "--threads", "2"]
    assert curve.main(argv) == 0
    data = __import__("json").loads((out / "curve.json").read_text())
    assert [q["round"] for q in data["points"]] == [0, 1, 2]
    assert data["against"] == ["random", "heuristic"] and data["fair"] == 0.5
    seconds = [q["seconds"] for q in data["points"]]
    assert seconds == sorted(seconds) and seconds[-1] > 0, "training time from the run's log"
    for q in data["points"]:
        for name in ("random", "heuristic"):
            lo, hi = q["against"][name]["interval"]
            assert q["against"][name]["games"] == 2 and 0 <= lo <= q["against"][name]["share"] <= hi <= 1
    assert (out / "curve.svg").read_text().lstrip().startswith("<?xml")
    assert curve.main(argv) == 0, "measured again: the known rounds are kept"
    assert __import__("json").loads((out / "curve.json").read_text()) == data
    assert curve.main(["--game", "caravan", "--run", str(tmp_path / "nowhere")]) == 2
    assert curve.main(["--game", "caravan", "--run", str(out), "--games", "0"]) == 2


def test_the_trainer_refuses_an_init_larger_than_the_format_allows(tmp_path, monkeypatch):
    big = tmp_path / "big.pt"
    big.write_bytes(bytes(64))
    monkeypatch.setattr(expert_iteration, "MAX_INIT_BYTES", 63)
    out = tmp_path / "run"
    assert expert_iteration.main(["--game", "caravan", "--quick", "--out", str(out), "--init", str(big)]) == 2
    assert not out.exists()


@pytest.mark.parametrize("what", ["loss", "parameter"])
def test_a_non_finite_loss_or_parameter_stops_the_run_and_writes_nothing(tmp_path, monkeypatch, what):
    real = expert_iteration.losses

    def broken(net, *args):
        lp, lv = real(net, *args)
        if what == "loss":
            return lp * float("nan"), lv
        with torch.no_grad():
            next(net.parameters()).view(-1)[0] = float("inf")
        return lp, lv

    monkeypatch.setattr(expert_iteration, "losses", broken)
    out = tmp_path / "run"
    assert expert_iteration.main(["--game", "caravan", "--quick", "--out", str(out)]) == 1
    assert sorted(os.listdir(out)) == [], "no weights, no checkpoint of the broken round"
