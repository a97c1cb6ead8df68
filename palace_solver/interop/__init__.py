"""Adapters to other frameworks: Palace as an OpenSpiel game, compiled rollouts for
OpenSpiel's MCTS, and environments for reinforcement learning (PettingZoo, Gymnasium; see
docs/rl.md). Imports only the model and the compiled bridge, except the Gymnasium
environment, which seats the agents of ``palace match`` and so sits above them."""
