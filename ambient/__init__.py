"""The pure core shared by the page and the server: standard library only, CPython and Pyodide."""
