"""RISK 2210 A.D.: its own board, state and rules beside the classic engine (issue 19).

``new_game_2210`` starts a game; the state's ``legal_actions()`` and ``apply(action, seat)`` follow the
classic engine's shape, with ``asked`` naming every seat a decision is asked of (all seats at once for the
secret bids). Randomness goes through ``engine.r2210.dice`` only.
"""
