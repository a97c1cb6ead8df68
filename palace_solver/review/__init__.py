"""Game reviews: a game record replayed (:mod:`~palace_solver.review.replay`) and every
decision judged from what the mover knew (:mod:`~palace_solver.review.judge`)."""
