"""The server's endpoints, one router per area: ``pages`` (the pages and their scripts),
``play`` (the daily puzzle's API) and ``board`` (the editor's API). Each handler validates
its request, calls the module that knows the answer (none of which knows about HTTP) on
the server's search pool, and answers; errors are answered by :mod:`cpmodels.web.errors`."""
