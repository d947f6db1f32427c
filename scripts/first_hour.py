"""The researcher's first hour, replayed by scripts/first-hour.sh: the
Gymnasium registry with ``check_env`` and ``make``'s documented defaults,
``make_vec``, PettingZoo's API
test on both of Caravan's action spaces and on Korovan, and a policy
evaluated against the built-in agents with its interval. Each step prints
what it did and how long it took; any failure exits non-zero."""

from __future__ import annotations

import time
import warnings

import numpy as np


def step(title):
    def wrap(fn):
        start = time.perf_counter()
        detail = fn()
        print(f"ok  {title}: {detail} ({time.perf_counter() - start:.1f}s)", flush=True)

    return wrap


def main():
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    import korovan_caravan  # registers the Gymnasium ids

    @step("gymnasium.make + check_env, both games")
    def _():
        made = []
        for env_id, kwargs in [
            ("korovan_caravan/Korovan-v0", {"players": 5, "opponents": "heuristic", "reward": "zero_sum"}),
            ("korovan_caravan/Caravan-v0", {"players": 2, "opponents": "random"}),
        ]:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # a newcomer's first env warns about nothing
                env = gymnasium.make(env_id, **kwargs)
                check_env(env.unwrapped, skip_render_check=True)
            obs, info = env.reset(seed=0)
            assert env.observation_space.contains(obs)
            done = False
            while not done:
                obs, reward, done, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
            made.append(f"{env_id} {env.action_space} share {info['share']:.2f}")
        return "; ".join(made)

    @step("gymnasium.make's defaults are the documented ones")
    def _():
        import pathlib

        from korovan_caravan import registration

        doc = (pathlib.Path(__file__).resolve().parents[1] / "docs" / "python.md").read_text(encoding="utf-8")
        for text, where in ((doc, "docs/python.md"), (registration.__doc__, "korovan_caravan.registration")):
            for fact in ("5 for Korovan, 3 for Caravan", "seat=0", "seat=None", 'reward="shares"', "players=2"):
                assert fact in " ".join(text.split()), f"{where} does not state {fact!r}"
        made = []
        for env_id, players in (("korovan_caravan/Korovan-v0", 5), ("korovan_caravan/Caravan-v0", 3)):
            inner = gymnasium.make(env_id).unwrapped
            facts = (inner.num_players, inner._core.seat, inner.opponents, inner._core.reward)
            assert facts == (players, 0, ["random"] * (players - 1), "shares"), facts
            made.append(f"{env_id}: {players} players, learner at seat 0, random opponents, shares")
        return "; ".join(made)

    @step("gymnasium.make_vec")
    def _():
        out = []
        for env_id in ("korovan_caravan/Korovan-v0", "korovan_caravan/Caravan-v0"):
            venv = gymnasium.make_vec(env_id, num_envs=16, seed=0)
            venv.reset(seed=0)
            rng = np.random.default_rng(0)
            for _ in range(100):
                venv.step(venv.sample_legal(rng))
            out.append(f"{type(venv).__name__}({env_id}, 16 games, 100 steps)")
        return "; ".join(out)

    @step("PettingZoo api_test: caravan_v0 flat and compact, korovan_v0")
    def _():
        from pettingzoo.test import api_test

        from korovan_caravan.pettingzoo import caravan_v0, korovan_v0

        sizes = []
        for space in ("flat", "compact"):
            env = caravan_v0.env(players=2, max_turns=40, action_space=space)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # api_test's note on dict observations
                api_test(env, num_cycles=300)
            sizes.append(f"{space} {env.action_space('player_0').n} ids")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            api_test(korovan_v0.env(players=4), num_cycles=300)
        return "caravan " + ", ".join(sizes) + "; korovan"

    @step("a policy against the built-in agents, with its 95% interval")
    def _():
        from korovan_caravan.evaluation import evaluate_policy, random_policy

        result = evaluate_policy(random_policy(0), "korovan", players=3, opponents="heuristic", games=60, seed=0)
        lo, hi = result.share_interval
        assert 0.0 <= lo <= result.share <= hi <= 1.0
        print(f"    {result}")
        match = korovan_caravan.evaluate(korovan_caravan.load_game("caravan", players=2), ["heuristic", "random"],
                                         games=10, seed=0)
        assert match.agents[0].games == 10
        return f"random policy share {result.share:.3f} [{lo:.3f}, {hi:.3f}] vs heuristic (fair {result.fair_share:.3f})"


if __name__ == "__main__":
    main()
