"""Adapters to other frameworks: Palace as an OpenSpiel game, and compiled rollouts for
OpenSpiel's MCTS. Imports only the model and the compiled bridge."""
