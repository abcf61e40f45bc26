"""The game of Ataxx: rules, board, notation, Blocs-Config. No I/O lives here."""
