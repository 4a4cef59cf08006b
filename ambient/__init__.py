"""The pure core shared by the page and the server: standard library only, runs under CPython and Pyodide."""
