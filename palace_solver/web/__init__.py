"""``palace serve``: the analysis board and the live companion as a web page (Starlette on
uvicorn). Imports the model, :mod:`palace_solver.analysis` and :mod:`palace_solver.live`."""
