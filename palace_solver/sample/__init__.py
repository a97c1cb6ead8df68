"""Hidden cards and the draw pile: sampling the unseen cards (:mod:`.sampler`), playing
policies and rollouts (:mod:`.policies`, :mod:`.rollout`), determinization
(:mod:`.sampled`), ISMCTS (:mod:`.ismcts`) and their intervals (:mod:`.stats`). Imports
:mod:`palace_solver.game` and :mod:`palace_solver.solve`."""
