"""The single-learner environments under Stable-Baselines3 / sb3-contrib
(the ML stage, scripts/test-ml.sh): the VecEnv adapter, a MaskablePPO smoke
training, and the training examples in their quick mode."""

import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.vec_env import VecEnv  # noqa: E402

from korovan_caravan.learner import LearnerEnv, LearnerVectorEnv  # noqa: E402
from korovan_caravan.sb3 import SB3VecEnv  # noqa: E402

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
torch.set_num_threads(1)


def test_adapter_is_an_sb3_vecenv_with_masks():
    venv = SB3VecEnv(LearnerVectorEnv("korovan", num_envs=6, players=5, opponents="heuristic", seat=None, seed=0))
    assert isinstance(venv, VecEnv) and venv.num_envs == 6
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (6, *venv.observation_space.shape)
    masks = get_action_masks(venv)
    assert masks.shape == (6, venv.action_space.n) and masks.dtype == np.bool_ and masks.any(axis=1).all()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(200):
        masks = get_action_masks(venv)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        assert len(infos) == 6 and rewards.dtype == np.float32
        for i in np.flatnonzero(dones):
            ended += 1
            assert infos[i]["terminal_observation"].shape == venv.observation_space.shape
            assert infos[i]["episode"]["l"] > 0 and 0.0 <= infos[i]["share"] <= 1.0
    assert ended > 0 and len(venv.shares) == ended
    with pytest.raises(TypeError):
        SB3VecEnv(LearnerEnv("korovan", players=3))


def test_sb3_check_env_on_the_single_env():
    from stable_baselines3.common.env_checker import check_env

    check_env(LearnerEnv("caravan", players=2, opponents="random", seed=0, max_turns=30), warn=False)
    check_env(LearnerEnv("korovan", players=5, opponents="random", seat=None, seed=0), warn=False)


@pytest.mark.parametrize("game,players,config", [("korovan", 5, {}), ("caravan", 2, {"max_turns": 60})])
def test_maskable_ppo_smoke_training(game, players, config):
    """A few hundred steps of MaskablePPO on the batched env; illegal="raise"
    makes any unmasked choice an error, so the masks are honoured."""
    env = LearnerVectorEnv(game, num_envs=8, players=players, opponents="random", seat=None, reward="zero_sum",
                           illegal="raise", seed=1, **config)
    venv = SB3VecEnv(env)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(512)
    assert model.num_timesteps >= 512
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters()))
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
    assert get_action_masks(venv)[np.arange(8), actions].all()


def test_maskable_ppo_on_the_single_env():
    model = MaskablePPO("MlpPolicy", LearnerEnv("korovan", players=3, seed=0), n_steps=64, batch_size=64,
                        n_epochs=1, seed=0, device="cpu", policy_kwargs={"net_arch": [16]})
    model.learn(128)
    assert model.num_timesteps >= 128


@pytest.mark.parametrize("script", ["train_korovan.py", "train_caravan.py"])
def test_example_quick_mode(script, tmp_path):
    out = tmp_path / "curve.json"
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), "--quick", "--out", str(out)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    import json

    result = json.loads(out.read_text())
    assert result["steps"] >= 3000 and result["episodes"] > 0
    assert len(result["curve"]) >= 2
    for opp in ("random", "heuristic"):
        r = result["final"][opp]
        assert 0.0 <= r["low"] <= r["share"] <= r["high"] <= 1.0 and r["games"] == 64
    assert "final vs heuristic" in proc.stdout


def test_evaluate_policy_plays_an_sb3_model_against_the_bots():
    from korovan_caravan.evaluation import evaluate_policy, sb3_policy

    venv = SB3VecEnv(LearnerVectorEnv("korovan", num_envs=4, players=3, opponents="random", seed=0))
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [16]})
    model.learn(64)
    assert len(venv.shares) == len([s for s in venv.shares if 0.0 <= s <= 1.0])
    r = evaluate_policy(sb3_policy(model), "korovan", players=3, opponents="random", games=24, seed=0)
    assert r.games == 24 and r.wins + r.draws + r.losses == 24
    lo, hi = r.share_interval
    assert 0.0 <= lo <= r.share <= hi <= 1.0
    # deterministic: the same games give the same result
    again = evaluate_policy(sb3_policy(model), "korovan", players=3, opponents="random", games=24, seed=0)
    assert np.array_equal(r.shares, again.shares)


def test_vec_normalize_works_on_the_adapter_with_the_declared_bounds():
    """SB3's VecNormalize (the normalisation SB3 users reach for) runs on
    SB3VecEnv, and the observations it normalises lie in the declared box."""
    from stable_baselines3.common.vec_env import VecNormalize

    inner = LearnerVectorEnv("caravan", num_envs=4, players=2, opponents="random", seed=0)
    venv = VecNormalize(SB3VecEnv(inner), norm_reward=False)
    space = inner.single_observation_space
    obs = venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        raw = venv.get_original_obs()
        assert all(space.contains(row) for row in raw)
        obs, rewards, dones, infos = venv.step(inner.sample_legal(rng))
    assert np.all(np.isfinite(obs)) and np.abs(obs).max() <= venv.clip_obs
    assert venv.obs_rms.count > 40
