"""The model: cards, rules, moves, the reference engine (:class:`State`), positions and their
text form. It imports nothing else of the package; everything else imports it."""
