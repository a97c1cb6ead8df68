"""Long runs on the batch layer (:mod:`.batch`: local processes or Ray, resumable output):
series of games, batch analysis, the swap ranking and the swap table. Imports everything
below it, nothing above (live, interop, cli)."""
