"""Evaluation weights (centipawns) written by scripts/tune_eval.py; see evaluate.FEATURES."""

# Fitted on 89554 self-play positions; held-out log-loss 0.6359.
OPENING = (75, 48, 2, 61, -5, 15, -1, -100, 50, 45, -47, 27, -90, 56, 34)
ENDGAME = (155, 130, 214, 206, 265, 122, 155, 304, 179, 129, -20, -49, 253, -87, 2)
