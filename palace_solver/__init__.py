"""palace-solver: analysis engine for the card game Palace (Shithead, Karma, Shed)."""
from .cards import parse_rank, rank_name
from .moves import IllegalMoveError, InvalidMoveError, Move
from .rules import VARIANTS, Rules, RulesError
from .state import CHANCE, TERMINAL, State

__version__ = "0.1.0"
__all__ = ["CHANCE", "TERMINAL", "VARIANTS", "IllegalMoveError", "InvalidMoveError", "Move",
           "Rules", "RulesError", "State", "parse_rank", "rank_name"]
