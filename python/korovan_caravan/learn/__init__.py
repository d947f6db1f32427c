"""Learned agents trained in PyTorch.

* :mod:`.nets` — the networks: a residual convolution tower over Caravan's
  7×7 board planes with global features, and an MLP (Korovan); each says
  how it is written as a ``BGNN`` version-2 graph.
* :mod:`.export` — writes a network as a ``BGNN`` version-2 weights file
  (batch norms folded into the convolutions), the file the Rust engines'
  ``learned`` agents play through ``boardgame_kit::nn``.
* :mod:`.expert_iteration` — expert iteration: self-play in Rust with a
  teacher or the current network inside the search (``self_play`` of the
  native module), training on the targets, export, next round; its replay
  buffer is :mod:`.buffer`.
* :mod:`.ppo` — PPO against built-in seats, the games in a
  ``LearnerVectorEnv``; its rollout buffer is :mod:`.rollout`.
* :mod:`.recipe` — a committed network from nothing, as one resumable
  command; :mod:`.evaluate` and :mod:`.curve` measure weights files.

``nn_forward(weights, inputs)`` runs a weights file through the Rust forward
pass (the parity test compares it with PyTorch to 1e-4), ``nn_info`` says
what a file holds, ``net_layout(game)`` gives the network layout the engine
defines (input length, heads, board planes; :mod:`.nets` builds its networks
from it), and ``self_play`` plays the training games.
"""

from __future__ import annotations

from .._korovan_caravan import net_layout, nn_forward, nn_info, nn_match, self_play

__all__ = ["net_layout", "nn_forward", "nn_info", "nn_match", "self_play"]
