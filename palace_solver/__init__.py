"""palace-solver: analysis engine for the card game Palace (Shithead, Karma, Shed).

The public names: the model (:class:`Position`, :class:`State`, :class:`Rules`,
:class:`Move`), :func:`analyze` (a position in, an :class:`Analysis` out) and the bots
(:data:`BOTS`, :func:`make_bot`). The subpackages, each importing only those before it:
``game`` (the model), ``solve`` (exact and depth-limited search, the compiled bridge),
``sample`` (hidden cards: sampling, determinization, ISMCTS, rollouts), then the front door
``analysis``, ``agents`` (bots and games), ``jobs`` (batch runs), ``live`` (the live
assistant), ``interop`` (OpenSpiel); ``cli`` (click commands) sits on top.
"""
from .analysis import analyze
from .game.cards import parse_rank, rank_name
from .game.moves import IllegalMoveError, InvalidMoveError, Move
from .game.position import InvalidPositionError, Position, load_position, parse_position
from .game.rules import VARIANTS, Rules, RulesError
from .game.state import CHANCE, TERMINAL, State
from .sample.policies import BOTS, make_bot
from .solve.results import Analysis, MoveValue, NotExactError

__version__ = "0.1.0"
__all__ = ["BOTS", "CHANCE", "TERMINAL", "VARIANTS", "Analysis", "IllegalMoveError",
           "InvalidMoveError", "InvalidPositionError", "Move", "MoveValue", "NotExactError",
           "Position", "Rules", "RulesError", "State", "analyze", "load_position", "make_bot",
           "parse_position", "parse_rank", "rank_name"]
