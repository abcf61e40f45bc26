"""Evaluation weights (centipawns) written by scripts/tune_eval.py; see evaluate.FEATURES."""

# Fitted on 112515 self-play positions; held-out log-loss 0.6041.
OPENING = (92, 28, -15, 55, 63, -18, 12, 9, 34, 31, -85, 22, -67, 22, -15)
ENDGAME = (108, 219, 266, 132, 154, 183, 137, 155, 153, 45, -11, -14, 166, -54, 188)
