"""Hostile calls into the package (issue 22, items 10–13).

* A search for panics over every entry point of the native module: each
  public function, constructor and method is called with hostile arguments
  (wrong types, bools, negative and huge integers, NaN, huge strings,
  arrays of the wrong shape, samplers returning nonsense), and each call
  must return or raise an ordinary ``Exception``. A Rust panic surfaces as
  pyo3's ``PanicException``, a ``BaseException`` that ``except Exception``
  does not catch; an abort kills the interpreter.
* Sizes are checked before allocating (``VectorEnv``), thread counts are
  capped as the binary's, also in a process whose memory is capped.
* The arguments of item 12 raise clear errors.
* A ``VectorEnv`` shared by threads holds its lock on every call.
"""

import math
import pathlib
import random
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from conftest import mid_game, play_to_end

import korovan_caravan
from korovan_caravan import _korovan_caravan as native

# ---------------------------------------------------------------- search


def _sampler(value):
    return lambda: value


HOSTILE = [
    None,
    True,
    False,
    -1,
    0,
    1,
    2,
    3,
    7,
    255,
    2**31,
    2**32,
    2**63 - 1,
    2**63,
    2**64,
    -(2**63) - 1,
    10**30,
    1.5,
    math.nan,
    math.inf,
    -math.inf,
    "",
    "korovan",
    "caravan",
    "x" * 5000,
    "\x00",
    "draw R1",
    "end",
    b"\x00",
    [],
    [1, 2, 3],
    [2**40],
    [-1, 2**33],
    {},
    {"players": 3},
    object(),
    _sampler(2.0),
    _sampler(math.nan),
    _sampler(-1.0),
    _sampler(0.5),
    _sampler("x"),
    _sampler(None),
    np.int64(-1),
    np.uint64(2**64 - 1),
    np.float32(1.0),
    np.zeros(3, dtype=np.float32),
    np.zeros((2, 2), dtype=np.int64),
    np.zeros(0, dtype=np.uint8),
    np.zeros(10**4, dtype=np.uint32),
]

# Arguments that make a call legitimately long (a simulation of 2**63
# games, a search budget at its cap) are not hostile, only slow: the
# entry points that count work get their counts from these instead.
SMALL_COUNTS = [None, True, -1, 0, 1, 2, 2**64, 10**30, 1.5, math.nan, "3", object()]
AGENT_NAMES = [
    "random",
    "",
    "chess",
    "ismcts:0",
    "ismcts:18446744073709551615ms",
    "ismcts:18446744073709551615",
    "ismcts:99999999999999999999999",
    "flatmc:-1",
    "heuristic,random",
    ",".join(["random"] * 20),
    "x" * 5000,
]


def checked(what, f, *args, **kwargs):
    """Calls `f`; fails the test on anything but a return or an ordinary
    exception (a PanicException is a BaseException)."""
    try:
        return f(*args, **kwargs)
    except Exception as e:  # an ordinary, catchable error: fine
        assert type(e).__name__ != "PanicException", f"{what}{args!r:.300}: {e}"
        return e
    except BaseException as e:  # noqa: B036 - PanicException is one
        pytest.fail(f"{what}{args!r:.300} {kwargs!r:.200} raised {type(e).__name__}: {e}")


def arg_tuples(rng, pool, max_len=3, samples=120):
    """Every 0- and 1-argument call over `pool`, and `samples` random longer ones."""
    out = [()] + [(a,) for a in pool]
    for _ in range(samples):
        out.append(tuple(rng.choice(pool) for _ in range(rng.randint(2, max_len))))
    return out


def states():
    """States of both engines at every kind of node: a decision, a chance
    node, the end, and a resampled state without history."""
    out = []
    for name in ["korovan", "caravan"]:
        game = korovan_caravan.load_game(name, players=3, **({"max_turns": 30} if name == "caravan" else {}))
        out.append(game.new_initial_state())  # a chance node (the deal, the setup draws)
        decision = mid_game(name, 3, seed=5)
        out.append(decision)
        out.append(play_to_end(mid_game(name, 3, seed=6), random.Random(6)))
        if decision.current_player() >= 0:
            out.append(decision.resample_from_infostate(decision.current_player(), 3))
    return out


STATE_METHODS = sorted(
    m for m in dir(native.KorovanState) if not m.startswith("__") or m in ("__reduce__", "__eq__", "__copy__")
)
GAME_METHODS = sorted(m for m in dir(native.KorovanGame) if not m.startswith("__") or m in ("__reduce__", "__eq__"))
CORE_METHODS = sorted(m for m in dir(native._VectorCore) if not m.startswith("__"))


def test_the_search_covers_every_entry_point():
    public = {n for n in dir(native) if not n.startswith("__")}
    covered = {
        "load_game",
        "from_record",
        "registered_games",
        "simulate_json",
        "ladder_json",
        "merge_results",
        "Rng",
        "KorovanGame",
        "CaravanGame",
        "KorovanState",
        "CaravanState",
        "_VectorCore",
        "_Batch",
        "InvalidActionError",
        "CHANCE_STREAM",
        "AGENT_STREAM_BASE",
        "CHANCE_PLAYER",
        "TERMINAL_PLAYER",
        # test_no_panic_from_agents_learners_and_compact_actions
        "Agent",
        "_RolloutCore",
        "_Tally",
        "_arena",
        "_play_game",
        "_LearnerCore",
        "caravan_compact_num_actions",
        "caravan_compact_mask",
        "caravan_compact_legal_actions",
        "caravan_compact_to_flat",
        "caravan_flat_to_compact",
        # test_no_panic_from_the_network_entry_points
        "nn_info",
        "nn_forward",
        "self_play",
        "nn_match",
        "net_layout",
    }
    assert public <= covered, f"entry points the search does not call: {sorted(public - covered)}"
    # the engines' classes have the same methods (one Rust template)
    assert STATE_METHODS == sorted(
        m for m in dir(native.CaravanState) if not m.startswith("__") or m in ("__reduce__", "__eq__", "__copy__")
    )
    assert "apply_action" in STATE_METHODS and "resample_from_infostate" in STATE_METHODS


def test_no_panic_from_state_methods():
    rng = random.Random(22)
    calls = returned = 0
    for state in states():
        # values that fit this state (its legal ids, seats, a buffer of the
        # tensor's length, its notation), so that calls also get past the
        # checks of their first argument
        fitting = list(state.legal_actions()[:8]) + list(range(state.num_players())) + [-1]
        fitting += [np.zeros(state.get_game().observation_tensor_size(), dtype=np.float32)]
        fitting += [state.to_record()] if state.has_history() else []
        fitting += [state.action_to_string(a) for a in state.legal_actions()[:3]]
        pool = HOSTILE + fitting * 3
        for method in STATE_METHODS:
            for args in arg_tuples(rng, pool, samples=60):
                target = state.clone()
                result = checked(f"{type(state).__name__}.{method}", getattr(target, method), *args)
                calls += 1
                returned += not isinstance(result, Exception)
            # the state still works after whatever the calls did to clones
            checked("legal_actions", state.legal_actions)
    assert calls > 10_000
    # not only refusals: the valid calls among them ran to their end
    assert returned > 1500, (returned, calls)


def test_no_panic_from_games_and_module_functions():
    rng = random.Random(23)
    for name in ["korovan", "caravan"]:
        game = korovan_caravan.load_game(name, players=3)
        for method in GAME_METHODS:
            for args in arg_tuples(rng, HOSTILE, samples=40):
                checked(f"{name}.{method}", getattr(game, method), *args)
    for args in arg_tuples(rng, HOSTILE, samples=200):
        checked("load_game", native.load_game, *args)
        checked("from_record", native.from_record, *args)
        checked("merge_results", native.merge_results, *args)
        checked("registered_games", native.registered_games, *args)
        checked("KorovanGame", native.KorovanGame, *args)
        checked("KorovanState", native.KorovanState, *args)
        checked("InvalidActionError", native.InvalidActionError, *args)
    for key in ["players", "max_turns", "camels", "hand_size", "deck", "board", "nonsense"]:
        for value in HOSTILE:
            checked("load_game", native.load_game, "korovan", **{key: value})
            checked("load_game", native.load_game, "caravan", **{key: value})
    # simulate_json: every argument hostile, the counts of work small
    for _ in range(300):
        kwargs = {
            "game": rng.choice(["korovan", "caravan", "", "all", None, 3]),
            "games": rng.choice(SMALL_COUNTS),
            "agents": rng.choice(AGENT_NAMES + [None, 5]),
            "players": rng.choice(HOSTILE[:20]),
            "config": rng.choice([None, "", "{}", "[]", "{", '{"players": 99}', '{"max_turns": 0}', 7]),
            "seed": rng.choice(HOSTILE[:20]),
            "shard": rng.choice([None, (0, 1), (1, 1), (0, 0), (2**64, 1), (-1, 2), "0/1", (0,)]),
            "threads": rng.choice([None, 0, 1, 2, 1024, 1025, 100_000, 2**64, -1, True, 1.5]),
            "fixed_seats": rng.choice([False, True, None, 1]),
        }
        checked("simulate_json", native.simulate_json, **kwargs)
    # ladder_json: every argument hostile, the counts of work small
    for _ in range(300):
        kwargs = {
            "game": rng.choice(["korovan", "caravan", "", "all", None, 3]),
            "agents": rng.choice(AGENT_NAMES + ["random,heuristic", "random,random", None, 5]),
            "players": rng.choice([[3], [2, 3], [3, 3], [], [0], [2**64], [-1], [True], [1.5], (3,), "3", 3, None]),
            "deals": rng.choice(SMALL_COUNTS[1:]),  # not None: the default is 100 deals
            "config": rng.choice([None, "", "{}", "[]", "{", '{"players": 99}', '{"max_turns": 0}', 7]),
            "seed": rng.choice(HOSTILE[:20]),
            "shard": rng.choice([None, (0, 1), (1, 1), (0, 0), (2**64, 1), (-1, 2), "0/1", (0,), (0, 1, 2)]),
            "threads": rng.choice([None, 0, 1, 2, 1024, 1025, 100_000, 2**64, -1, True, 1.5]),
        }
        checked("ladder_json", native.ladder_json, **kwargs)
    for args in arg_tuples(rng, HOSTILE[:25], samples=100):
        checked("ladder_json", native.ladder_json, *args)


def test_no_panic_from_rng():
    rng = random.Random(24)
    for args in arg_tuples(rng, HOSTILE, samples=100):
        checked("Rng", native.Rng, *args)
    for method in ["child", "next_u64", "index", "unit", "weighted", "__copy__", "__deepcopy__"]:
        for args in arg_tuples(rng, HOSTILE, samples=60):
            checked(f"Rng.{method}", getattr(native.Rng(7), method), *args)


def test_no_panic_from_vector_core():
    rng = random.Random(25)
    for i in range(400):
        # half of the calls hostile in one argument only, the others valid
        valid = ["korovan" if i % 4 else "caravan", 3, 4 if i % 4 else 3, 0, 1, "{}"]
        hostile = [
            rng.choice(["korovan", "caravan", "", None, 1]),
            rng.choice(HOSTILE + [2**62, 10**12, 10**8]),
            rng.choice(HOSTILE[:20]),
            rng.choice(HOSTILE[:20]),
            rng.choice([None, 0, 1, 2, 3, 1025, 100_000, 2**64, True, -1]),
            rng.choice(["{}", "", "[]", '{"players": 99}', '{"max_turns": 1}', "{", 3]),
        ]
        if i % 2:
            args = list(valid)
            k = rng.randrange(6)
            args[k] = hostile[k]
        else:
            args = hostile[: rng.randint(0, 6)]
        checked("_VectorCore", native._VectorCore, *args)
        checked("_Batch", native._Batch, *args)  # the base class has no constructor
    for name in ["korovan", "caravan"]:
        core = native._VectorCore(name, 3, 3, 1, 2)
        buffers = korovan_caravan.VectorEnv(name, num_envs=3, players=3)._new_buffers()
        for method in CORE_METHODS:
            attr = getattr(core, method)
            if not callable(attr):
                for value in HOSTILE:
                    checked(f"_VectorCore.{method} =", setattr, core, method, value)
                continue
            for args in arg_tuples(rng, HOSTILE, max_len=9, samples=80):
                checked(f"_VectorCore.{method}", attr, *args)
        # buffers of the right types but wrong sizes, shapes and layouts
        bad = [np.zeros(0, np.uint32), np.zeros((3, 2), np.float32), np.zeros(7, np.uint8)[::2], np.zeros(5, np.int64)]
        for _ in range(200):
            outs = [rng.choice([b, *bad]) for b in buffers]
            checked("observe_into", core.observe_into, tuple(outs))
            actions = rng.choice([np.zeros(3, np.int64), np.full(3, -1, np.int64), np.zeros(4, np.int64), np.zeros((3, 1), np.int64)])
            checked("step_into", core.step_into, actions, tuple(outs))
        core.threads = 1
        core.reset(0)


def test_no_panic_from_vector_env():
    rng = random.Random(26)
    for _ in range(300):
        kwargs = {
            "game": rng.choice(["korovan", "caravan", "", "x"]),
            "num_envs": rng.choice(HOSTILE[:21] + [2**62, 10**12, 10**8]),
            "players": rng.choice(HOSTILE[:21]),
            "seed": rng.choice(HOSTILE[:21]),
            "threads": rng.choice([0, 1, 2, 1024, 1025, 100_000, 2**64, -1, None, 1.5]),
        }
        env = checked("VectorEnv", korovan_caravan.VectorEnv, **kwargs)
        if isinstance(env, korovan_caravan.VectorEnv):
            for actions in [env.sample_legal(np.random.default_rng(0)), [-1] * env.num_envs, [2**64 - 1] * env.num_envs, [], [1.5], "x"]:
                checked("VectorEnv.step", env.step, actions)
            checked("VectorEnv.reset", env.reset, seed=rng.choice(HOSTILE[:21]))


# ------------------------------------------------------- item 10 and 11


@pytest.mark.parametrize("num_envs", [10**12, 2**62, 2**63 - 1, 2**64 - 1, 10**8])
def test_vector_env_sizes_are_checked_before_allocating(num_envs):
    with pytest.raises((ValueError, MemoryError), match="num_envs|allocate"):
        korovan_caravan.VectorEnv("korovan", num_envs=num_envs, players=5)
    with pytest.raises((ValueError, MemoryError), match="num_envs|allocate"):
        korovan_caravan.VectorEnv("caravan", num_envs=num_envs, players=4)


def test_a_batch_beyond_any_address_space_is_a_value_error():
    with pytest.raises(ValueError, match="too large"):
        korovan_caravan.VectorEnv("korovan", num_envs=2**62, players=5)


@pytest.mark.parametrize("threads", [1025, 100_000, 2**63])
def test_thread_counts_are_capped_as_the_binarys(threads):
    with pytest.raises(ValueError, match="threads (must be in 1..=1024|.* is out of range)"):
        native.simulate_json("korovan", 1, threads=threads)
    with pytest.raises(ValueError, match="threads"):
        korovan_caravan.VectorEnv("korovan", num_envs=2, threads=threads)
    env = korovan_caravan.VectorEnv("korovan", num_envs=2)
    with pytest.raises(ValueError, match="threads"):
        env.threads = threads
    assert env.threads == 1


def test_budgets_beyond_the_cap_are_refused():
    for agents in ["ismcts:18446744073709551615ms", "ismcts:10000001", "flatmc:601s"]:
        with pytest.raises(ValueError, match="budget is too large"):
            native.simulate_json("caravan", 1, agents=agents)


# A child interpreter whose address space is capped a little above what it
# already uses, as under `ulimit -v`: there a failed allocation aborts the
# process unless it is checked, and threads cannot all be spawned.
CAPPED = textwrap.dedent(
    """
    import resource, sys
    import korovan_caravan
    from korovan_caravan import _korovan_caravan as native

    def vm_size():
        for line in open("/proc/self/status"):
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024

    limit = vm_size() + int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    what = sys.argv[2]
    try:
        if what == "vector":
            korovan_caravan.VectorEnv(sys.argv[3], num_envs=int(sys.argv[4]))
            print("BUILT")
        elif what == "threads":
            import json
            out = json.loads(native.simulate_json("korovan", 300, threads=1024))
            print("OK", out["games"])
        elif what == "vector-threads":
            env = korovan_caravan.VectorEnv("korovan", num_envs=4096, threads=1024)
            env.step(env.sample_legal())
            print("STEPPED", env.num_envs)
    except Exception as e:
        print("RAISED", type(e).__name__, e)
    """
)


def capped(*args):
    proc = subprocess.run(
        [sys.executable, "-c", CAPPED, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=600,
        env={"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, f"the capped interpreter died ({proc.returncode}): {proc.stderr[-2000:]}"
    assert "PanicException" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return proc.stdout


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
@pytest.mark.parametrize("game,num_envs", [("korovan", 10**6), ("korovan", 10**8), ("caravan", 10**6)])
def test_a_batch_beyond_a_capped_memory_raises_memory_error(game, num_envs):
    # 256 MiB above what the interpreter holds: far less than the batch needs
    out = capped(256 << 20, "vector", game, num_envs)
    assert out.startswith("RAISED MemoryError"), out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS and /proc are Linux's")
def test_threads_the_system_refuses_are_no_panic():
    # 192 MiB of address space: room for a few dozen thread stacks of 2 MiB,
    # so most of the 300 (or 1024) threads asked for cannot be spawned
    out = capped(192 << 20, "threads")
    assert out.startswith("OK 300"), out
    out = capped(192 << 20, "vector-threads")
    assert out.startswith("STEPPED 4096"), out


# ---------------------------------------------------------------- item 12


@pytest.fixture(params=["korovan", "caravan"])
def decision(request):
    state = mid_game(request.param, 3, seed=41)
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    return state


def test_apply_action_refuses_a_bool(decision):
    before = decision.clone()
    for flag in [True, False]:
        with pytest.raises(TypeError, match="not bool"):
            decision.apply_action(flag)
        with pytest.raises(TypeError, match="not bool"):
            decision.action_to_string(flag)
        with pytest.raises(TypeError, match="not bool"):
            decision.observation_tensor(flag)
    assert decision == before and decision.history() == before.history()
    # a numpy integer is an integer
    decision.apply_action(np.int64(decision.legal_actions()[0]))


def test_action_to_string_checks_the_player(decision):
    action = decision.legal_actions()[0]
    text = decision.action_to_string(action)
    for player in [5, 3, -2, -4, 2**40]:
        with pytest.raises(ValueError, match="seat|player"):
            decision.action_to_string(player, action)
        with pytest.raises(ValueError, match="seat|player"):
            decision.string_to_action(player, text)
    with pytest.raises(TypeError):
        decision.action_to_string("0", action)
    for player in [0, 1, 2, -1]:  # a seat, or chance (pyspiel's kChancePlayerId)
        assert decision.action_to_string(player, action) == text
        assert decision.string_to_action(player, text) == action


@pytest.mark.parametrize("value", [2.0, 1.0, -1.0, math.nan, math.inf, -math.inf, -0.5])
def test_resample_refuses_a_sampler_outside_zero_one(decision, value):
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        decision.resample_from_infostate(decision.current_player(), lambda: value)


def test_resample_accepts_a_sampler_in_zero_one(decision):
    for value in [0.0, 0.5, 0.999999]:
        sample = decision.resample_from_infostate(decision.current_player(), lambda: value)
        assert not sample.has_history()
    with pytest.raises(TypeError, match="float"):
        decision.resample_from_infostate(decision.current_player(), lambda: "x")


def test_rng_index_zero_is_refused():
    with pytest.raises(ValueError, match="n >= 1"):
        korovan_caravan.Rng(1).index(0)
    assert korovan_caravan.Rng(1).index(1) == 0


# ---------------------------------------------------------------- item 13


@pytest.mark.parametrize("name,copy", [("korovan", True), ("korovan", False), ("caravan", True), ("caravan", False)])
def test_a_vector_env_shared_by_threads(name, copy):
    """Threads stepping and sampling one env: every call holds the env, so
    sample_legal never reads arrays Rust is writing (an IndexError, or ids
    of another step's layout). The only error allowed is the documented
    one: an action drawn before another thread's step refused by `step`."""
    env = korovan_caravan.VectorEnv(name, num_envs=64, players=3, seed=1, copy=copy, threads=2)
    errors = []
    refused = [0]
    steps = [0]
    stop = threading.Event()

    def stepper(seed):
        rng = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                try:
                    env.step(env.sample_legal(rng))
                    steps[0] += 1
                except korovan_caravan.InvalidActionError:
                    refused[0] += 1
        except BaseException as e:  # noqa: B036 - any other error fails the test
            errors.append(e)
            stop.set()

    def sampler(seed):
        rng = np.random.default_rng(seed)
        try:
            while not stop.is_set():
                actions = env.sample_legal(rng)
                assert actions.shape == (env.num_envs,)
                assert (actions >= 0).all() and (actions < env.num_actions).all()
                mask_or_ids = env.legal_mask if env.legal_format == "mask" else env.legal_ids
                assert mask_or_ids.shape[0] == env.num_envs
        except BaseException as e:  # noqa: B036
            errors.append(e)
            stop.set()

    threads = [threading.Thread(target=stepper, args=(s,)) for s in range(3)]
    threads += [threading.Thread(target=sampler, args=(10 + s,)) for s in range(3)]
    for t in threads:
        t.start()
    deadline = threading.Event()
    deadline.wait(4.0)
    stop.set()
    for t in threads:
        t.join(60)
    assert not errors, f"{type(errors[0]).__name__}: {errors[0]}"
    assert steps[0] > 20, steps
    # the env is consistent after the storm: a step of legal actions works
    env.step(env.sample_legal(np.random.default_rng(0)))


def test_no_panic_from_agents_learners_and_compact_actions():
    """The entry points of the agents, the evaluation, the single-learner
    core and Caravan's compact actions, with hostile arguments (counts of
    work from SMALL_COUNTS, agent names from AGENT_NAMES)."""
    rng = random.Random(2022)
    games = [korovan_caravan.load_game("korovan", players=3), korovan_caravan.load_game("caravan", players=2, max_turns=6)]
    some_states = states()
    pool = HOSTILE + games + some_states[:4] + AGENT_NAMES
    counts = SMALL_COUNTS + [2**62, 10**12]
    calls = 0
    for game in games:
        name = "korovan" if isinstance(game, native.KorovanGame) else "caravan"
        for args in arg_tuples(rng, pool, samples=40):
            checked("Agent", native.Agent, *args)
            checked("_RolloutCore", native._RolloutCore, *args)
            checked("_Tally", native._Tally, *args)
            calls += 3
        for agent_name in AGENT_NAMES + [None, 3, ["random"]]:
            agent = checked("Agent", native.Agent, game, agent_name, 1)
            calls += 1
            if isinstance(agent, Exception):
                continue
            for state in some_states + HOSTILE[:8]:
                for method in ("step", "step_with_policy", "__call__"):
                    checked(f"Agent.{method}", getattr(agent, method), state)
                    calls += 1
            for batch in [some_states, some_states[:1], [], (), [None], HOSTILE[:8], "ab", b"ab", 3, None]:
                checked("Agent.step_many", agent.step_many, batch)
                calls += 1
            for args in arg_tuples(rng, pool, samples=10):
                checked("Agent.step_many", agent.step_many, *args)
                calls += 1
            for seed in HOSTILE[:20]:
                checked("Agent.restart", agent.restart, seed)
                calls += 1
        core = native._RolloutCore(game, None, 4, None, None, 1)
        for state in some_states:
            for n in SMALL_COUNTS:
                checked("_RolloutCore.evaluate", core.evaluate, state, n)
                calls += 1
        seats = game.num_players()
        for agents in [["random"] * seats, ["random"], [], ["chess"] * seats, "random", None, [1] * seats]:
            for n in SMALL_COUNTS:
                checked("_arena", native._arena, game, agents, n, 0, 1)
                checked("_play_game", native._play_game, game, agents, n)
                calls += 2
            for threads in counts:
                checked("_arena", native._arena, game, agents, 2, 0, threads)
                calls += 1
        tally = native._Tally(game, ["a"] * seats)
        for state in some_states:
            for args in arg_tuples(rng, HOSTILE + [[0] * seats, list(range(seats))], samples=10):
                checked("_Tally.add", tally.add, state, *args)
                calls += 1
        checked("_Tally.report", tally.report)
        for num_envs in counts:
            for opponents in ["random", ["random"] * (seats - 1), [], "chess", None]:
                for seat in [None, 0, seats, -1, True]:
                    checked(
                        "_LearnerCore",
                        native._LearnerCore,
                        name,
                        num_envs,
                        None,
                        0,
                        "{}",
                        opponents,
                        seat,
                        "shares",
                        0.0,
                        "auto",
                        "noop",
                    )
                    calls += 1
        for args in arg_tuples(rng, HOSTILE + some_states, samples=30):
            for f in ("caravan_compact_num_actions", "caravan_compact_mask", "caravan_compact_legal_actions"):
                checked(f, getattr(native, f), *args)
                calls += 1
        for state in some_states:
            for cid in HOSTILE[:20]:
                checked("caravan_compact_to_flat", native.caravan_compact_to_flat, state, cid)
                checked("caravan_flat_to_compact", native.caravan_flat_to_compact, state, cid)
                calls += 2
    assert calls > 2_000


# The engines' committed networks: real weights to damage.
_REPO = pathlib.Path(__file__).resolve().parents[2]
WEIGHTS = {
    "korovan": (_REPO / "crates/korovan-core/weights/korovan.bgnn"),
    "caravan": (_REPO / "crates/caravan-core/weights/caravan.bgnn"),
}
# Counts of work: every one is refused or tiny (no hostile call plays more
# than a game or two).
NN_COUNTS = [None, True, -1, 0, 1, 2**32, 2**64, 10**30, 1.5, math.nan, "3", object()]


def _damaged(weights: bytes):
    """The weights, and copies of them cut, flipped, emptied or retyped."""
    flipped = bytearray(weights)
    flipped[len(flipped) // 2] ^= 0x40
    return [
        weights,
        b"",
        b"BGNN",
        weights[:7],
        weights[: len(weights) // 2],
        weights + b"\0",
        bytes(flipped),
        b"\xff" * 64,
        weights.decode("latin-1"),
        None,
        3,
        [1, 2],
        bytearray(weights),
    ]


def test_no_panic_from_the_network_entry_points():
    """nn_info, nn_forward, self_play and nn_match with damaged weights,
    foreign weights, inputs of the wrong shape or type, and hostile counts,
    seeds, teachers and opponents: each returns or raises an ordinary
    exception (and nothing huge runs)."""
    calls = 0
    for name, path in WEIGHTS.items():
        weights = path.read_bytes()
        other = WEIGHTS["caravan" if name == "korovan" else "korovan"].read_bytes()
        game = korovan_caravan.load_game(name, players=3 if name == "korovan" else 2, **({"max_turns": 6} if name == "caravan" else {}))
        info = native.nn_info(weights)
        assert isinstance(info, dict)
        for w in _damaged(weights) + HOSTILE[:12]:
            checked("nn_info", native.nn_info, w)
            calls += 1
        n = game.observation_tensor_size() if hasattr(game, "observation_tensor_size") else None
        shapes = [(1, 3), (0, 0), (2,), (1, 1, 1)]
        if n:
            shapes += [(1, n), (2, n), (0, n), (1, n + 1)]
        for shape in shapes:
            for dtype in (np.float32, np.float64, np.int64):
                for w in (weights, other, b"", None):
                    checked("nn_forward", native.nn_forward, w, np.zeros(shape, dtype=dtype))
                    calls += 1
        if n:
            bad = np.full((1, n), np.nan, dtype=np.float32)
            checked("nn_forward", native.nn_forward, weights, bad)
            checked("nn_forward", native.nn_forward, weights, np.zeros((1, n), dtype=np.float32)[:, ::-1])
            calls += 2
        for arg in HOSTILE[:12] + [[[0.0] * 3]]:
            checked("nn_forward", native.nn_forward, weights, arg)
            calls += 1
        # self_play(game, games, seed, weights, teacher, iterations, threads, sharp)
        good = dict(games=1, seed=0, weights=None, teacher="random", iterations=1, threads=1, sharp=False)
        hostile_values = {
            "games": NN_COUNTS,
            "seed": HOSTILE[:20],
            "weights": _damaged(weights) + [other],
            "teacher": AGENT_NAMES + [None, 3],
            "iterations": NN_COUNTS,
            "threads": NN_COUNTS,
            "sharp": [None, 2, "yes"],
        }
        for key, values in hostile_values.items():
            for v in values:
                kwargs = dict(good, **{key: v})
                if key == "weights" and isinstance(v, (bytes, bytearray)) and v:
                    kwargs["iterations"] = 2
                checked("self_play", native.self_play, game, **kwargs)
                calls += 1
        for g in [None, 3, "korovan", game.new_initial_state()]:
            checked("self_play", native.self_play, g, 1, 0)
            calls += 1
        # nn_match(game, weights, opponent, games, seed, threads, iterations, millis)
        good = dict(weights=weights, opponent="random", games=1, seed=0, threads=1, iterations=None, millis=None)
        hostile_values = {
            "weights": _damaged(weights) + [other],
            "opponent": AGENT_NAMES + [None, 3],
            "games": NN_COUNTS,
            "seed": HOSTILE[:20],
            "threads": NN_COUNTS,
            "iterations": NN_COUNTS,
            "millis": NN_COUNTS,
        }
        for key, values in hostile_values.items():
            for v in values:
                kwargs = dict(good, **{key: v})
                if key in ("iterations", "millis") and isinstance(v, int) and v > 2:
                    continue  # a search budget that is legal but long
                checked("nn_match", native.nn_match, game, **kwargs)
                calls += 1
        checked("nn_match", native.nn_match, game, iterations=1, millis=1, **{k: good[k] for k in ("weights", "opponent", "games", "seed")})
        calls += 1
        layout = native.net_layout(name)
        assert layout["game"] == name and layout["inputs"] == info["inputs"]
        assert (layout["policy_len"], layout["value_len"]) == (info["policy_len"], info["value_len"])
    for arg in HOSTILE[:20] + ["chess", "", game]:
        checked("net_layout", native.net_layout, arg)
        calls += 1
    assert calls > 300
